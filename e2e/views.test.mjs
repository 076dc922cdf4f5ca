// The views (MCP Apps) as a person meets them in a host: a host page built
// from the official AppBridge (@modelcontextprotocol/ext-apps), its sandbox
// proxy on a second origin (localhost, the host being 127.0.0.1), in
// Debian's Chromium, connected to the real `vitrine serve` at both protocol
// revisions: 2025-11-25 through the official TypeScript SDK's client,
// 2026-07-28 as raw requests carrying their capabilities (the TypeScript SDK
// does not speak it yet). Each view renders real tool results, of products
// made with create_product (variants, photos, tags, vendor); the person
// pages, narrows by a facet, opens a product, adjusts one variant's stock
// and archives it; a viewer sees
// no edit controls and a forged call from the view is refused; the view's
// own network is blocked. Screenshots go to e2e/screenshots/views/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { mkdirSync, readFileSync, createReadStream, existsSync, statSync } from 'node:fs';
import { join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import puppeteer from 'puppeteer-core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { serveDemo } from './harness.mjs';

const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const shots = here('./screenshots/views/');
const chromium = process.env.CHROMIUM ?? '/usr/bin/chromium';
const UI = { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } };
const revisions = ['2025-11-25', '2026-07-28'];

let w, server, origin, browser, host, sandbox, technova, xss, shirt, pings = 0;
// The test's own products show the demo's images, which the server serves.
const img = (n) => `${origin}/demo/images/${n}.png`;
before(async () => {
  mkdirSync(shots, { recursive: true });
  // The demo as make demo serves it: its images at the server's address.
  ({ server, world: w } = await serveDemo());
  origin = new URL(server.url).origin;
  technova = w.tenants['technova'];
  host = await listen(hostServer, '127.0.0.1');
  sandbox = await listen(sandboxServer, 'localhost');
  browser = await puppeteer.launch({ executablePath: chromium, headless: true, args: ['--no-sandbox', '--lang=en-US'] });
  // A product whose name is HTML: the view shows those characters.
  const owner = await connect('2025-11-25', 'ana@technova.example');
  xss = await owner.call('create_product', { tenant_id: technova, sku: 'VIEW-XSS-1', name: '<img src=x onerror=alert(1)>',
    price: '19.90', stock: 7, status: 'archived', description: '<p>Plain <b>bold</b> text</p><script>alert(2)</script>' });
  // A shop's product: three variants over two options, photos, tags, a vendor; and another of its vendor.
  shirt = await owner.call('create_product', { tenant_id: technova, name: 'Blue shirt', description: '<p>Soft <em>cotton</em>.</p>',
    vendor: 'Acme', product_type: 'Shirts', tags: ['cotton', 'summer'],
    options: [{ name: 'Size', values: ['S', 'M', 'L'] }, { name: 'Color', values: ['Blue'] }],
    variants: [
      { sku: 'SHIRT-S', options: { Size: 'S', Color: 'Blue' }, price: '59.90', compare_at_price: '79.90', stock: 4 },
      { sku: 'SHIRT-M', options: { Size: 'M', Color: 'Blue' }, price: '59.90', stock: 8 },
      { sku: 'SHIRT-L', options: { Size: 'L', Color: 'Blue' }, price: '69.90', stock: 0 }],
    media: [{ url: img('camiseta-azul'), alt: 'Front' }, { url: img('camiseta-costas'), alt: 'Back' }] });
  await owner.call('create_product', { tenant_id: technova, name: 'Green cap', sku: 'CAP-G', price: '29.90', stock: 3, status: 'draft',
    vendor: 'Acme', product_type: 'Caps', tags: ['cotton'], media: [{ url: img('bone'), alt: 'Cap' }] });
  await owner.close();
});
after(async () => {
  await browser?.close();
  host?.close();
  sandbox?.close();
  await server?.stop();
  w?.cleanup();
});

function listen(handler, hostname) {
  const srv = createServer(handler);
  return new Promise((done) => srv.listen(0, hostname, () => done({
    url: `http://${hostname}:${srv.address().port}`, close: () => srv.close(),
  })));
}

