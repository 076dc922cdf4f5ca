// Vitrine as its own authorization server, as a person meets it: the
// official TypeScript SDK's OAuth client connects to the real binary with
// no token, and a real browser (Debian's Chromium, driven by
// puppeteer-core) opens the authorization URL, signs in and answers the
// consent page. Screenshots of the pages go to e2e/screenshots/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { createServer as createHTTPSServer } from 'node:https';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import puppeteer from 'puppeteer-core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { OAuthClient, bin, serve, world } from './harness.mjs';

const shots = fileURLToPath(new URL('./screenshots/', import.meta.url));
const chromium = process.env.CHROMIUM ?? '/usr/bin/chromium';

let w, server, browser, callback, metadataDoc, certDir;
before(async () => {
  mkdirSync(shots, { recursive: true });
  callback = await startCallback();
  metadataDoc = await startMetadataDocument(callback.url);
  // Vitrine trusts the test's certificate for the metadata document
  // (Go reads SSL_CERT_FILE), and may fetch it from loopback.
  process.env.SSL_CERT_FILE = metadataDoc.cert;
  w = await world();
  server = await serve(w.db, '--dev-insecure-client-metadata');
  browser = await puppeteer.launch({ executablePath: chromium, headless: true, args: ['--no-sandbox', '--lang=en-US'] });
});
after(async () => {
  await browser?.close();
  await server?.stop();
  callback?.close();
  metadataDoc?.close();
  w?.cleanup();
  if (certDir) rmSync(certDir, { recursive: true, force: true });
});

// startCallback is the client application's redirect URI: it hands each
// request's parameters to whoever waits for the next one.
function startCallback() {
  let waiting = [];
  const srv = createServer((req, res) => {
    const params = new URL(req.url, 'http://x').searchParams;
    res.writeHead(200, { 'content-type': 'text/html' }).end('<p>You can close this window.</p>');
    waiting.shift()?.(params);
  });
  return new Promise((done) => srv.listen(0, '127.0.0.1', () => done({
    url: `http://127.0.0.1:${srv.address().port}/callback`,
    next: () => new Promise((resolve) => waiting.push(resolve)),
    close: () => srv.close(),
  })));
}

// startMetadataDocument serves a client metadata document over https,
// with a certificate made for the run.
function startMetadataDocument(redirectUri) {
  certDir = mkdtempSync(join(tmpdir(), 'vitrine-cert-'));
  const key = join(certDir, 'key.pem'), cert = join(certDir, 'cert.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
    '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', key, '-out', cert], { stdio: 'ignore' });
  let url;
  const srv = createHTTPSServer({ key: readFileSync(key), cert: readFileSync(cert) }, (req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({
      client_id: url, client_name: 'Metadata Agent', redirect_uris: [redirectUri],
      grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none',
    }));
  });
  return new Promise((done) => srv.listen(0, '127.0.0.1', () => {
    url = `https://127.0.0.1:${srv.address().port}/oauth/client.json`;
    done({ url, cert, close: () => srv.close() });
  }));
}

// clientProvider is an OAuth client of this suite, redirected to its
// callback.
const clientProvider = (clientMetadataUrl, keepsRefreshToken = true) =>
  new OAuthClient(callback.url, { name: 'Browser Test Agent', clientMetadataUrl, keepsRefreshToken });

const transport = (provider) => new StreamableHTTPClientTransport(new URL(server.url), { authProvider: provider });

// begin makes the client try to connect, as an agent does, and returns
// the authorization URL it would open in the browser.
async function begin(provider) {
  await assert.rejects(new Client({ name: 'e2e', version: '1' }).connect(transport(provider)), UnauthorizedError);
  return provider.authorizationUrl.href;
}

async function newPage(lang = 'en-US') {
  const context = await browser.createBrowserContext();
  const page = await context.newPage();
  await page.setExtraHTTPHeaders({ 'Accept-Language': lang });
  return page;
}

async function signIn(page, url, email, password, shot) {
  await page.goto(url);
  assert.match(page.url(), /\/login\?next=/);
  if (shot) await page.screenshot({ path: join(shots, `${shot}.png`), fullPage: true });
  await submitSignIn(page, email, password);
}

