// Vitrine as an OAuth resource server in front of a real authorization
// server (authserver.mjs: node-oidc-provider), driven as Claude and VS Code
// drive it: the official TypeScript SDK's OAuth client starts with no
// token, follows the 401 to the protected-resource metadata, registers
// itself (dynamic client registration), signs in with PKCE and a resource
// indicator, and calls tools on the real binary. Then the ways a token must
// be refused, or narrowed.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { OAuthClient, serve, world } from './harness.mjs';

const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const redirectUri = 'http://127.0.0.1:9/callback'; // never reached: the test reads the code off the redirect

let w, server, as, meta;
before(async () => {
  as = await startAuthorizationServer();
  meta = await (await fetch(new URL('.well-known/openid-configuration', as.issuer))).json();
  w = await world();
  server = await serve(w.db, '--oauth-issuer', as.issuer,
    '--oauth-client-id', 'vitrine', '--oauth-client-secret', 'vitrine-introspection-secret');
});
after(async () => {
  await server?.stop();
  as?.stop();
  w?.cleanup();
});

function startAuthorizationServer() {
  const proc = spawn(here('node_modules/node/bin/node'), [here('authserver.mjs')], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    proc.on('exit', (code) => reject(new Error(`the authorization server exited with ${code}`)));
    createInterface({ input: proc.stdout }).once('line', (line) => {
      resolve({ issuer: JSON.parse(line).issuer, stop: () => proc.kill() });
    });
  });
}

// authorize follows an authorization URL as the browser would, with the
// sign-in and consent that the authorization server automates for the
// account named by login_hint, and returns the redirect's parameters.
async function authorize(url, account) {
  url = new URL(url);
  url.searchParams.set('login_hint', account);
  const jar = new Map();
  for (let hop = 0; hop < 20; hop++) {
    const res = await fetch(url, { redirect: 'manual', headers: { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') } });
    for (const c of res.headers.getSetCookie()) {
      const pair = c.split(';')[0];
      const eq = pair.indexOf('=');
      jar.set(pair.slice(0, eq), pair.slice(eq + 1));
    }
    const location = res.headers.get('location');
    assert.ok(location, `the authorization flow stopped at ${url}: ${res.status} ${await res.text()}`);
    url = new URL(location, url);
    if (url.href.startsWith(redirectUri)) return url.searchParams;
  }
  throw new Error('too many redirects');
}


// tokenFor runs the authorization code flow by hand, for the variants the
// SDK would not ask for: another resource, a narrower scope, test clients
// whose tokens are opaque or carry "scp".
async function tokenFor({ account = 'ana', scope = 'vitrine:read vitrine:write', resource = server.url, client = {} } = {}) {
  const reg = await fetch(meta.registration_endpoint, { method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ redirect_uris: [redirectUri], token_endpoint_auth_method: 'none', grant_types: ['authorization_code'],
      response_types: ['code'], ...client }) });
  assert.equal(reg.status, 201, await reg.clone().text());
  const { client_id } = await reg.json();
  const verifier = randomBytes(32).toString('base64url');
  const url = new URL(meta.authorization_endpoint);
  for (const [k, v] of Object.entries({ client_id, response_type: 'code', redirect_uri: redirectUri, scope, resource,
    code_challenge: createHash('sha256').update(verifier).digest('base64url'), code_challenge_method: 'S256', state: 'st' })) {
    url.searchParams.set(k, v);
  }
  const params = await authorize(url, account);
  assert.ok(params.get('code'), `no code: ${params}`);
  const res = await fetch(meta.token_endpoint, { method: 'POST', body: new URLSearchParams({ grant_type: 'authorization_code',
    code: params.get('code'), redirect_uri: redirectUri, code_verifier: verifier, client_id, resource }) });
  const body = await res.json();
  assert.equal(res.status, 200, JSON.stringify(body));
  return { token: body.access_token, client_id };
}

// status sends an initialize with token and returns what the client sees.
async function status(token) {
  const res = await fetch(server.url, { method: 'POST', headers: { authorization: `Bearer ${token}`,
    'content-type': 'application/json', accept: 'application/json, text/event-stream' },
  body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'e2e', version: '1' } } }) });
  await res.body?.cancel();
  return { code: res.status, challenge: res.headers.get('www-authenticate') ?? '' };
}

