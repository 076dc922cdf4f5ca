// The findings of the security review of issue 23, as a client meets
// them, against the real binary: a revocation by a token's public prefix,
// an open redirect before sign-in, the limits on every route, the limits
// behind a trusted proxy, and browser sessions that end. Plain HTTP (Node's
// fetch, a cookie jar of its own): the pages in a real browser are
// browser.test.mjs's.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { promisify } from 'node:util';
import { bin, serve, world } from './harness.mjs';

const redirectUri = 'http://127.0.0.1:9/callback'; // never reached: the code is read off the redirect
const vitrine = (...args) => promisify(execFile)(bin, args);

let w;
before(async () => { w = await world(); });
after(() => w?.cleanup());

// start serves the world with flags, and returns the server's base URL.
async function start(t, ...flags) {
  const s = await serve(w.db, ...flags);
  t.after(() => s.stop());
  return { ...s, base: new URL('/', s.url).href.replace(/\/$/, '') };
}

// Browser is a cookie jar and the pages it fetches, redirects shown, not
// followed; headers (X-Forwarded-For, say) go with every request.
class Browser {
  jar = new Map();
  constructor(base, headers = {}) { this.base = base; this.headers = headers; }
  async fetch(path, { method = 'GET', form, headers = {} } = {}) {
    const res = await fetch(new URL(path, this.base), {
      method, redirect: 'manual', body: form && new URLSearchParams(form),
      headers: { ...this.headers, ...headers, cookie: [...this.jar].map(([k, v]) => `${k}=${v}`).join('; ') },
    });
    for (const c of res.headers.getSetCookie()) {
      const [pair, ...attrs] = c.split(';');
      const eq = pair.indexOf('=');
      if (attrs.some((a) => /max-age=-1|max-age=0\b/i.test(a.trim()))) this.jar.delete(pair.slice(0, eq));
      else this.jar.set(pair.slice(0, eq), pair.slice(eq + 1));
    }
    const body = await res.text();
    return { status: res.status, location: res.headers.get('location'), body, headers: res.headers };
  }
  // fields are a page's hidden form fields.
  static fields(page) {
    return Object.fromEntries([...page.body.matchAll(/name="(csrf|authz|next|token)" value="([^"]*)"/g)]
      .map(([, k, v]) => [k, v.replaceAll('&amp;', '&').replaceAll('&#43;', '+').replaceAll('&#39;', "'")]));
  }
  async signIn(email, password) {
    const login = await this.fetch('/login?next=/account');
    const res = await this.fetch('/login', { method: 'POST', form: { ...Browser.fields(login), email, password } });
    assert.equal(res.status, 303, `sign-in of ${email}: ${res.status}`);
    return res;
  }
  async onAccount() { return (await this.fetch('/account')).status === 200; }
}

