// A real shop's catalog, through the official TypeScript SDK's client,
// against the real `vitrine serve` on SQLite and on PostgreSQL: a Shopify
// export imported through import_products, the questions an agent asks of
// it, stock and variants changed, the CLI's Shopify export imported into a
// second company and over the first, and the imports a user gets wrong.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { bin, serve } from './harness.mjs';
import { databases } from './databases.mjs';

const exec = promisify(execFile);
const fixture = new URL('../internal/shopify/testdata/export_classic.csv', import.meta.url).pathname;
const cdn = (file) => `https://cdn.shopify.com/s/files/1/0612/3456/7890/files/${file}`;
const email = 'shop@example.com';

// The columns of the fixture Vitrine does not model: each reported once.
const unmodelled = ['Variant Fulfillment Service', 'Gift Card',
  'Google Shopping / Google Product Category', 'Google Shopping / Gender', 'Google Shopping / Age Group',
  'Google Shopping / MPN', 'Google Shopping / Condition', 'Google Shopping / Custom Product',
  'Variant Tax Code', 'Cost per item', 'Included / Brasil', 'Price / International', 'Compare At Price / International'];

function ok(res) {
  assert.ok(!res.isError, res.content?.[0]?.text);
  assert.deepEqual(res.structuredContent, JSON.parse(res.content[0].text));
  return res.structuredContent;
}

// failure returns the error a tool answered, as its JSON.
function failure(res) {
  assert.equal(res.isError, true, 'the call should have failed');
  return JSON.parse(res.content[0].text);
}

// listed returns the names of the tools a client lists, saying so when
// the SDK refuses the listing (it checks it against the protocol's schema).
async function listed(client) {
  try {
    return (await client.listTools()).tools.map((t) => t.name);
  } catch (err) {
    throw new Error(`the TypeScript SDK refused tools/list: ${err.issues ? JSON.stringify(err.issues.slice(0, 2)) : err.message}`);
  }
}

// withDefaults is a value as a client reads it by its schema: what a
// product record leaves out (empty fields, a variant's defaults) given the
// default the schema states, an item's position its place in the list.
function withDefaults(schema, v) {
  if (Array.isArray(v)) {
    const items = schema?.items ?? {};
    const placed = (items.properties?.position?.description ?? '').startsWith('Default: its place');
    return v.map((x, i) => {
      x = withDefaults(items, x);
      return placed && x.position === undefined ? { ...x, position: i + 1 } : x;
    });
  }
  if (v && typeof v === 'object') {
    const out = { ...v };
    for (const [name, p] of Object.entries(schema?.properties ?? {})) {
      if (name in out) out[name] = withDefaults(p, out[name]);
      else if ('default' in p) out[name] = structuredClone(p.default);
    }
    return out;
  }
  return v;
}

// same is a product without what differs between two copies of it: its
// ids, company, times, authors and version.
function same(p) {
  const { id, tenant_id, version, created_at, created_by, updated_at, updated_by, ...rest } = p;
  return { ...rest, variants: p.variants.map(({ id, ...v }) => v), categories: p.categories.map((c) => c.name) };
}