// The host's origin: its page and script, the AppBridge's modules from
// node_modules, and /ping, which counts what reaches it (nothing from a
// view should).
function hostServer(req, res) {
  const path = new URL(req.url, 'http://x').pathname;
  if (path === '/ping') { pings++; return res.writeHead(200, { 'access-control-allow-origin': '*' }).end('pong'); }
  const file = path === '/' ? here('./views-host/host.html') : path.startsWith('/node_modules/')
    ? normalize(here('.' + path)) : here('./views-host' + path);
  if (!file.startsWith(here('.')) || !existsSync(file) || !statSync(file).isFile()) return res.writeHead(404).end();
  const type = file.endsWith('.html') ? 'text/html' : file.endsWith('.json') ? 'application/json' : 'text/javascript';
  res.writeHead(200, { 'content-type': type + '; charset=utf-8' });
  createReadStream(file).pipe(res);
}

// The sandbox proxy's origin: its page under the Content-Security-Policy
// the view's _meta.ui.csp asks for, as the extension maps it (resource
// domains to images, scripts, styles, fonts, media; connect domains to
// connect-src, none when absent). The view's inner frame inherits it.
function sandboxServer(req, res) {
  const url = new URL(req.url, 'http://x');
  if (url.pathname !== '/sandbox.html') return res.writeHead(404).end();
  const csp = JSON.parse(url.searchParams.get('csp') || '{}');
  const rd = (csp.resourceDomains ?? []).join(' '), cd = (csp.connectDomains ?? []).join(' ') || "'none'";
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': [
    "default-src 'none'", `script-src 'unsafe-inline' ${rd}`, `style-src 'unsafe-inline' ${rd}`, `img-src data: ${rd}`,
    `font-src ${rd || "'none'"}`, `media-src ${rd || "'none'"}`, `connect-src ${cd}`, "base-uri 'none'", "form-action 'none'"].join('; ') });
  res.end(readFileSync(here('./views-host/sandbox.html')));
}

// connect returns an MCP client of a host at a revision, as the user with
// that email: the TypeScript SDK's at 2025-11-25, raw requests at
// 2026-07-28; with the UI extension declared unless plain.
async function connect(revision, email, { plain = false } = {}) {
  const token = w.tokens[email];
  const capabilities = plain ? {} : { extensions: UI };
  if (revision === '2025-11-25') {
    const client = new Client({ name: 'vitrine-e2e-host', version: '1.0.0' }, { capabilities });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
    const rpc = (method, params) => ({ 'tools/list': () => client.listTools(params), 'resources/read': () => client.readResource(params),
      'tools/call': () => client.callTool(params) })[method]();
    return mcpClient(rpc, () => client.close());
  }
  let id = 0;
  const rpc = async (method, params = {}) => {
    const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': capabilities,
      'io.modelcontextprotocol/clientInfo': { name: 'vitrine-e2e-host', version: '1.0.0' } };
    const headers = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', Authorization: `Bearer ${token}`,
      'Mcp-Protocol-Version': '2026-07-28', 'Mcp-Method': method };
    const name = params.name ?? params.uri;
    if (name) headers['Mcp-Name'] = name;
    const res = await fetch(server.url, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params: { ...params, _meta: meta } }) });
    const text = await res.text();
    const msgs = (res.headers.get('content-type') ?? '').startsWith('text/event-stream')
      ? text.split('\n').filter((l) => l.startsWith('data: ')).map((l) => JSON.parse(l.slice(6))) : [JSON.parse(text)];
    const last = msgs[msgs.length - 1];
    if (last.error) throw new Error(`${method}: ${JSON.stringify(last.error)}`);
    return last.result;
  };
  return mcpClient(rpc, async () => {});
}

function mcpClient(rpc, close) {
  return {
    rpc, close,
    // call runs a tool and returns its structured content, checking that the
    // text content is the same JSON (what a host without views reads).
    async call(name, args) {
      const res = await rpc('tools/call', { name, arguments: args });
      assert.ok(!res.isError, res.content?.[0]?.text);
      assert.deepEqual(JSON.parse(res.content[0].text), res.structuredContent);
      return res.structuredContent;
    },
  };
}