async function register(base, redirect = redirectUri) {
  const res = await fetch(`${base}/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'Security E2E', redirect_uris: [redirect], token_endpoint_auth_method: 'none' }) });
  assert.equal(res.status, 201);
  return (await res.json()).client_id;
}

// connectApp runs an app's whole flow for a person and returns its tokens.
async function connectApp(base, clientID, email) {
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const q = new URLSearchParams({ response_type: 'code', client_id: clientID, redirect_uri: redirectUri, state: 'state-123456',
    code_challenge: challenge, code_challenge_method: 'S256', scope: 'vitrine:read vitrine:write', resource: `${base}/mcp` });
  const b = new Browser(base);
  const toLogin = await b.fetch(`/oauth/authorize?${q}`);
  assert.equal(toLogin.status, 303);
  const login = await b.fetch(toLogin.location);
  const signedIn = await b.fetch('/login', { method: 'POST', form: { ...Browser.fields(login), email, password: w.passwords[email] } });
  const consent = await b.fetch(signedIn.location);
  const back = await b.fetch('/oauth/authorize', { method: 'POST', form: { ...Browser.fields(consent), decision: 'approve', scope: 'write' } });
  const params = new URL(back.location).searchParams;
  assert.ok(params.get('code'), `no code: ${back.location}`);
  const res = await fetch(`${base}/oauth/token`, { method: 'POST', body: new URLSearchParams({ grant_type: 'authorization_code',
    code: params.get('code'), redirect_uri: redirectUri, client_id: clientID, code_verifier: verifier, resource: `${base}/mcp` }) });
  assert.equal(res.status, 200);
  return { ...(await res.json()), iss: params.get('iss') };
}

function ping(base, token) {
  return fetch(`${base}/mcp`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json',
    accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }) });
}

test('finding 1: a token\'s public prefix revokes nothing; the whole token does', async (t) => {
  const { base } = await start(t);
  const client = await register(base);
  const tokens = await connectApp(base, client, 'ana@technova.example');
  const forged = tokens.access_token.slice(0, 12) + 'A'.repeat(tokens.access_token.length - 12);
  const revoke = (token) => fetch(`${base}/oauth/revoke`, { method: 'POST', body: new URLSearchParams({ token, client_id: client }) });
  assert.equal((await revoke(forged)).status, 200);
  assert.equal((await ping(base, tokens.access_token)).status, 200, 'the token still works after a revocation by its prefix');
  assert.equal((await revoke(tokens.access_token)).status, 200);
  assert.equal((await ping(base, tokens.access_token)).status, 401, 'the whole token revokes it');
});

test('finding 2: before anyone signs in, a request that cannot be used is a page here, not a redirect', async (t) => {
  const { base } = await start(t);
  const res = await fetch(`${base}/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'Evil', redirect_uris: ['https://evil.example/landing'], token_endpoint_auth_method: 'none' }) });
  const evil = (await res.json()).client_id;
  const q = new URLSearchParams({ response_type: 'code', client_id: evil, redirect_uri: 'https://evil.example/landing', state: 'state-123456' });
  const page = await new Browser(base).fetch(`/oauth/authorize?${q}`);
  assert.equal(page.status, 400);
  assert.equal(page.location, null, 'no redirect');
  assert.match(page.body, /PKCE is required/);
});