// submitSignIn fills the sign-in form and submits it, and returns the
// response. Sign-ins from one address are limited (ten at once, then one
// every 6 seconds), and every page of this suite comes from loopback: a
// sign-in held back is made again once the limit gives one back.
async function submitSignIn(page, email, password) {
  for (let tries = 1; ; tries++) {
    await page.$eval('#email', (e) => { e.value = ''; });
    await page.type('#email', email);
    await page.type('#password', password);
    const [res] = await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
    if (res.status() !== 429 || tries === 3) return res;
    await new Promise((done) => setTimeout(done, 6000));
  }
}

// answer chooses on the consent page and returns what the client's
// redirect URI receives.
async function answer(page, decision, { scope = 'write', shot } = {}) {
  await page.waitForSelector('button[value=approve]');
  if (shot) await page.screenshot({ path: join(shots, `${shot}.png`), fullPage: true });
  if (scope === 'read') await page.click('#scope-read');
  // Both: the client receives the redirect, and the page has finished
  // loading it (a later navigation would otherwise race it).
  const [params] = await Promise.all([callback.next(), page.waitForNavigation(), page.click(`button[value=${decision}]`)]);
  return params;
}

// connect runs the whole flow and returns a connected client.
async function connect({ email = 'ana@technova.example', scope = 'write', metadataUrl, keepsRefreshToken, shots: names = {} } = {}) {
  const provider = clientProvider(metadataUrl, keepsRefreshToken);
  const url = await begin(provider);
  const page = await newPage();
  await signIn(page, url, email, w.passwords[email], names.signIn);
  const params = await answer(page, 'approve', { scope, shot: names.consent });
  assert.ok(params.get('code'), `no code: ${params}`);
  await transport(provider).finishAuth(params.get('code'));
  const client = new Client({ name: 'e2e', version: '1' });
  await client.connect(transport(provider));
  return { client, provider, page };
}

// ping sends a request with an access token, as a client's next call does.
function ping(token) {
  return fetch(server.url, { method: 'POST', headers: { authorization: `Bearer ${token}`,
    'content-type': 'application/json', accept: 'application/json, text/event-stream' },
  body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }) });
}

function ok(res) {
  assert.ok(!res.isError, res.content?.[0]?.text);
  return res.structuredContent;
}

const product = (sku) => ({ name: 'create_product', arguments: { tenant_id: w.tenants['technova'], sku, name: `Made with ${sku}`, price: '10.00' } });

test('connect by URL: sign in in the browser, approve, list tenants, create a product', async () => {
  const { client, provider } = await connect({ shots: { signIn: 'sign-in', consent: 'consent' } });
  assert.ok(provider.clientInformation().client_id.startsWith('vc_'), 'the client registered itself');
  const { tenants } = ok(await client.callTool({ name: 'list_tenants', arguments: {} }));
  assert.deepEqual(tenants.map((t) => t.slug), ['technova']);
  assert.equal(ok(await client.callTool(product('BROWSER-1'))).sku, 'BROWSER-1');
  await client.close();
});

test('a client known by its metadata document connects too', async () => {
  const { client, provider } = await connect({ metadataUrl: metadataDoc.url });
  assert.equal(provider.clientInformation().client_id, metadataDoc.url);
  ok(await client.callTool({ name: 'list_tenants', arguments: {} }));
  await client.close();
});

test('denial returns access_denied to the client', async () => {
  const page = await newPage();
  await signIn(page, await begin(clientProvider()), 'ana@technova.example', w.passwords['ana@technova.example']);
  const params = await answer(page, 'deny');
  assert.equal(params.get('error'), 'access_denied');
  assert.equal(params.get('code'), null);
});

