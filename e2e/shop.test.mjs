// The shop window as shoppers' agents meet it: the real `vitrine serve`
// (with --dev-insecure-agent-profiles, so that the agent's profile may be
// served by this test on loopback), TechNova's window (the demo opens it) set by its owner
// through update_shop, then, without any token, the official TypeScript
// SDK's client at 2025-11-25, raw requests at 2026-07-28 (the TypeScript
// SDK does not speak it yet), and REST by plain fetch; closed at the end
// by `vitrine shop close` in another process. Drafts, archived
// products and another company's products are never found.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { bin, serve, world } from './harness.mjs';

let w, server, origin, agent, profile, window_;
const owner = 'ana@technova.example';

before(async () => {
  w = await world();
  agent = await serveAgentProfile();
  profile = `${agent.url}/agent.json`;
  server = await serve(w.db, '--dev-insecure-agent-profiles');
  origin = new URL(server.url).origin;
  window_ = `${origin}/shops/technova`;
});
after(async () => {
  await server?.stop();
  agent?.close();
  w?.cleanup();
});

// serveAgentProfile serves a shopping agent's UCP profile (and counts
// its fetches).
function serveAgentProfile() {
  let fetches = 0;
  const srv = createServer((req, res) => {
    fetches++;
    res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'public, max-age=300' }).end(JSON.stringify({
      ucp: {
        version: '2026-04-08', services: {}, payment_handlers: {},
        capabilities: {
          'dev.ucp.shopping.catalog.search': [{ version: '2026-04-08' }],
          'dev.ucp.shopping.catalog.lookup': [{ version: '2026-04-08' }],
        },
      },
    }));
  });
  return new Promise((done) => srv.listen(0, '127.0.0.1', () => done({
    url: `http://127.0.0.1:${srv.address().port}`, fetches: () => fetches, close: () => srv.close(),
  })));
}

// admin is a company owner's client of /mcp, with a token.
async function admin(email = owner) {
  const client = new Client({ name: 'vitrine-e2e-owner', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: { Authorization: `Bearer ${w.tokens[email]}` } } }));
  return client;
}

function ok(res) {
  assert.ok(!res.isError, res.content?.[0]?.text);
  assert.deepEqual(res.structuredContent, JSON.parse(res.content[0].text));
  return res.structuredContent;
}

async function setWindow(args) {
  const client = await admin();
  try {
    return ok(await client.callTool({ name: 'update_shop', arguments: { tenant_id: w.tenants['technova'], ...args } }));
  } finally {
    await client.close();
  }
}

// idOf is the id of a product of either company, as its owner reads it.
async function idOf(sku) {
  for (const [slug, email] of [['technova', owner], ['mercado-verde', 'marina@mercadoverde.example']]) {
    const client = await admin(email);
    try {
      const res = await client.callTool({ name: 'get_product', arguments: { tenant_id: w.tenants[slug], sku } });
      if (!res.isError) return res.structuredContent.id;
    } finally {
      await client.close();
    }
  }
  throw new Error(`no product ${sku}`);
}

// rest posts to a REST operation of the window with the agent's profile.
async function rest(op, body, headers = {}) {
  const res = await fetch(`${window_}/ucp/catalog/${op}`, {
    method: 'POST', body: JSON.stringify(body),
    headers: { 'content-type': 'application/json', 'ucp-agent': `profile="${profile}"`, ...headers },
  });
  const json = (res.headers.get('content-type') ?? '').startsWith('application/json');
  return { status: res.status, headers: res.headers, body: json ? await res.json() : await res.text() };
}

// rpc2026 sends one tools/call of the sessionless revision, anonymous.
let rpcID = 0;
async function rpc2026(method, params = {}) {
  const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {},
    'io.modelcontextprotocol/clientInfo': { name: 'vitrine-e2e-agent', version: '1.0.0' } };
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2026-07-28', 'mcp-method': method };
  if (params.name) headers['mcp-name'] = params.name;
  const res = await fetch(`${window_}/ucp/mcp`, { method: 'POST', headers,
    body: JSON.stringify({ jsonrpc: '2.0', id: ++rpcID, method, params: { ...params, _meta: meta } }) });
  const text = await res.text();
  const msgs = (res.headers.get('content-type') ?? '').startsWith('text/event-stream')
    ? text.split('\n').filter((l) => l.startsWith('data: ')).map((l) => JSON.parse(l.slice(6))) : [JSON.parse(text)];
  return msgs[msgs.length - 1];
}

