// The official MCP conformance suite against `vitrine serve`, at the
// requirements of both protocol revisions it serves: 2025-11-25 (sessions)
// and 2026-07-28 (sessionless). The suite sends no credentials, so it talks
// to Vitrine through a proxy of the test harness that adds a token
// (proxy.mjs); Vitrine itself lets nothing in without one. The suite needs
// Node 22, which the package node@22 provides.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve, world } from './harness.mjs';
import { startProxy } from './proxy.mjs';

const here = (p) => fileURLToPath(new URL(p, import.meta.url));

let w, server, proxy, out;
before(async () => {
  w = await world();
  out = mkdtempSync(join(tmpdir(), 'vitrine-conformance-'));
  // The suite sends ~70 scenarios' worth of requests with one token, more
  // than the default token bucket (--token-rate 50, --token-burst 100) holds
  // on a fast machine: its last scenario then met a 429 instead of the 2xx it
  // checks for. The limits are not what this suite tests (httpserver's
  // TestRateLimits and TestConcurrencyCap do), so they are off here; the
  // product's defaults stay as they are.
  server = await serve(w.db, '--token-rate', '0', '--ip-rate', '0', '--token-concurrency', '0');
  proxy = await startProxy(new URL(server.url).origin, w.tokens['ana@technova.example']);
});
after(async () => {
  proxy?.close();
  await server?.stop();
  w?.cleanup();
  if (out) rmSync(out, { recursive: true, force: true });
});

// conform runs the suite at a revision's requirements, with the baseline of
// that revision, and returns its summary and every check of every scenario.
async function conform(revision) {
  const dir = join(out, revision);
  const run = spawn(here('node_modules/node/bin/node'), [
    here('node_modules/@modelcontextprotocol/conformance/dist/index.js'), 'server',
    '--url', `${proxy.url}/mcp`, '--requirements', revision,
    '--expected-failures', here(`conformance-expected-failures-${revision}.yml`), '-o', dir,
  ], { stdio: ['ignore', 'pipe', 'pipe'] });
  let text = '';
  run.stdout.on('data', (c) => { text += c; });
  run.stderr.on('data', (c) => { text += c; });
  const code = await new Promise((done) => run.on('exit', done));
  const summary = text.slice(text.indexOf('=== SUMMARY ==='));
  console.log(`${revision}:\n${summary}`);
  assert.equal(code, 0, `conformance run at ${revision} failed:\n${text}`);
  assert.match(text, /Baseline check passed: all failures are expected/);
  const checks = {};
  for (const scenario of readdirSync(dir)) {
    const name = scenario.replace(/^server-/, '').replace(/-\d{4}-\d\d-\d\dT.*$/, '');
    checks[name] = JSON.parse(readFileSync(join(dir, scenario, 'checks.json'), 'utf8'));
  }
  return { summary, checks };
}

const passes = (summary, scenario) => assert.match(summary, new RegExp(`✓ ${scenario}:`), `${scenario} must pass`);

test('conformance at 2025-11-25: every scenario a domain server can pass, the session lifecycle included', async () => {
  const { summary } = await conform('2025-11-25');
  for (const scenario of ['server-initialize', 'logging-set-level', 'ping', 'tools-list', 'server-sse-multiple-streams',
    'resources-list', 'prompts-list', 'dns-rebinding-protection', 'server-session-lifecycle']) {
    passes(summary, scenario);
  }
});

test('conformance at 2026-07-28: every scenario a domain server can pass; server-stateless every check it can test', async () => {
  const { summary, checks } = await conform('2026-07-28');
  for (const scenario of ['tools-list', 'server-sse-multiple-streams', 'resources-list', 'sep-2164-resource-not-found',
    'prompts-list', 'dns-rebinding-protection', 'caching', 'input-required-result-unsupported-methods',
    'input-required-result-validate-input']) {
    passes(summary, scenario);
  }
  const stateless = checks['server-stateless'];
  assert.ok(stateless?.length > 20, 'server-stateless ran');
  for (const c of stateless) {
    if (c.status === 'FAILURE' || c.status === 'WARNING') {
      assert.ok(c.details?.untestable, `server-stateless: ${c.id} fails and is testable: ${c.errorMessage}`);
    }
  }
  assert.ok(stateless.filter((c) => c.status === 'SUCCESS').length >= 20, 'server-stateless passes its testable checks');
});