test('a wrong password shows the page again with an error, and issues nothing', async () => {
  const page = await newPage();
  await signIn(page, await begin(clientProvider()), 'ana@technova.example', 'not-the-password-at-all');
  const error = await page.$eval('[role=alert]', (e) => e.textContent);
  assert.equal(error, 'The email or the password is wrong.');
  assert.equal(await page.$eval('#email', (e) => e.value), 'ana@technova.example');
  assert.ok(!(await page.cookies()).some((c) => c.name.includes('vitrine_session')), 'no session');
  await page.screenshot({ path: join(shots, 'sign-in-error.png'), fullPage: true });
});

// stepUp follows what the client asked for after a 403 insufficient_scope:
// the authorization URL, on the consent page, approved as it is ticked; the
// client finishes the authorization and holds the new token.
async function stepUp(provider, page, shot) {
  const url = provider.authorizationUrl;
  await page.goto(url.href); // signed in already: straight to the consent page
  const ticked = await page.$$eval('input[name=toolset]:checked', (els) => els.map((e) => e.value));
  const params = await answer(page, 'approve', { shot });
  assert.ok(params.get('code'), `no code: ${params}`);
  await transport(provider).finishAuth(params.get('code'));
  return { scope: url.searchParams.get('scope'), ticked };
}

// The step-up tests' clients keep no refresh token: see OAuthClient
// (harness.mjs) for the SDK's behaviour with one.
test('a read-only approval cannot write, and the client asks the person for write (step-up)', async () => {
  const { client, provider, page } = await connect({ scope: 'read', keepsRefreshToken: false });
  ok(await client.callTool({ name: 'list_tenants', arguments: {} }));
  assert.ok(!(await client.listTools()).tools.some((t) => t.name === 'create_product'), 'a read-only grant lists no write');
  // The call is refused before it runs, 403 with the scope to ask for; the
  // SDK's client starts the authorization for it.
  await assert.rejects(client.callTool(product('BROWSER-RO')), UnauthorizedError);
  const { scope } = await stepUp(provider, page);
  assert.equal(scope, 'vitrine:read vitrine:write vitrine:toolset:tenants vitrine:toolset:products');
  assert.equal(ok(await client.callTool(product('BROWSER-RO'))).sku, 'BROWSER-RO');
  await client.close();
});

test('an agent asks for a toolset: the person approves it once, and the next tools/list holds it', async () => {
  const { client, provider, page } = await connect({ email: 'bruno@technova.example', keepsRefreshToken: false });
  const names = async () => (await client.listTools()).tools.map((t) => t.name);
  assert.ok(!(await names()).includes('list_members'), 'the default grant lists no team tools');
  const { toolsets } = ok(await client.callTool({ name: 'request_toolset', arguments: {} }));
  assert.ok(toolsets.some((t) => t.name === 'members' && t.tools.includes('list_members')));
  await assert.rejects(client.callTool({ name: 'request_toolset', arguments: { toolset: 'members' } }), UnauthorizedError);
  const { scope, ticked } = await stepUp(provider, page, 'consent-step-up');
  assert.equal(scope, 'vitrine:read vitrine:write vitrine:toolset:tenants vitrine:toolset:products vitrine:toolset:members');
  assert.deepEqual(ticked, ['tenants', 'products', 'members'], 'the consent page ticks what the agent asked for');
  const granted = ok(await client.callTool({ name: 'request_toolset', arguments: { toolset: 'members' } }));
  assert.equal(granted.granted, 'members');
  const now = await names();
  assert.ok(now.includes('list_members') && !now.includes('list_roles'), now.join());
  const { members } = ok(await client.callTool({ name: 'list_members', arguments: { tenant_id: w.tenants['technova'] } }));
  assert.ok(members.some((m) => m.email === 'bruno@technova.example'));
  // The account page shows the grant's toolsets.
  await page.goto(new URL('/account', server.url).href);
  assert.match(await page.$eval('.rows li .note', (e) => e.textContent), /tools: tenants, products, members/);
  await client.close();
});