test('a closed window is not found, the same as a company that does not exist', async () => {
  // The demo opens TechNova's window and leaves Mercado Verde's closed.
  for (const path of ['/.well-known/ucp', '/ucp/mcp', '/ucp/catalog/search', '/feeds/google.xml']) {
    const closed = await fetch(`${origin}/shops/mercado-verde${path}`);
    const absent = await fetch(`${origin}/shops/no-such-company${path}`);
    assert.equal(closed.status, 404);
    assert.equal(absent.status, 404);
    assert.equal(await closed.text(), await absent.text());
  }
});

test('the owner sets the window; its profile names both transports and both catalog capabilities', async () => {
  const shop = await setWindow({ open: true, product_url: 'https://technova.example/products/{handle}', country: 'BR' });
  assert.equal(shop.open, true);
  const res = await fetch(`${window_}/.well-known/ucp`);
  assert.equal(res.status, 200);
  assert.match(res.headers.get('cache-control'), /public/);
  const { ucp } = await res.json();
  assert.equal(ucp.version, '2026-08-25');
  assert.deepEqual(ucp.supported_versions, { '2026-04-08': `${window_}/.well-known/ucp/2026-04-08` });
  const transports = Object.fromEntries(ucp.services['dev.ucp.shopping'].map((s) => [s.transport, s.endpoint]));
  assert.deepEqual(transports, { mcp: `${window_}/ucp/mcp`, rest: `${window_}/ucp` });
  assert.deepEqual(Object.keys(ucp.capabilities).sort(), ['dev.ucp.shopping.catalog.lookup', 'dev.ucp.shopping.catalog.search']);
});