for (const kind of databases) {
  describe(`${kind.name}: a real shop's catalog`, kind.options, () => {
    let db, server, dir, tokens, shop, call, record, one, two;
    before(async () => {
      db = await kind.create();
      dir = mkdtempSync(join(tmpdir(), 'vitrine-catalog-'));
      await exec(bin, ['migrate', '--db', db.url]);
      await exec(bin, ['user', 'create', '--db', db.url, '--email', email, '--name', 'Shop owner']);
      const token = async (...flags) => JSON.parse((await exec(bin, ['token', 'create', '--db', db.url, '--email', email,
        '--name', `e2e ${flags.join(' ') || 'default'}`, ...flags, '--json'])).stdout).token;
      tokens = { default: await token(), all: await token('--toolsets', 'all') };
      server = await serve(db.url);
      shop = await connect(tokens.all);
      call = async (name, args, options) => shop.callTool({ name, arguments: args }, undefined, options);
      const schema = (await shop.listTools()).tools.find((t) => t.name === 'get_product').outputSchema;
      record = (p) => withDefaults(schema, p);
    });
    after(async () => {
      await shop?.close();
      await server?.stop();
      await db?.drop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    async function connect(token) {
      const client = new Client({ name: 'vitrine-e2e-catalog', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
      return client;
    }
    // A product record as a client reads it: with the defaults its schema states.
    const product = async (tenant, sku) => record(ok(await call('get_product', { tenant_id: tenant, sku })));
    const names = async (args) => ok(await call('list_products', { tenant_id: one.id, ...args })).products.map((p) => p.name);
    const everything = async (tenant) => ok(await call('list_products', { tenant_id: tenant, detail: 'full', limit: 100 })).products.map(record);
    const cli = (...args) => exec(bin, ['product', ...args, '--db', db.url]);

    test('a Shopify export comes in whole through import_products', async () => {
      one = ok(await call('create_tenant', { name: 'Vitrine Basics Store' }));
      const progress = [];
      const imported = ok(await call('import_products', { tenant_id: one.id, format: 'shopify', csv: readFileSync(fixture, 'utf8') },
        { onprogress: (p) => progress.push(p) }));
      assert.deepEqual([imported.created, imported.updated, imported.failed, imported.written], [3, 0, 0, true]);
      assert.deepEqual(imported.rows.map(({ id, ...r }) => r), [
        { index: 0, line: 2, handle: 'classic-organic-tee', sku: 'TEE-S-BLK', status: 'created' },
        { index: 1, line: 11, handle: 'canvas-tote-bag', sku: '', status: 'created' },
        { index: 2, line: 12, handle: 'merino-beanie', sku: 'BEANIE-GRY', status: 'created' }]);
      assert.deepEqual(progress.at(-1), { progress: 3, total: 3, message: '3 of 3 rows written' }, 'the progress token heard the end');
      // What Vitrine does not model is said once per column, never dropped in silence.
      const columns = imported.notices.map((n) => n.message.match(/^header, (.+?): not modelled: /)?.[1]);
      assert.deepEqual(columns, unmodelled, imported.notices.map((n) => n.message).join('\n'));

      // A product of four variants over two options, an image-only row, variant images, compare-at prices.
      const lean = ok(await call('get_product', { tenant_id: one.id, id: imported.rows[0].id }));
      assert.deepEqual([lean.variants[0].inventory_policy, lean.variants[2].inventory_policy, lean.variants[0].position, lean.media[0].position],
        [undefined, 'continue', undefined, undefined], 'a record leaves out a variant\'s defaults and positions at their place');
      const tee = record(lean);
      assert.deepEqual(await product(one.id, 'tee-m-wht'), tee, 'by any variant\'s SKU, any case');
      assert.deepEqual([tee.name, tee.vendor, tee.product_type, tee.status], ['Classic Organic Tee', 'Vitrine Basics', 'T-Shirt', 'active']);
      assert.deepEqual(tee.tags, ['cotton', 'organic', 'summer sale'], 'tags split on commas, spaces kept inside one');
      assert.deepEqual([tee.sku, tee.price, tee.price_max, tee.compare_at_price, tee.currency, tee.stock], ['TEE-S-BLK', '89.90', '94.90', '119.90', 'BRL', 25]);
      assert.deepEqual(tee.options, [{ name: 'Size', values: ['S', 'M'] }, { name: 'Color', values: ['Black', 'White'] }]);
      assert.deepEqual(tee.variants.map((v) => [v.sku, v.options, v.price, v.compare_at_price, v.stock, v.inventory_policy, v.image, v.position]), [
        ['TEE-S-BLK', { Size: 'S', Color: 'Black' }, '89.90', '119.90', 12, 'deny', cdn('tee-black.jpg?v=1700000003'), 1],
        ['TEE-S-WHT', { Size: 'S', Color: 'White' }, '89.90', '119.90', 8, 'deny', cdn('tee-white.jpg?v=1700000004'), 2],
        ['TEE-M-BLK', { Size: 'M', Color: 'Black' }, '94.90', undefined, 0, 'continue', cdn('tee-black.jpg?v=1700000003'), 3],
        ['TEE-M-WHT', { Size: 'M', Color: 'White' }, '94.90', undefined, 5, 'deny', cdn('tee-white.jpg?v=1700000004'), 4]]);
      assert.deepEqual([tee.variants[0].barcode, tee.variants[0].weight, tee.variants[2].weight], ['7891000315507', { value: '0.18', unit: 'kg' }, { value: '0.195', unit: 'kg' }]);
      assert.deepEqual(tee.media, [
        { url: cdn('tee-front.jpg?v=1700000001'), alt: 'Classic tee, front', position: 1 },
        { url: cdn('tee-back.jpg?v=1700000002'), alt: 'Classic tee, back', position: 2 },
        { url: cdn('tee-black.jpg?v=1700000003'), alt: 'Black tee', position: 3 },
        { url: cdn('tee-white.jpg?v=1700000004'), alt: 'White tee', position: 4 },
        { url: cdn('tee-detail.jpg?v=1700000005'), alt: 'Stitching detail', position: 5 }], 'the image-only row is the fifth photo');
      assert.deepEqual(tee.seo, { title: 'Classic Organic Tee | Vitrine Basics', description: 'A soft organic cotton tee, in black and white.' });
      assert.deepEqual(tee.categories.map((c) => c.name), ['T-Shirts']);
      assert.deepEqual(tee.attributes, { color_pattern: 'black; white', material: '100% organic cotton' }, 'metafield columns');
      assert.match(tee.description, /^<p>Our (&#34;|")everyday(&#34;|") tee.*<li>Printed in São Paulo<\/li>\n<\/ul>$/s);

      // A draft of one variant without a SKU; an archived product whose second variant has none.
      const tote = record(ok(await call('get_product', { tenant_id: one.id, id: imported.rows[1].id })));
      assert.deepEqual([tote.status, tote.sku, tote.options, tote.variants.length, tote.variants[0].options, tote.variants[0].taxable],
        ['draft', '', [], 1, {}, false]);
      assert.deepEqual([tote.variants[0].weight, tote.stock, tote.media.map((m) => m.url)], [{ value: '350', unit: 'g' }, 40, [cdn('tote.jpg?v=1700000010')]]);
      const beanie = await product(one.id, 'BEANIE-GRY');
      assert.deepEqual([beanie.status, beanie.vendor, beanie.tags], ['archived', 'Serra Knits', ['winter', 'wool']]);
      assert.deepEqual(beanie.variants.map((v) => [v.sku, v.options, v.image]), [
        ['BEANIE-GRY', { Color: 'Grey' }, cdn('beanie-grey.jpg')], ['', { Color: 'Navy' }, cdn('beanie-navy.jpg')]]);
      assert.deepEqual(beanie.media.map((m) => [m.position, m.alt]), [[1, 'Navy beanie'], [2, 'Grey beanie']], 'in Image Position order');
    });

    test('an agent\'s questions: options and price on one variant, tags and vendor, categories with their descendants, sales, facets', async () => {
      // Size M costs 94.90: below 90 no variant is both; below 95 one is.
      assert.deepEqual(await names({ options: { Size: 'M' }, max_price: '90' }), []);
      assert.deepEqual(await names({ options: { Size: 'M' }, max_price: '95' }), ['Classic Organic Tee']);
      assert.deepEqual(await names({ options: { Size: 'S', Color: 'White' }, max_price: '90' }), ['Classic Organic Tee']);
      assert.deepEqual(await names({ options: { Color: 'Navy' } }), ['Merino Beanie']);
      assert.deepEqual(await names({ tags: ['cotton', 'summer sale'], vendor: 'Vitrine Basics' }), ['Classic Organic Tee']);
      assert.deepEqual(await names({ tags: ['winter'], vendor: 'Vitrine Basics' }), []);
      assert.deepEqual(await names({ on_sale: true }), ['Classic Organic Tee', 'Merino Beanie']);

      // The Product Category paths made one tree; a category holds its descendants' products.
      const { categories } = ok(await call('list_categories', { tenant_id: one.id }));
      const byPath = Object.fromEntries(categories.map((c) => [c.path, c]));
      assert.deepEqual(Object.keys(byPath).sort(), ['Apparel & Accessories', 'Apparel & Accessories > Clothing',
        'Apparel & Accessories > Clothing > Clothing Tops', 'Apparel & Accessories > Clothing > Clothing Tops > T-Shirts',
        'Apparel & Accessories > Clothing Accessories', 'Apparel & Accessories > Clothing Accessories > Hats']);
      for (const c of categories) {
        const parent = c.path.split(' > ').slice(0, -1).join(' > ');
        assert.equal(c.parent_id, parent ? byPath[parent].id : '', c.path);
      }
      assert.deepEqual(await names({ category_id: byPath['Apparel & Accessories'].id }), ['Classic Organic Tee', 'Merino Beanie']);
      assert.deepEqual(await names({ category_id: byPath['Apparel & Accessories > Clothing'].id }), ['Classic Organic Tee']);
      assert.deepEqual(await names({ category_id: byPath['Apparel & Accessories > Clothing Accessories > Hats'].id }), ['Merino Beanie']);

      // Facets: each value with the number of products that have it, counted here from the products themselves.
      const products = await everything(one.id);
      const counts = (values) => {
        const m = new Map();
        for (const v of values) m.set(v, (m.get(v) ?? 0) + 1);
        return [...m].map(([value, count]) => ({ value, count })).sort((a, b) => a.value.localeCompare(b.value));
      };
      const sorted = (facet) => facet.map(({ value, count }) => ({ value, count })).sort((a, b) => a.value.localeCompare(b.value));
      const { facets } = ok(await call('list_products', { tenant_id: one.id, facets: ['vendor', 'tags', 'options', 'categories', 'status'] }));
      assert.deepEqual(sorted(facets.vendor), counts(products.map((p) => p.vendor)));
      assert.deepEqual(sorted(facets.tags), counts(products.flatMap((p) => p.tags)));
      assert.deepEqual(sorted(facets.status), counts(products.map((p) => p.status)));
      // A product counts in its categories and in every one above them, as the filter reads them.
      const byId = Object.fromEntries(categories.map((c) => [c.id, c]));
      const withAncestors = (id) => (id ? [id, ...withAncestors(byId[id].parent_id)] : []);
      assert.deepEqual(sorted(facets.categories), counts(products.flatMap((p) => [...new Set(p.categories.flatMap((c) => withAncestors(c.id)))])));
      assert.deepEqual(facets.categories.map((c) => c.name).sort(), ['Apparel & Accessories', 'Clothing', 'Clothing Accessories', 'Clothing Tops', 'Hats', 'T-Shirts']);
      const optionNames = [...new Set(products.flatMap((p) => p.options.map((o) => o.name)))].sort();
      assert.deepEqual(Object.keys(facets.options).sort(), optionNames);
      for (const name of optionNames) {
        const values = products.flatMap((p) => [...new Set(p.variants.map((v) => v.options[name]).filter(Boolean))]);
        assert.deepEqual(sorted(facets.options[name]), counts(values), name);
      }
      // Under a filter, the counts are the filtered products'.
      const basics = ok(await call('list_products', { tenant_id: one.id, vendor: 'Vitrine Basics', facets: ['status'] }));
      assert.deepEqual(sorted(basics.facets.status), [{ value: 'active', count: 1 }, { value: 'draft', count: 1 }]);
    });

    test('stock by variant, and variants added, changed and removed with a token granting the catalog toolset', async () => {
      const tee = await product(one.id, 'TEE-M-WHT');
      const mWhite = tee.variants.find((v) => v.sku === 'TEE-M-WHT');
      const sold = ok(await call('adjust_stock', { tenant_id: one.id, variant_id: mWhite.id, delta: -2, reason: 'sale' }));
      assert.deepEqual([sold.id, sold.variant_id, sold.sku, sold.stock, sold.product_stock], [tee.id, mWhite.id, 'TEE-M-WHT', 3, 23]);
      const restocked = ok(await call('adjust_stock', { tenant_id: one.id, sku: 'tee-s-blk', delta: 3, reason: 'restock' }));
      assert.deepEqual([restocked.sku, restocked.stock, restocked.product_stock], ['TEE-S-BLK', 15, 26]);
      const which = failure(await call('adjust_stock', { tenant_id: one.id, id: tee.id, delta: 1, reason: 'restock' }));
      assert.deepEqual([which.type, which.field], ['ValidationError', 'id']);
      const { movements } = ok(await call('list_stock_movements', { tenant_id: one.id, product_id: tee.id }));
      assert.deepEqual(movements.slice(0, 2).map((m) => [m.variant_id, m.delta, m.stock_after, m.reason]),
        [[restocked.variant_id, 3, 15, 'restock'], [mWhite.id, -2, 3, 'sale']], 'newest first, each naming its variant');

      // A token made without --toolsets grants tenants and products: no variant tools.
      const plain = await connect(tokens.default);
      try {
        const names = await listed(plain);
        assert.ok(names.includes('adjust_stock') && !names.includes('add_variant'), names.join());
        const refused = failure(await plain.callTool({ name: 'add_variant', arguments: { tenant_id: one.id, id: tee.id, price: '1' } }));
        assert.equal(refused.toolset, 'catalog');
        assert.match(refused.message, /does not grant the catalog toolset/);
      } finally {
        await plain.close();
      }
      assert.ok((await listed(shop)).includes('add_variant'), '--toolsets all lists the catalog toolset');

      const before = await product(one.id, 'TEE-M-WHT');
      const added = ok(await call('add_variant', { tenant_id: one.id, id: tee.id, sku: 'TEE-L-BLK', options: { Size: 'L', Color: 'Black' },
        price: '99.90', stock: 2, expected_version: before.version }));
      assert.deepEqual(added.options, [{ name: 'Size', values: ['S', 'M', 'L'] }, { name: 'Color', values: ['Black', 'White'] }]);
      assert.deepEqual([added.variants.length, added.price_max, added.stock], [5, '99.90', before.stock + 2]);
      const large = added.variants.find((v) => v.sku === 'TEE-L-BLK');
      const changed = ok(await call('update_variant', { tenant_id: one.id, variant_id: large.id, price: '97.00', compare_at_price: '120.00',
        expected_version: added.version }));
      assert.deepEqual(changed.variants.find((v) => v.id === large.id), { ...large, price: '97.00', compare_at_price: '120.00' });
      assert.equal(changed.price_max, '97.00');
      assert.deepEqual(await names({ options: { Size: 'L' }, on_sale: true }), ['Classic Organic Tee']);
      const removed = record(ok(await call('delete_variant', { tenant_id: one.id, sku: 'tee-l-blk' })));
      assert.deepEqual(same(removed), same(before), 'back to the four variants and their options');
      assert.equal(failure(await call('get_product', { tenant_id: one.id, sku: 'TEE-L-BLK' })).type, 'NotFoundError');
    });

    test('the CLI\'s Shopify export imports into another company as the same catalog, and over the first one changes nothing', async () => {
      const out = join(dir, 'out.csv');
      await exec(bin, ['product', 'export', '--db', db.url, '--tenant', one.slug, '--format', 'shopify', '-o', out]);
      two = ok(await call('create_tenant', { name: 'Second Store' }));
      const { stdout } = await cli('import', '--tenant', two.id, '--format', 'shopify', out);
      assert.match(stdout, /3 products: 3 created, 0 updated, 0 unchanged, 0 failed/);
      const first = (await everything(one.id)).map(same);
      assert.deepEqual((await everything(two.id)).map(same), first);
      assert.equal(first.length, 3);

      const again = await cli('import', '--tenant', one.slug, '--format', 'shopify', '--mode', 'upsert', out);
      assert.match(again.stdout, /3 products: 0 created, 0 updated, 3 unchanged, 0 failed/);
      assert.deepEqual((await everything(one.id)).map(same), first);
    });

    test('bad input: a bad price fails its product\'s row, by line; a malformed CSV writes nothing', async () => {
      const header = 'Handle,Title,Option1 Name,Option1 Value,Variant SKU,Variant Price,Status';
      const priced = ok(await call('import_products', { tenant_id: two.id, format: 'shopify', csv: [header,
        'clay-mug,Clay Mug,Title,Default Title,MUG-1,25.00,active',
        'desk-lamp,Desk Lamp,Title,Default Title,LAMP-1,12;30,active',
        'linen-cap,Linen Cap,Title,Default Title,CAP-1,30.00,active'].join('\n') }));
      assert.deepEqual([priced.created, priced.failed], [2, 1]);
      assert.deepEqual(priced.rows.map((r) => [r.handle, r.status]), [['clay-mug', 'created'], ['desk-lamp', 'error'], ['linen-cap', 'created']]);
      assert.match(priced.rows[1].error.message, /line 3/, JSON.stringify(priced.rows[1]));
      assert.match(priced.rows[1].error.message, /price/i);
      assert.equal(failure(await call('get_product', { tenant_id: two.id, sku: 'LAMP-1' })).type, 'NotFoundError');

      const count = (await everything(two.id)).length;
      const malformed = failure(await call('import_products', { tenant_id: two.id, format: 'shopify', csv: [header,
        'oak-tray,Oak Tray,Title,Default Title,TRAY-1,120.00,active',
        'cork-coaster,Cork "Coaster,Title,Default Title,CORK-1,9.90,active'].join('\n') }));
      assert.equal(malformed.type, 'ValidationError');
      assert.match(malformed.message, /line 3/);
      assert.equal((await everything(two.id)).length, count, 'nothing written');
    });
  });
}