test('connected apps: the page lists the app, and a disconnected app is refused at its next call', async () => {
  const { client, page, provider } = await connect({ email: 'carla@technova.example' });
  ok(await client.callTool({ name: 'list_tenants', arguments: {} }));
  await page.goto(new URL('/account', server.url).href);
  const apps = await page.$$eval('li strong', (els) => els.map((e) => e.textContent));
  assert.ok(apps.includes('Browser Test Agent'), `apps: ${apps}`);
  await page.type('#token-name', 'Laptop');
  await Promise.all([page.waitForNavigation(), page.click('form.inline button[type=submit]')]);
  const secret = await page.$eval('#new-token', (e) => e.textContent);
  assert.match(secret, /^vtr_/);
  await page.screenshot({ path: join(shots, 'connected-apps.png'), fullPage: true });
  const token = provider.tokens().access_token;
  await Promise.all([page.waitForNavigation(), page.click('button[aria-label="Disconnect Browser Test Agent"]')]);
  assert.equal((await ping(token)).status, 401, 'its access token is refused at once');
  // The client's next call meets the 401, and its refresh token is refused too.
  await assert.rejects(client.callTool({ name: 'list_tenants', arguments: {} }), /refresh token|401|Unauthorized/);
  await client.close().catch(() => {});
});

test('a refresh token used twice revokes the whole grant', async () => {
  const { client, provider } = await connect({ email: 'diego@technova.example' });
  const meta = await (await fetch(new URL('/.well-known/oauth-authorization-server', server.url))).json();
  const refresh = (token) => fetch(meta.token_endpoint, { method: 'POST', body: new URLSearchParams({
    grant_type: 'refresh_token', refresh_token: token, client_id: provider.clientInformation().client_id }) });
  const first = provider.tokens().refresh_token;
  const res = await refresh(first);
  assert.equal(res.status, 200);
  const rotated = await res.json();
  assert.notEqual(rotated.refresh_token, first);
  assert.equal((await refresh(first)).status, 400, 'the used refresh token is refused');
  assert.equal((await refresh(rotated.refresh_token)).status, 400, 'and the whole family with it');
  assert.equal((await ping(rotated.access_token)).status, 401, 'the refreshed access token is revoked');
  await client.close().catch(() => {});
});

test('a forged CSRF token is refused', async () => {
  const page = await newPage();
  await page.goto(new URL('/login', server.url).href);
  await page.$eval('input[name=csrf]', (e) => { e.value = 'forged'; });
  await page.type('#email', 'ana@technova.example');
  await page.type('#password', w.passwords['ana@technova.example']);
  const [res] = await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
  assert.equal(res.status(), 403);
  assert.ok(!(await page.cookies()).some((c) => c.name.includes('vitrine_session')), 'no session');
});

test('the pages speak Portuguese to a Portuguese browser', async () => {
  const page = await newPage('pt-BR,pt;q=0.9');
  await signIn(page, await begin(clientProvider()), 'ana@technova.example', w.passwords['ana@technova.example']);
  await page.waitForSelector('button[value=approve]');
  assert.equal(await page.$eval('h1', (e) => e.textContent), 'Permitir acesso à Vitrine?');
  assert.equal(await page.$eval('html', (e) => e.lang), 'pt-BR');
  await page.screenshot({ path: join(shots, 'consent-pt.png'), fullPage: true });
});

test('an invitation link: the person sets a password, signs out, and signs in with it', async () => {
  const base = new URL('/', server.url).href.replace(/\/$/, '');
  const invite = JSON.parse(execFileSync(bin, ['user', 'invite', '--db', w.db, '--email', 'diego@technova.example',
    '--public-url', base, '--json']));
  const page = await newPage();
  await page.goto(invite.link);
  assert.equal(await page.$eval('h1', (e) => e.textContent), 'Set your password');
  await page.screenshot({ path: join(shots, 'set-password.png'), fullPage: true });
  const password = 'a new password for Diego';
  await page.type('#password', password);
  await page.type('#password2', password);
  await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
  assert.equal(new URL(page.url()).pathname, '/account');
  assert.match(await page.$eval('header .who', (e) => e.textContent), /diego@technova\.example/);

  await Promise.all([page.waitForNavigation(), page.click('form[action="/logout"] button')]);
  assert.equal(new URL(page.url()).pathname, '/login');
  await page.goto(`${base}/account`);
  assert.equal(new URL(page.url()).pathname, '/login', 'signed out');
  await submitSignIn(page, 'diego@technova.example', password);
  assert.equal(new URL(page.url()).pathname, '/account');

  const again = await (await newPage()).goto(invite.link);
  assert.equal(again.status(), 404, 'the link works once');
});