// open shows the view of a tool's call in a new host page, the page's MCP
// client being the given one, and returns the page and the view's frame.
async function open(mcp, tool, args, { theme = 'light', locale = 'en-US', result } = {}) {
  const context = await browser.createBrowserContext();
  const page = await context.newPage();
  await page.setViewport({ width: 800, height: 900 });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.exposeFunction('mcp', (method, params) => mcp.rpc(method, params));
  await page.goto(host.url + '/');
  const opened = await page.evaluate((o) => window.openView(o), { tool, args, theme, locale, result, sandboxURL: `${sandbox.url}/sandbox.html` });
  const frame = await viewFrame(page);
  return { page, frame, opened, errors, close: () => context.close() };
}

async function viewFrame(page) {
  for (let i = 0; i < 100; i++) {
    const f = page.frames().find((f) => f.url() === 'about:srcdoc');
    if (f) return f;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('no view frame');
}

// press clicks a control of a view as its own click event does: puppeteer's
// click aims at where the control was, and the host resizes the view's frame
// as the view grows (ui/notifications/size-changed), so a click aimed a
// moment before could land beside it.
const press = (frame, selector) => frame.$eval(selector, (el) => el.click());

const texts = (frame, selector) => frame.$$eval(selector, (els) => els.map((e) => e.textContent));

for (const revision of revisions) {
  test(`${revision}: tools link to their views only for hosts that show them`, async () => {
    const ui = await connect(revision, 'ana@technova.example');
    const plain = await connect(revision, 'ana@technova.example', { plain: true });
    try {
      const linked = Object.fromEntries((await ui.rpc('tools/list', {})).tools.filter((t) => t._meta).map((t) => [t.name, t._meta]));
      assert.deepEqual(linked, {
        list_products: { ui: { resourceUri: 'ui://vitrine/products' }, 'ui/resourceUri': 'ui://vitrine/products' },
        get_product: { ui: { resourceUri: 'ui://vitrine/product' }, 'ui/resourceUri': 'ui://vitrine/product' },
      });
      assert.equal((await plain.rpc('tools/list', {})).tools.filter((t) => t._meta).length, 0, 'a host without the extension lists no _meta');
      for (const t of (await ui.rpc('tools/list', {})).tools) assert.equal(t._meta?.ui?.visibility, undefined, `${t.name} is for the model too`);
    } finally {
      await ui.close();
      await plain.close();
    }
  });

  test(`${revision}: the list view pages and opens a product; the product view adjusts stock and archives`, async () => {
    const mcp = await connect(revision, 'ana@technova.example');
    const v = await open(mcp, 'list_products', { tenant_id: technova, limit: 3 });
    try {
      assert.equal(v.opened.mimeType, 'text/html;profile=mcp-app');
      // Images from any https URL, and from the server itself, here on http.
      assert.deepEqual(v.opened.meta.ui, { csp: { resourceDomains: ['https:', origin] }, prefersBorder: true });
      const first = v.opened.result.structuredContent;
      await v.frame.waitForSelector('.product-row');
      assert.deepEqual(await texts(v.frame, '.product-row .open'), first.products.map((p) => p.name));
      assert.ok(first.next_cursor, 'the demo has more than a page of 3');
      // The next page, through the host: list_products with the cursor.
      const second = await mcp.call('list_products', { tenant_id: technova, limit: 3, cursor: first.next_cursor });
      await press(v.frame, 'button.next');
      await v.frame.waitForFunction((id) => document.querySelector('.product-row')?.dataset.id === id, {}, second.products[0].id);
      assert.deepEqual(await texts(v.frame, '.product-row .open'), second.products.map((p) => p.name));
      await press(v.frame, 'button.layout-table');
      await v.frame.waitForSelector('table.list .product-row');
      // Into a product: its view, with a way back.
      const p = second.products[0];
      await press(v.frame, `.product-row[data-id="${p.id}"] .open`);
      await v.frame.waitForSelector('article.product');
      assert.equal(await v.frame.$eval('h1.name', (e) => e.textContent), p.name);
      await press(v.frame, 'button.back');
      await v.frame.waitForSelector('.product-row');
      // The facets to narrow by: a status, through the host.
      await v.page.evaluate((o) => window.openView(o), { tool: 'list_products', args: { tenant_id: technova, limit: 3, facets: ['status', 'vendor'] },
        theme: 'light', locale: 'en-US', sandboxURL: `${sandbox.url}/sandbox.html` });
      const f = await viewFrame(v.page);
      await f.waitForSelector('.facets button[data-value="active"]');
      await press(f, '.facets button[data-value="active"]');
      await f.waitForSelector('.facets button[data-value="active"][aria-pressed="true"]');
      assert.deepEqual([...new Set(await f.$$eval('.product-row .badge', (els) => els.map((e) => e.dataset.status)))], ['active']);
      assert.deepEqual(v.errors, []);
    } finally {
      await v.close();
    }

    const before = await mcp.call('get_product', { tenant_id: technova, id: xss.id });
    const pv = await open(mcp, 'get_product', { tenant_id: technova, id: xss.id });
    try {
      const f = pv.frame;
      await f.waitForSelector('article.product');
      // HTML in the data is text: the name's characters, no element made.
      assert.equal(await f.$eval('h1.name', (e) => e.textContent), '<img src=x onerror=alert(1)>');
      assert.equal(await f.$$eval('img[src="x"]', (els) => els.length), 0);
      assert.equal(await f.$$eval('script', (els) => els.length), 1, 'the page\'s own script alone');
      assert.equal(await f.$eval('.desc', (e) => e.textContent), 'Plain bold text', 'the description as plain text');
      // A product of one variant: its one row.
      assert.equal(before.variants.length, 1);
      assert.equal((await f.$$('table.variants tbody tr')).length, 1);
      const row = before.variants[0].sku;
      const stock = async () => Number(await f.$eval(`tr[data-sku="${row}"] .stock`, (e) => e.textContent));
      assert.equal(await stock(), before.variants[0].stock);
      const was = await stock();
      await f.$eval(`tr[data-sku="${row}"] input`, (e) => { e.value = '5'; });
      await f.click(`tr[data-sku="${row}"] button.adjust`);
      await f.waitForFunction((sku, n) => Number(document.querySelector(`tr[data-sku="${sku}"] .stock`)?.textContent) === n, {}, row, was + 5);
      const adjusted = await mcp.call('get_product', { tenant_id: technova, id: xss.id });
      assert.equal(adjusted.variants[0].stock, was + 5, 'the server holds the new figure');
      // Publish, then archive: the view asks first, and nothing changes on "Cancel".
      await f.click('button.publish');
      await f.waitForFunction(() => document.querySelector('.badge')?.dataset.status === 'active');
      await f.click('button.archive');
      await f.waitForSelector('dialog[open]');
      await f.click('#confirm-no');
      await f.waitForSelector('dialog:not([open])');
      assert.equal((await mcp.call('get_product', { tenant_id: technova, id: xss.id })).status, 'active');
      await f.click('button.archive');
      await f.waitForSelector('dialog[open]');
      await f.click('#confirm-yes');
      await f.waitForFunction(() => document.querySelector('.badge')?.dataset.status === 'archived');
      assert.equal((await mcp.call('get_product', { tenant_id: technova, id: xss.id })).status, 'archived');
      // The view's own network: blocked by the CSP, nothing reaches the host's origin.
      const fetched = await f.evaluate((url) => fetch(url).then(() => 'fetched', (e) => e.name), `${host.url}/ping`);
      assert.equal(fetched, 'TypeError');
      assert.equal(pings, 0);
      assert.deepEqual(pv.errors, []);
    } finally {
      await pv.close();
      await mcp.close();
    }
  });

  test(`${revision}: a viewer's view has no edit controls, and a forged call from it is refused`, async () => {
    const mcp = await connect(revision, 'diego@technova.example');
    const v = await open(mcp, 'get_product', { tenant_id: technova, id: xss.id });
    try {
      await v.frame.waitForSelector('article.product');
      const before = await mcp.call('get_product', { tenant_id: technova, id: xss.id });
      assert.equal((await v.frame.$$('button.adjust, button.publish, button.archive, table.variants input')).length, 0);
      // The view calls what it likes through the host: the server decides.
      const forged = await v.frame.evaluate((tenant, id) => callTool('adjust_stock', { tenant_id: tenant, id, delta: 100, reason: 'forged' })
        .then(() => 'done', (e) => e.type + ': ' + e.message), technova, xss.id);
      assert.equal(forged, 'PermissionError: You do not have permission to perform this action');
      const raw = await v.frame.evaluate((tenant, id) => request('tools/call', { name: 'update_product', arguments: { tenant_id: tenant, id, status: 'active' } }), technova, xss.id);
      assert.equal(raw.isError, true);
      assert.equal(raw.content[0].text, '{"error":true,"type":"PermissionError","message":"You do not have permission to perform this action"}');
      const after = await mcp.call('get_product', { tenant_id: technova, id: xss.id });
      assert.deepEqual([after.status, after.stock, after.version], [before.status, before.stock, before.version], 'nothing written');
    } finally {
      await v.close();
      await mcp.close();
    }
  });
}

// rendered waits until a view shows what it will show, so that a
// screenshot holds it and not a blank frame: its content is there
// (selector), every image has loaded, the fonts are ready, the host has
// sized the frame to the view's height, and the view has painted twice
// since (the host's frame composited with it).
async function rendered(v, selector) {
  const f = v.frame;
  await f.waitForSelector(selector, { visible: true });
  await f.waitForFunction(() => document.fonts.status === 'loaded' && [...document.images].every((i) => i.complete && i.naturalWidth > 0));
  const height = await f.evaluate(() => document.documentElement.getBoundingClientRect().height);
  await v.page.waitForFunction((h) => {
    const frame = document.querySelector('#slot iframe');
    return frame && Math.abs(frame.getBoundingClientRect().height - Math.min(Math.ceil(h) + 2, 2000)) <= 2;
  }, {}, height);
  await f.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  await v.page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
}

// shoot saves the page's screenshot, and checks that the view's frame in
// it is not blank: the pixels of the frame's box hold more than its
// background.
//
// The page is shot within the viewport, grown to the page's height when
// the view is taller: a full-page capture beyond the viewport leaves the
// view's frames (other origins, other processes) blank.
async function shoot(v, file) {
  const height = await v.page.evaluate(() => document.documentElement.scrollHeight);
  if (height > v.page.viewport().height) {
    await v.page.setViewport({ width: 800, height });
    await rendered(v, 'body');
  }
  const box = await (await v.page.$('#slot iframe')).boundingBox();
  const png = await v.page.screenshot({ path: join(shots, file), captureBeyondViewport: false });
  const clip = { x: box.x + 1, y: box.y + 1, width: box.width - 2, height: Math.min(box.height - 2, 400) };
  const colors = await v.page.evaluate(async (b64, c) => {
    const bitmap = await createImageBitmap(await (await fetch(`data:image/png;base64,${b64}`)).blob());
    const canvas = new OffscreenCanvas(c.width, c.height);
    const ctx = canvas.getContext('2d');
    ctx.drawImage(bitmap, -c.x, -c.y);
    const px = ctx.getImageData(0, 0, c.width, c.height).data;
    const seen = new Set();
    for (let i = 0; i < px.length && seen.size < 64; i += 4) seen.add((px[i] << 16) | (px[i + 1] << 8) | px[i + 2]);
    return seen.size;
  }, Buffer.from(png).toString('base64'), clip);
  assert.ok(colors >= 16, `${file}: the view's frame is blank (${colors} colors)`);
}

// Both views of the demo, in the host's light and dark themes and in both
// languages, the theme and the language changed by the host while the
// view is shown: TechNova's shirt (photos, colors and sizes at different
// prices, some on sale, some sold out) and Mercado Verde's catalog.
test('screenshots: light and dark, pt-BR and en', async () => {
  const ana = await connect('2026-07-28', 'ana@technova.example');
  const marina = await connect('2026-07-28', 'marina@mercadoverde.example');
  try {
    const tshirt = await ana.call('get_product', { tenant_id: technova, sku: 'CAM-DEV-AZ-M' });
    for (const [name, mcp, tool, args, selector] of [
      ['product', ana, 'get_product', { tenant_id: technova, id: tshirt.id }, 'article.product'],
      ['list', marina, 'list_products', { tenant_id: w.tenants['mercado-verde'], limit: 6 }, '.product-row']]) {
      const v = await open(mcp, tool, args, { theme: 'light', locale: 'en-US' });
      try {
        await rendered(v, selector);
        for (const [theme, locale] of [['light', 'en-US'], ['dark', 'en-US'], ['light', 'pt-BR'], ['dark', 'pt-BR']]) {
          await v.page.evaluate((t, l) => window.setTheme(t, l), theme, locale);
          await v.frame.waitForFunction((l) => document.documentElement.lang === (l === 'pt-BR' ? 'pt-BR' : 'en'), {}, locale);
          const heading = name === 'product' ? await v.frame.$eval('h2', (e) => e.textContent) : await v.frame.$eval('.count', (e) => e.textContent);
          assert.match(heading, locale === 'pt-BR' ? /Descrição|Variantes|nesta página/ : /Description|Variants|on this page/);
          const bg = await v.frame.evaluate(() => getComputedStyle(document.body).backgroundColor);
          assert.equal(bg, theme === 'dark' ? 'rgb(23, 23, 28)' : 'rgb(255, 255, 255)', 'the host\'s CSS variables');
          await rendered(v, selector);
          await shoot(v, `${name}-${theme}-${locale}.png`);
        }
        assert.deepEqual(v.errors, []);
      } finally {
        await v.close();
      }
    }
  } finally {
    await ana.close();
    await marina.close();
  }
});

// The catalog's model from real results: a product's photos with their alt
// texts, price range and compare-at price, vendor, tags, options and
// variants; one variant's stock adjusted from its row; the list's facets,
// the counts the server gave, narrowing the list when clicked.
test('the real model: variants, photos, tags and facets', async () => {
  const mcp = await connect('2026-07-28', 'ana@technova.example');
  try {
    const p = await mcp.call('get_product', { tenant_id: technova, id: shirt.id });
    // A record leaves out a position at its place: the view reads it by place.
    assert.deepEqual(p.media.map((m) => [m.alt, m.position]), [['Front', undefined], ['Back', undefined]]);
    const pv = await open(mcp, 'get_product', { tenant_id: technova, id: shirt.id });
    try {
      const f = pv.frame;
      await f.waitForSelector('article.product');
      assert.deepEqual(await f.$$eval('.thumbs button', (els) => els.map((e) => e.getAttribute('aria-label'))), ['Front', 'Back']);
      assert.deepEqual(await f.$$eval('.thumbs img', (els) => els.map((e) => e.alt)), ['Front', 'Back']);
      assert.equal(await f.$eval('.gallery > .photo', (e) => e.alt), 'Front', 'the first photo by position');
      await f.click('.thumbs button:nth-child(2)');
      assert.equal(await f.$eval('.gallery > .photo', (e) => e.alt), 'Back');
      assert.equal(await f.$eval('.price', (e) => e.textContent), 'R$59.90 – R$69.90');
      assert.equal(await f.$eval('.compare', (e) => e.textContent), 'R$79.90');
      assert.equal(await f.$eval('.vendor', (e) => e.textContent), 'Acme · Shirts');
      assert.deepEqual(await texts(f, '.tags .chip'), ['cotton', 'summer']);
      assert.deepEqual(await texts(f, '.options dt, .options dd'), ['Size', 'S, M, L', 'Color', 'Blue']);
      const table = () => f.$$eval('table.variants tbody tr', (rows) => rows.map((r) => [...r.cells].slice(0, 4).map((c) => c.textContent)));
      assert.deepEqual(await table(), [
        ['S / Blue', 'SHIRT-S', 'R$59.90R$79.90', '4'], ['M / Blue', 'SHIRT-M', 'R$59.90', '8'], ['L / Blue', 'SHIRT-L', 'R$69.90', '0']]);
      assert.equal((await f.$$('table.variants button.adjust')).length, 3, 'an owner adjusts each variant');
      await rendered(pv, 'article.product');
      await shoot(pv, 'product-variants-light-en-US.png');

      // Adjust the M variant: that variant's stock, by its id, and the view shows the new figure.
      await f.$eval('tr[data-sku="SHIRT-M"] input', (e) => { e.value = '5'; });
      await f.click('tr[data-sku="SHIRT-M"] button.adjust');
      await f.waitForFunction(() => document.querySelector('tr[data-sku="SHIRT-M"] .stock')?.textContent === '13');
      assert.deepEqual(await table(), [
        ['S / Blue', 'SHIRT-S', 'R$59.90R$79.90', '4'], ['M / Blue', 'SHIRT-M', 'R$59.90', '13'], ['L / Blue', 'SHIRT-L', 'R$69.90', '0']]);
      assert.equal(await f.$eval('.total', (e) => e.textContent), '17 in stock');
      const after = await mcp.call('get_product', { tenant_id: technova, id: shirt.id });
      assert.deepEqual(after.variants.map((v) => [v.sku, v.stock]), [['SHIRT-S', 4], ['SHIRT-M', 13], ['SHIRT-L', 0]]);
      const { movements: [last] } = await mcp.call('list_stock_movements', { tenant_id: technova, product_id: shirt.id, limit: 1 });
      assert.deepEqual([last.variant_id, last.delta, last.stock_after], [p.variants[1].id, 5, 13], 'adjust_stock named the variant');
      assert.deepEqual(pv.errors, []);
    } finally {
      await pv.close();
    }

    const args = { tenant_id: technova, vendor: 'Acme', facets: ['vendor', 'status', 'tags', 'options'] };
    const listed = await mcp.call('list_products', args);
    assert.deepEqual(listed.products.map((r) => r.name), ['Blue shirt', 'Green cap']);
    const lv = await open(mcp, 'list_products', args, { locale: 'pt-BR', theme: 'dark' });
    try {
      const f = lv.frame;
      await f.waitForSelector('.product-row');
      assert.deepEqual(await f.$$eval('.product-row img', (els) => els.map((e) => e.alt)), ['Front', 'Cap']);
      assert.equal(await f.$eval('.product-row .price', (e) => e.textContent), 'R$\u00a059,90 – R$\u00a069,90');
      // The buttons are the server's facets, with its counts.
      const status = { active: 'Ativo', draft: 'Rascunho', archived: 'Arquivado' };
      const facets = listed.facets;
      assert.deepEqual(facets.vendor, [{ value: 'Acme', count: 2 }]);
      assert.deepEqual(await texts(f, '.facets button'), Object.entries(facets).flatMap(([name, values]) =>
        (name === 'options' ? Object.values(values).flat() : values).map((x) => `${name === 'status' ? status[x.value] : x.value} (${x.count})`)));
      assert.ok(await f.$('.facets button[data-value="summer"]'), 'the shirt\'s tags among them');
      assert.equal((await f.$$('button.next')).length, 0, 'the last page');
      await rendered(lv, '.product-row');
      await shoot(lv, 'list-facets-dark-pt-BR.png');
      // A size narrows the list to the products with a variant of it.
      await f.click('.facets button[data-value="M"]');
      await f.waitForSelector('.facets button[data-value="M"][aria-pressed="true"]');
      assert.deepEqual(await texts(f, '.product-row .open'), ['Blue shirt']);
      assert.deepEqual(lv.errors, []);
    } finally {
      await lv.close();
    }
  } finally {
    await mcp.close();
  }
});
