// Signing in to Vitrine's own pages with a company's OpenID Connect
// provider (vitrine serve --login-oidc-*): node-oidc-provider plays the
// company's provider, Chromium the person's browser. The person is matched
// to their Vitrine user by verified email, and only so.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import puppeteer from 'puppeteer-core';
import { serve, world } from './harness.mjs';

const here = (p) => fileURLToPath(new URL(p, import.meta.url));

let w, server, provider, browser, base;
before(async () => {
  // Vitrine's address must be known before the provider registers its
  // redirect URI.
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  provider = await startProvider(`${base}/login/sso/callback`);
  w = await world();
  server = await serve(w.db, '--addr', `127.0.0.1:${port}`, '--login-oidc-issuer', provider.issuer,
    '--login-oidc-client-id', 'vitrine-sso', '--login-oidc-client-secret', 'vitrine-sso-secret');
  browser = await puppeteer.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', headless: true, args: ['--no-sandbox'] });
});
after(async () => {
  await browser?.close();
  await server?.stop();
  provider?.stop();
  w?.cleanup();
});

function freePort() {
  return new Promise((done) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => done(port));
    });
  });
}

function startProvider(redirectUri) {
  const proc = spawn(here('node_modules/node/bin/node'), [here('authserver.mjs')], {
    stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, SSO_REDIRECT_URI: redirectUri } });
  return new Promise((resolve, reject) => {
    proc.on('exit', (code) => reject(new Error(`the provider exited with ${code}`)));
    createInterface({ input: proc.stdout }).once('line', (line) => resolve({ issuer: JSON.parse(line).issuer, stop: () => proc.kill() }));
  });
}

async function ssoAs(account) {
  const page = await (await browser.createBrowserContext()).newPage();
  await page.goto(`${base}/login?next=/account`);
  const href = await page.$eval('a.button', (a) => a.getAttribute('href'));
  const res = await page.goto(`${base}${href}&login_hint=${account}`);
  return { page, res };
}

test('a person signs in with their company account and lands on their page', async () => {
  const { page, res } = await ssoAs('ana');
  assert.equal(res.status(), 200);
  assert.equal(new URL(page.url()).pathname, '/account');
  assert.match(await page.$eval('header .who', (e) => e.textContent), /ana@technova\.example/);
});

test('an email the company provider has not verified signs nobody in', async () => {
  const { page, res } = await ssoAs('mallory'); // claims Ana's address, unverified
  assert.equal(res.status(), 401);
  assert.ok(!(await page.cookies()).some((c) => c.name.includes('vitrine_session')), 'no session');
});