// accountShots are kept, for a reviewer to look at (the others of this
// suite are not).
const accountShots = join(shots, 'account');

// deleteAccount types email into /account's "Delete my account" form and
// submits it, and returns the response.
async function deleteAccount(page, email) {
  await page.goto(new URL('/account', server.url).href);
  await page.type('#delete-email', email);
  const [res] = await Promise.all([page.waitForNavigation(), page.click('form[action="/account/delete"] button[type=submit]')]);
  return res;
}

// Runs last: it deletes Carla, whom the tests above sign in as.
test('delete my account: a company\'s only owner is refused, a wrong email deletes nothing, the own email erases the person', async () => {
  mkdirSync(accountShots, { recursive: true });
  const owner = await newPage();
  await signIn(owner, new URL('/account', server.url).href, 'ana@technova.example', w.passwords['ana@technova.example']);
  assert.equal(await owner.$eval('#delete-email', (e) => e.required), true);
  await owner.$eval('form[action="/account/delete"]', (e) => e.scrollIntoView());
  await owner.screenshot({ path: join(accountShots, 'delete-form.png'), fullPage: true });

  // Typed wrong: nothing deleted, and Ana still signed in.
  let res = await deleteAccount(owner, 'someone.else@technova.example');
  assert.equal(res.status(), 400);
  assert.equal(await owner.$eval('p.card', (e) => e.textContent), "The email typed is not your account's: nothing was deleted.");
  await owner.screenshot({ path: join(accountShots, 'delete-wrong-email.png'), fullPage: true });
  // Ana owns TechNova alone: refused, with what to do.
  res = await deleteAccount(owner, 'ana@technova.example');
  assert.equal(res.status(), 409);
  assert.equal(await owner.$eval('h1', (e) => e.textContent), 'Your account was not deleted');
  assert.equal(await owner.$eval('p.card', (e) => e.textContent),
    'You are the only owner of technova: make another member owner there, or delete the company, first. Nothing was deleted.');
  await owner.screenshot({ path: join(accountShots, 'delete-only-owner.png'), fullPage: true });
  await owner.goto(new URL('/account', server.url).href);
  assert.equal(new URL(owner.url()).pathname, '/account', 'Ana is still signed in');
  assert.notEqual((await ping(w.tokens['ana@technova.example'])).status, 401, "Ana's token still works");

  // Carla is no company's only owner: she is erased.
  const email = 'carla@technova.example';
  const page = await newPage();
  await signIn(page, new URL('/account', server.url).href, email, w.passwords[email]);
  assert.notEqual((await ping(w.tokens[email])).status, 401);
  res = await deleteAccount(page, email.toUpperCase()); // the email as typed, in any case
  assert.equal(res.status(), 200);
  assert.equal(await page.$eval('h1', (e) => e.textContent), 'Your account was deleted');
  assert.equal(await page.$('header .who'), null, 'the page shows no one signed in');
  await page.screenshot({ path: join(accountShots, 'deleted.png'), fullPage: true });
  assert.ok(!(await page.cookies()).some((c) => c.name.includes('vitrine_session')), 'the session cookie is gone');
  await page.goto(new URL('/account', server.url).href);
  assert.equal(new URL(page.url()).pathname, '/login', 'signed out');
  assert.equal((await ping(w.tokens[email])).status, 401, 'her tokens end');
  // Her password signs nothing in any more.
  await submitSignIn(page, email, w.passwords[email]);
  assert.equal(await page.$eval('[role=alert]', (e) => e.textContent), 'The email or the password is wrong.');
  // And the operator finds no user with her email.
  const users = execFileSync(bin, ['user', 'list', '--db', w.db, '--json']).toString();
  assert.ok(!users.includes(email), users);
});