async function connect(token) {
  const client = new Client({ name: 'vitrine-e2e', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return client;
}

function ok(res) {
  assert.ok(!res.isError, res.content?.[0]?.text);
  return res.structuredContent;
}

const product = (sku) => ({ name: 'create_product', arguments: { tenant_id: w.tenants['technova'], sku, name: `Made with ${sku}`, price: '10.00' } });

test('an MCP client connects by URL alone: 401, metadata, registration, PKCE, a token, tools', async () => {
  const provider = new OAuthClient(redirectUri);
  const first = new Client({ name: 'vitrine-e2e', version: '1.0.0' });
  await assert.rejects(first.connect(new StreamableHTTPClientTransport(new URL(server.url), { authProvider: provider })), UnauthorizedError);
  assert.ok(provider.clientInformation()?.client_id, 'the client registered itself');
  const asked = new URL(provider.authorizationUrl);
  assert.equal(asked.origin + '/', as.issuer);
  assert.equal(asked.searchParams.get('resource'), server.url, 'the resource indicator is the MCP URL');
  assert.equal(asked.searchParams.get('code_challenge_method'), 'S256');

  const code = (await authorize(asked, 'ana')).get('code');
  await new StreamableHTTPClientTransport(new URL(server.url), { authProvider: provider }).finishAuth(code);
  assert.equal(provider.tokens().access_token.split('.').length, 3, 'a JWT access token');

  const client = new Client({ name: 'vitrine-e2e', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(server.url), { authProvider: provider }));
  const who = ok(await client.callTool({ name: 'whoami', arguments: {} }));
  assert.equal(who.user.email, 'ana@technova.example');
  const { tenants } = ok(await client.callTool({ name: 'list_tenants', arguments: {} }));
  assert.deepEqual(tenants.map((t) => [t.slug, t.role]), [['technova', 'owner']]);
  const made = ok(await client.callTool(product('OAUTH-1')));
  assert.equal(made.sku, 'OAUTH-1');
  await client.close();
});

test('the issuer ends in "/" (as Auth0\'s do) and is advertised exactly so', async () => {
  assert.ok(as.issuer.endsWith('/'));
  const prm = await (await fetch(new URL('/.well-known/oauth-protected-resource/mcp', server.url))).json();
  assert.deepEqual(prm.authorization_servers, [as.issuer]);
  assert.equal(prm.resource, server.url);
});

test('a token for another audience is refused', async () => {
  const { token } = await tokenFor({ resource: 'https://elsewhere.example/mcp' });
  const { code, challenge } = await status(token);
  assert.equal(code, 401);
  assert.match(challenge, /error="invalid_token".*another audience/);
  assert.match(challenge, /resource_metadata="[^"]+\/\.well-known\/oauth-protected-resource\/mcp"/);
});

test('an email the identity provider has not verified names nobody', async () => {
  const { token } = await tokenFor({ account: 'mallory' }); // claims Ana's address, unverified
  const { code, challenge } = await status(token);
  assert.equal(code, 401);
  assert.match(challenge, /email_verified is not true/);
});

// call posts one tools/call of the sessionless revision with token.
async function call(token, name, args) {
  const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
  const res = await fetch(server.url, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json',
    accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': name },
  body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name, arguments: args, _meta: meta } }) });
  return { code: res.status, challenge: res.headers.get('www-authenticate') ?? '', body: await res.text() };
}

test('a read-only scope reads, and a write asks for vitrine:write', async () => {
  const { token } = await tokenFor({ scope: 'vitrine:read' });
  const client = await connect(token);
  const { tools } = await client.listTools();
  assert.ok(tools.every((t) => t.annotations.readOnlyHint), 'only read-only tools are listed');
  ok(await client.callTool({ name: 'list_tenants', arguments: {} }));
  await client.close();
  const { code, challenge } = await call(token, 'create_product', product('OAUTH-RO').arguments);
  assert.equal(code, 403);
  assert.match(challenge, /error="insufficient_scope".*scope="vitrine:read vitrine:write vitrine:toolset:tenants vitrine:toolset:products"/);
});

test('the identity provider\'s toolset scopes grant toolsets; without any, the default ones', async () => {
  const plain = await tokenFor({ scope: 'vitrine:read vitrine:write' });
  let client = await connect(plain.token);
  let names = (await client.listTools()).tools.map((t) => t.name);
  assert.ok(names.includes('create_product') && !names.includes('list_audit_events'), names.join());
  await client.close();
  const { code, challenge } = await call(plain.token, 'list_audit_events', { tenant_id: w.tenants['technova'] });
  assert.equal(code, 403);
  assert.match(challenge, /scope="vitrine:read vitrine:write vitrine:toolset:tenants vitrine:toolset:products vitrine:toolset:audit"/);
  const audit = await tokenFor({ scope: 'vitrine:read vitrine:write vitrine:toolset:tenants vitrine:toolset:products vitrine:toolset:audit' });
  client = await connect(audit.token);
  names = (await client.listTools()).tools.map((t) => t.name);
  assert.ok(names.includes('list_audit_events') && !names.includes('list_members'), names.join());
  ok(await client.callTool({ name: 'list_audit_events', arguments: { tenant_id: w.tenants['technova'] } }));
  await client.close();
});

test('scopes in "scp", as a string (Entra ID) and as a list (Okta)', async () => {
  for (const scp_format of ['string', 'list']) {
    const { token } = await tokenFor({ client: { scp_format } });
    const payload = JSON.parse(Buffer.from(token.split('.')[1], 'base64url'));
    assert.equal(payload.scope, undefined);
    assert.equal(typeof payload.scp, scp_format === 'list' ? 'object' : 'string');
    const client = await connect(token);
    ok(await client.callTool(product(`OAUTH-SCP-${scp_format}`)));
    await client.close();
  }
});

test('opaque tokens through introspection; a revoked one is refused', async () => {
  const { token } = await tokenFor({ client: { token_format: 'opaque' } });
  assert.equal(token.split('.').length, 1, 'an opaque token');
  const client = await connect(token);
  ok(await client.callTool({ name: 'list_tenants', arguments: {} }));
  await client.close();

  const revoked = await tokenFor({ client: { token_format: 'opaque' } });
  const res = await fetch(meta.revocation_endpoint, { method: 'POST',
    body: new URLSearchParams({ token: revoked.token, client_id: revoked.client_id }) });
  assert.equal(res.status, 200);
  const { code, challenge } = await status(revoked.token);
  assert.equal(code, 401);
  assert.match(challenge, /not active/);
});
