// The harness of the end-to-end suites: it runs the real vitrine binary,
// built by `make test` (or named by VITRINE_BIN), on a fresh database.
import { spawn, execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

export const bin = resolve(process.env.VITRINE_BIN ?? new URL('../bin/vitrine', import.meta.url).pathname);

// world fills a new database with the demo data and returns it: the
// database's path, the tenants by slug, and the tokens and passwords by
// email.
export async function world() {
  const dir = mkdtempSync(join(tmpdir(), 'vitrine-e2e-'));
  const db = join(dir, 'e2e.db');
  const { stdout } = await promisify(execFile)(bin, ['demo', '--db', db, '--json']);
  const demo = JSON.parse(stdout);
  return {
    db,
    tenants: Object.fromEntries(demo.tenants.map((t) => [t.slug, t.id])),
    tokens: Object.fromEntries(demo.users.map((u) => [u.email, u.token])),
    passwords: Object.fromEntries(demo.users.map((u) => [u.email, u.password])),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

// serve starts `vitrine serve` on a free port and returns its MCP URL once
// it listens, and what it printed.
export function serve(db, ...flags) {
  const proc = spawn(bin, ['serve', '--db', db, '--addr', '127.0.0.1:0', ...flags], { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '', out = '';
  const waiting = []; // [pattern, resolve] of printed
  const check = () => { for (const w of [...waiting]) if (w[0].test(out)) { waiting.splice(waiting.indexOf(w), 1); w[1](out); } };
  proc.stdout.on('data', (chunk) => { out += chunk; check(); });
  // printed resolves with what the server printed once it matches pattern.
  const printed = (pattern) => new Promise((done) => { waiting.push([pattern, done]); check(); });
  return new Promise((resolvePromise, reject) => {
    proc.stderr.on('data', (chunk) => {
      log += chunk;
      const m = log.match(/"?url"?[=:]"?(http:\/\/[^\s"]+\/mcp)/);
      if (m) resolvePromise({ url: m[1], stop: () => stop(proc), log: () => log, printed });
    });
    proc.on('exit', (code) => reject(new Error(`vitrine serve exited with ${code}:\n${log}`)));
  });
}

// serveDemo runs `vitrine serve --demo` on a new database, as make demo
// does, so that the demo's images are at the server's own address; it
// returns the server (as serve does) and the world the demo printed (as
// world returns it).
export async function serveDemo(...flags) {
  const dir = mkdtempSync(join(tmpdir(), 'vitrine-e2e-'));
  const db = join(dir, 'e2e.db');
  await promisify(execFile)(bin, ['migrate', '--db', db]);
  const server = await serve(db, '--demo', ...flags);
  const out = await server.printed(/are shown once/);
  const users = [...out.matchAll(/<([^>]+)>: .*\n  token: (\S+)\n  password: (\S+)/g)];
  const tenants = [...out.matchAll(/company .+? slug (\S+)\s+id (\S+)/g)];
  if (users.length === 0 || tenants.length === 0) throw new Error(`vitrine serve --demo printed no demo world:\n${out}`);
  return {
    server,
    world: {
      db,
      tenants: Object.fromEntries(tenants.map((m) => [m[1], m[2]])),
      tokens: Object.fromEntries(users.map((m) => [m[1], m[2]])),
      passwords: Object.fromEntries(users.map((m) => [m[1], m[3]])),
      cleanup: () => rmSync(dir, { recursive: true, force: true }),
    },
  };
}

function stop(proc) {
  return new Promise((done) => {
    if (proc.exitCode !== null) return done();
    proc.on('exit', () => done());
    proc.kill('SIGTERM');
  });
}

// OAuthClient is the TypeScript SDK's OAuthClientProvider kept in memory,
// as a client application keeps it: its registration, tokens and PKCE
// verifier, and the authorization URL it would open in a browser.
//
// keepsRefreshToken false is a client that keeps no refresh token: the
// TypeScript SDK (1.32.2) answers a 403 insufficient_scope by refreshing
// when it holds one, which never widens a grant, and then gives up
// ("Server returned 403 after trying upscoping", typescript-sdk issue
// #2255); without one, it asks the person (step-up authorization).
export class OAuthClient {
  authorizationUrl;
  #client; #tokens; #verifier; #redirectUri; #name; #keepsRefresh;
  constructor(redirectUri, { name = 'Vitrine e2e', clientMetadataUrl, keepsRefreshToken = true } = {}) {
    this.#redirectUri = redirectUri;
    this.#name = name;
    this.#keepsRefresh = keepsRefreshToken;
    this.clientMetadataUrl = clientMetadataUrl;
  }
  get redirectUrl() { return this.#redirectUri; }
  get clientMetadata() {
    return { client_name: this.#name, redirect_uris: [this.#redirectUri], grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'], token_endpoint_auth_method: 'none' };
  }
  clientInformation() { return this.#client; }
  saveClientInformation(c) { this.#client = c; }
  tokens() { return this.#tokens; }
  saveTokens(t) { this.#tokens = this.#keepsRefresh ? t : { ...t, refresh_token: undefined }; }
  invalidateCredentials(what) {
    if (what === 'all' || what === 'tokens') this.#tokens = undefined;
    if (what === 'all' || what === 'client') this.#client = undefined;
    if (what === 'all' || what === 'verifier') this.#verifier = undefined;
  }
  redirectToAuthorization(url) { this.authorizationUrl = url; }
  saveCodeVerifier(v) { this.#verifier = v; }
  codeVerifier() { return this.#verifier; }
}