test('2025-11-25: the TypeScript SDK client, without a token, lists the three tools and searches', async () => {
  const client = new Client({ name: 'vitrine-e2e-agent', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${window_}/ucp/mcp`)));
  try {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), ['get_product', 'lookup_catalog', 'search_catalog']);
    for (const t of tools) assert.ok(t.outputSchema, `${t.name} declares its output schema`);
    const meta = { 'ucp-agent': { profile } };
    const found = ok(await client.callTool({ name: 'search_catalog', arguments: { meta, catalog: { query: 'logitech' } } }));
    assert.equal(found.ucp.version, '2026-04-08');
    assert.deepEqual(found.products.map((p) => p.title), ['Mouse Logitech MX Master 3S']);
    const mouse = found.products[0];
    assert.equal(mouse.url, 'https://technova.example/products/' + mouse.handle);
    assert.equal(typeof mouse.price_range.min.amount, 'number');
    assert.equal(mouse.price_range.min.currency, 'BRL');
    assert.equal(mouse.metadata?.attributes, undefined, 'attributes are private until made public');

    const missing = ok(await client.callTool({ name: 'get_product', arguments: { meta, catalog: { id: 'no-such-product' } } }));
    assert.equal(missing.ucp.status, 'error');
    assert.equal(missing.messages[0].code, 'not_found');

    const hidden = [await idOf('BONE-TN'), await idOf('CH-ERGO-01'), await idOf('FR-MACA-FUJI'), 'BONE-TN', 'FR-MACA-FUJI', 'KOMB-GENG'];
    const looked = ok(await client.callTool({ name: 'lookup_catalog', arguments: { meta, catalog: { ids: [...hidden, 'MS-LOGI-MX3S'] } } }));
    assert.deepEqual(looked.products.map((p) => p.title), ['Mouse Logitech MX Master 3S']);
    assert.deepEqual(looked.products[0].variants[0].inputs, [{ id: 'MS-LOGI-MX3S', match: 'exact' }]);
    assert.equal(looked.messages.length, hidden.length);

    // A profile that is not one: UCP's discovery failure, -32001.
    await assert.rejects(client.callTool({ name: 'search_catalog', arguments: { meta: { 'ucp-agent': { profile: 'http://127.0.0.1:1/profile.json' } }, catalog: { query: 'x' } } }),
      (err) => err.code === -32001 || /-32001|UCP/.test(err.message));
  } finally {
    await client.close();
  }
});

test('2026-07-28: anonymous raw requests list the tools and page through a search', async () => {
  const list = await rpc2026('tools/list');
  assert.deepEqual(list.result.tools.map((t) => t.name).sort(), ['get_product', 'lookup_catalog', 'search_catalog']);
  assert.equal(list.result.cacheScope, 'public');
  assert.ok(list.result.ttlMs > 0);
  const meta = { 'ucp-agent': { profile } };
  const seen = [];
  let cursor;
  do {
    const res = await rpc2026('tools/call', { name: 'search_catalog', arguments: { meta, catalog: { query: 'technova', pagination: { limit: 1, cursor } } } });
    const page = res.result.structuredContent;
    seen.push(...page.products.map((p) => p.title));
    cursor = page.pagination.has_next_page ? page.pagination.cursor : undefined;
  } while (cursor && seen.length < 20);
  assert.ok(seen.length >= 2, `pages: ${seen}`);
  assert.ok(!seen.includes('Boné TechNova Aba Curva'), 'a draft is never found');
  assert.equal(new Set(seen).size, seen.length, 'no product twice across pages');
});

test('REST by plain fetch: search with a price filter, get_product with selections, ETag, errors', async () => {
  const cheap = await rest('search', { filters: { price: { max: 10000 } } });
  assert.equal(cheap.status, 200);
  assert.ok(cheap.body.products.length > 0);
  for (const p of cheap.body.products) assert.ok(p.variants[0].price.amount <= 10000, p.title);
  const etag = cheap.headers.get('etag');
  assert.ok(etag);
  assert.equal((await rest('search', { filters: { price: { max: 10000 } } }, { 'if-none-match': etag })).status, 304);

  const pad = await rest('product', { id: 'mousepad-speed-redragon', selected: [{ name: 'Tamanho', label: 'XG (90 × 42 cm)' }] });
  assert.equal(pad.status, 200);
  const { product } = pad.body;
  assert.equal(product.variants[0].sku, 'MP-RD-XG');
  assert.equal(product.variants[0].availability.available, false);
  assert.deepEqual(product.selected, [{ name: 'Tamanho', label: 'XG (90 × 42 cm)' }]);
  const sizes = product.options.find((o) => o.name === 'Tamanho').values;
  assert.ok(sizes.every((v) => v.exists === true));

  const noProfile = await fetch(`${window_}/ucp/catalog/search`, { method: 'POST', body: '{"query":"x"}', headers: { 'content-type': 'application/json' } });
  assert.equal(noProfile.status, 400);
  assert.equal((await noProfile.json()).code, 'invalid_profile_url');
  const tooMany = await rest('lookup', { ids: Array.from({ length: 51 }, (_, i) => `id-${i}`) });
  assert.equal(tooMany.status, 400);
  assert.equal(tooMany.body.code, 'request_too_large');
  assert.ok(agent.fetches() >= 1 && agent.fetches() <= 2, `the profile fetched ${agent.fetches()} times`);
});

test('a Shopify export imported by the owner is found through the window, its draft and archived products never', async () => {
  const client = await admin();
  try {
    const imported = ok(await client.callTool({ name: 'import_products', arguments: { tenant_id: w.tenants['technova'], format: 'shopify',
      csv: readFileSync(new URL('../internal/shopify/testdata/export_classic.csv', import.meta.url), 'utf8') } }));
    assert.equal(imported.created, 3);
  } finally {
    await client.close();
  }
  const found = await rest('search', { query: 'organic' });
  assert.deepEqual(found.body.products.map((p) => p.title), ['Classic Organic Tee']);
  const tee = found.body.products[0];
  assert.deepEqual(tee.price_range.min, { amount: 8990, currency: 'BRL' });
  assert.deepEqual(tee.options.map((o) => o.name), ['Size', 'Color']);
  for (const q of ['tote', 'beanie', 'merino', 'canvas']) {
    assert.deepEqual((await rest('search', { query: q })).body.products, [], `${q}: a draft or archived product`);
  }
  const looked = await rest('lookup', { ids: ['canvas-tote-bag', 'merino-beanie', 'BEANIE-GRY', 'classic-organic-tee', 'TEE-M-WHT'] });
  assert.deepEqual(looked.body.products.map((p) => p.title), ['Classic Organic Tee']);
  const inputs = looked.body.products[0].variants.flatMap((v) => v.inputs.map((i) => `${i.id}:${i.match}:${v.sku}`));
  assert.ok(inputs.includes('TEE-M-WHT:exact:TEE-M-WHT'), inputs.join(' '));
  assert.ok(inputs.some((i) => i.startsWith('classic-organic-tee:featured:')), inputs.join(' '));
  const white = await rest('product', { id: 'classic-organic-tee', selected: [{ name: 'Size', label: 'M' }, { name: 'Color', label: 'White' }] });
  assert.equal(white.body.product.variants[0].sku, 'TEE-M-WHT');
  assert.deepEqual(white.body.product.selected, [{ name: 'Size', label: 'M' }, { name: 'Color', label: 'White' }]);
});

test('closed again, by the operator\'s CLI in another process: every URL of the window is gone at the next request', async () => {
  await promisify(execFile)(bin, ['shop', 'close', '--db', w.db, '--tenant', 'technova']);
  assert.equal((await fetch(`${window_}/.well-known/ucp`)).status, 404);
  assert.equal((await rest('search', { query: 'mouse' })).status, 404);
});