test('finding 3: the per-address limit and the body bounds hold on every route', async (t) => {
  const { base } = await start(t, '--ip-rate', '0.001', '--ip-burst', '2', '--trusted-proxies', '127.0.0.1',
    '--max-body', '65536', '--body-timeout', '1s');
  const routes = [
    ['POST', '/mcp'], ['GET', '/.well-known/oauth-authorization-server'], ['POST', '/oauth/token'], ['POST', '/oauth/revoke'],
    ['POST', '/oauth/register'], ['GET', '/oauth/authorize'], ['GET', '/login'], ['POST', '/login'], ['GET', '/password'],
    ['POST', '/password'], ['GET', '/account'], ['GET', '/healthz'], ['GET', '/readyz'],
  ];
  for (const [i, [method, path]] of routes.entries()) {
    const b = new Browser(base, { 'x-forwarded-for': `203.0.113.${i + 1}` });
    const send = () => b.fetch(path, { method, form: method === 'POST' ? { x: '1' } : undefined });
    for (let n = 0; n < 2; n++) assert.notEqual((await send()).status, 429, `${method} ${path}: within the burst`);
    const third = await send();
    assert.equal(third.status, 429, `${method} ${path}: the third request from one address`);
    assert.ok(Number(third.headers.get('retry-after')) >= 1);
  }

  // 24 MiB to the token endpoint: the server stops reading at --max-body,
  // so the client cannot send it all (what it sent fits in the sockets'
  // buffers).
  let sent = 0;
  const chunk = new Uint8Array(64 << 10).fill(120);
  const body = new ReadableStream({
    pull(c) { if (sent >= 24 << 20) { c.close(); return; } sent += chunk.length; c.enqueue(chunk); },
  });
  const res = await fetch(`${base}/oauth/token`, { method: 'POST', body, duplex: 'half',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': '198.51.100.1' } }).catch((e) => e);
  assert.ok(res instanceof Error || res.status >= 400, `a 24 MiB body: ${res.status}`);
  assert.ok(sent < 24 << 20, `the server read the whole 24 MiB body (${sent} bytes sent)`);

  // A body trickled in is cut at --body-timeout.
  const host = new URL(base).host;
  const started = Date.now();
  const answer = await new Promise((resolve) => {
    const s = connect({ host: '127.0.0.1', port: Number(new URL(base).port) }, () => {
      s.write(`POST /oauth/token HTTP/1.1\r\nHost: ${host}\r\nX-Forwarded-For: 198.51.100.2\r\n` +
        'Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 500\r\n\r\ngrant_type=');
    });
    let got = '';
    s.on('data', (d) => { got += d; });
    s.on('close', () => resolve(got));
    s.setTimeout(10000, () => s.destroy());
  });
  assert.ok(Date.now() - started < 5000, `a stalled body held the connection for ${Date.now() - started} ms`);
  assert.match(answer, /^HTTP\/1\.1 4\d\d/);
});

test('finding 4: behind a trusted proxy, sign-in limits count the client, not the proxy', async (t) => {
  const { base } = await start(t, '--trusted-proxies', '127.0.0.1');
  const from = (addr) => new Browser(base, { 'x-forwarded-for': addr });
  // Ten sign-ins a client at once, then one every 6 seconds: the client
  // is held back at its eleventh within 6 seconds, later on a slow
  // machine by as many as the seconds gave back.
  const started = Date.now();
  let failed = 0;
  for (;;) {
    const b = from('203.0.113.66');
    const login = await b.fetch('/login');
    const res = await b.fetch('/login', { method: 'POST', form: { ...Browser.fields(login), email: `nobody${failed}@example.com`, password: 'wrong password' } });
    if (res.status === 429) break;
    assert.equal(res.status, 401, `bad password ${failed + 1}`);
    failed++;
    assert.ok(failed <= 10 + Math.ceil((Date.now() - started) / 6000), `${failed} sign-ins in ${Date.now() - started} ms, none held back`);
  }
  assert.ok(failed >= 10, `held back after ${failed} sign-ins`);
  const held = from('203.0.113.66');
  const login = await held.fetch('/login');
  const refused = await held.fetch('/login', { method: 'POST', form: { ...Browser.fields(login), email: 'ana@technova.example',
    password: w.passwords['ana@technova.example'] } });
  assert.equal(refused.status, 429, 'the same client is held back');
  await from('203.0.113.77').signIn('ana@technova.example', w.passwords['ana@technova.example']); // another client is not
});

test('finding 5: a new password, a disabled account and "sign out everywhere" end every session', async (t) => {
  const { base } = await start(t);
  const email = 'bruno@technova.example';
  let password = w.passwords[email];
  const before = new Browser(base);
  await before.signIn(email, password);
  assert.ok(await before.onAccount());

  const { stdout } = await vitrine('user', 'invite', '--db', w.db, '--email', email, '--public-url', base, '--json');
  const link = new URL(JSON.parse(stdout).link);
  const elsewhere = new Browser(base);
  const form = Browser.fields(await elsewhere.fetch(link.pathname + link.search));
  password = 'a brand new password for Bruno';
  assert.equal((await elsewhere.fetch('/password', { method: 'POST', form: { ...form, password, password2: password } })).status, 303);
  assert.ok(!(await before.onAccount()), 'a session from before the new password still opens the account');
  assert.ok(await elsewhere.onAccount());

  await vitrine('user', 'update', '--db', w.db, '--email', email, '--disable');
  await vitrine('user', 'update', '--db', w.db, '--email', email, '--enable');
  assert.ok(!(await elsewhere.onAccount()), 'a session from before the user was disabled is back once enabled');

  const here = new Browser(base), there = new Browser(base);
  await here.signIn(email, password);
  await there.signIn(email, password);
  const account = await here.fetch('/account');
  const out = await here.fetch('/account/sessions/revoke', { method: 'POST', form: Browser.fields(account) });
  assert.equal(out.status, 303);
  assert.ok(!(await here.onAccount()) && !(await there.onAccount()), 'a browser is still signed in after "sign out everywhere"');
});

test('finding 10: an http:// --public-url beyond loopback stops the server at start', async () => {
  // A server that starts is stopped after 10 s, and fails the test.
  await assert.rejects(promisify(execFile)(bin, ['serve', '--db', w.db, '--addr', '127.0.0.1:0', '--public-url', 'http://mcp.example.com'],
    { timeout: 10000 }), (e) => !e.killed && /set --public-url https:\/\/mcp\.example\.com/.test(e.stderr));
});

test('finding 12: the authorization response names the issuer (RFC 9207), as the metadata says', async (t) => {
  const { base } = await start(t);
  const meta = await (await fetch(`${base}/.well-known/oauth-authorization-server`)).json();
  assert.equal(meta.authorization_response_iss_parameter_supported, true);
  const { iss } = await connectApp(base, await register(base), 'carla@technova.example');
  assert.equal(iss, meta.issuer);
});
