// The shop window's pages as a person and a search engine meet them: the
// real binary serving the demo (vitrine serve --demo, as make demo does),
// TechNova's open window opened in Chromium: its home page, a search made
// with the page's own form with scripts off, a product page of many
// variants, its JSON-LD as a crawler reads it, the page's CSP holding (no
// violation, its style applied), and axe-core finding no serious or
// critical accessibility violation. Then the company sells abroad, as an
// operator sets it up with the command line while the server runs: its
// locales (pt-BR, en), two products translated into English (a JSON Lines
// file, one with its own handle) and a market for the United States in
// dollars selling only its clothes; the market's window, a product opened
// from its card, and the company's own page read in English. Screenshots
// go to e2e/screenshots/pages/.
import { execFileSync } from 'node:child_process';
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import puppeteer from 'puppeteer-core';
import { bin, serveDemo } from './harness.mjs';

const shots = fileURLToPath(new URL('./screenshots/pages/', import.meta.url));
const chromium = process.env.CHROMIUM ?? '/usr/bin/chromium';
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

let server, w, browser, base;
before(async () => {
  mkdirSync(shots, { recursive: true });
  ({ server, world: w } = await serveDemo());
  base = server.url.replace(/\/mcp$/, '') + '/shops/technova';
  browser = await puppeteer.launch({ executablePath: chromium, headless: true, args: ['--no-sandbox', '--lang=pt-BR'] });
});
after(async () => {
  await browser?.close();
  await server?.stop();
  w?.cleanup();
});

// open loads a page as a person's browser does, noting the CSP's
// reports; axe lets axe-core's script in (the page allows none).
async function open(url, { axe = false, scripts = true } = {}) {
  const page = await browser.newPage();
  await page.setViewport({ width: 1000, height: 800 });
  // Each test sees the page as a first visit would (the browser's cache
  // would revalidate it: 304).
  await page.setCacheEnabled(false);
  if (axe) await page.setBypassCSP(true);
  if (!scripts) await page.setJavaScriptEnabled(false);
  const csp = [];
  page.on('console', (m) => { if (/Content Security Policy/i.test(m.text())) csp.push(m.text()); });
  const res = await page.goto(url, { waitUntil: 'load' });
  assert.equal(res.status(), 200, url);
  return { page, csp };
}

// loaded waits until every image the page shows at once has loaded.
async function loaded(page) {
  await page.waitForFunction(() => [...document.images].filter((i) => i.loading !== 'lazy')
    .every((i) => i.complete && i.naturalWidth > 0));
}

// shoot saves a screenshot of the whole page and checks it is not blank:
// its pixels hold many colors (read in a page of its own: the window's
// CSP lets no script fetch the image).
async function shoot(page, file) {
  const png = await page.screenshot({ path: join(shots, file), fullPage: true });
  const blank = await browser.newPage();
  const colors = await blank.evaluate(async (b64) => {
    const bitmap = await createImageBitmap(await (await fetch(`data:image/png;base64,${b64}`)).blob());
    const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
    const ctx = canvas.getContext('2d');
    ctx.drawImage(bitmap, 0, 0);
    const px = ctx.getImageData(0, 0, bitmap.width, bitmap.height).data;
    const seen = new Set();
    for (let i = 0; i < px.length && seen.size < 256; i += 4) seen.add((px[i] << 16) | (px[i + 1] << 8) | px[i + 2]);
    return seen.size;
  }, Buffer.from(png).toString('base64'));
  await blank.close();
  assert.ok(colors >= 64, `${file} is blank (${colors} colors)`);
}

// axeViolations runs axe-core in the page: its serious and critical
// violations.
async function axeViolations(page) {
  await page.evaluate(axeSource);
  const found = await page.evaluate(async () => (await globalThis.axe.run(document)).violations
    .map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n) => n.target.join(' ')).slice(0, 3) })));
  return found.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

test('the home page: the company, its categories, cards with images, its CSP held', async () => {
  const { page, csp } = await open(base + '/');
  await loaded(page);
  assert.equal(await page.$eval('html', (e) => e.lang), 'pt-BR');
  assert.equal(await page.$eval('h1', (e) => e.textContent), 'TechNova Comércio Eletrônico');
  const cards = await page.$$eval('ul.cards h2', (hs) => hs.map((h) => h.textContent));
  assert.ok(cards.includes('Camiseta TechNova Dev') && !cards.some((c) => c.startsWith('Boné')), cards.join(', '));
  assert.ok((await page.$$eval('ul.cards img', (is) => is.filter((i) => i.naturalWidth > 0 && i.alt).length)) > 0);
  // The inlined style applies: the CSP allows it by its hash.
  assert.equal(await page.$eval('header .shop', (e) => getComputedStyle(e).fontWeight), '700');
  assert.deepEqual(csp, []);
  await shoot(page, 'home.png');
  await page.close();
});

test('a search with scripts off, by the page\'s own form', async () => {
  const { page } = await open(base + '/', { scripts: false });
  await page.type('#q', 'mouse');
  await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
  assert.match(page.url(), /\?q=mouse$/);
  const html = await page.content();
  assert.match(html, /Mouse Logitech MX Master 3S/);
  assert.doesNotMatch(html, /Notebook Dell/);
  await page.close();
});

test('a product page: the shirt, its variants, its JSON-LD', async () => {
  const home = await open(base + '/');
  await Promise.all([home.page.waitForNavigation(), home.page.click('ul.cards a[href*="camiseta"]')]);
  const url = home.page.url();
  await home.page.close();
  const { page, csp } = await open(url);
  await loaded(page);
  assert.equal(await page.$eval('h1', (e) => e.textContent), 'Camiseta TechNova Dev');
  assert.deepEqual(await page.$$eval('nav.crumbs a', (as) => as.map((a) => a.textContent)), ['Vestuário', 'Camisetas']);
  assert.equal((await page.$$('tbody tr')).length, 8);
  const ld = await page.$eval('script[type="application/ld+json"]', (s) => JSON.parse(s.textContent));
  assert.equal(ld['@type'], 'ProductGroup');
  assert.deepEqual(ld.variesBy, ['https://schema.org/color', 'https://schema.org/size']);
  assert.equal(ld.hasVariant.length, 8);
  for (const v of ld.hasVariant) {
    assert.equal(v.offers.priceCurrency, 'BRL');
    assert.match(v.offers.url, /\/shops\/technova\/products\/.+\?variant=/);
  }
  assert.deepEqual(csp, []);
  await shoot(page, 'product.png');
  // ?variant= preselects: the offer's own URL opens with its row current.
  const { page: pre } = await open(ld.hasVariant[7].offers.url);
  assert.equal(await pre.$eval('tr[aria-current] th', (e) => e.textContent), 'Preta / GG');
  await pre.close();
  await page.close();
});

test('axe-core: no serious or critical violation on the home and a product page', async () => {
  for (const path of ['/', '/?q=camiseta', '/products/mouse-logitech-mx-master-3s']) {
    const { page } = await open(base + path, { axe: true });
    await loaded(page);
    assert.deepEqual(await axeViolations(page), [], path);
    await page.close();
  }
});

// vitrine runs the operator's command line on the demo's database, beside
// the running server (SQLite in WAL mode takes both).
function vitrine(...args) {
  return execFileSync(bin, [...args, '--db', w.db], { encoding: 'utf8' });
}

// sellAbroad sets the company up for the United States, once.
let abroad;
function sellAbroad() {
  abroad ??= (() => {
    vitrine('tenant', 'update', 'technova', '--locales', 'pt-BR,en');
    const file = join(dirname(w.db), 'translations.jsonl');
    writeFileSync(file, [
      { handle: 'camiseta-technova-dev', translations: { en: { name: 'TechNova Dev T-shirt', handle: 'technova-dev-t-shirt',
        description: 'A cotton T-shirt for developers.' } } },
      { handle: 'moletom-technova-com-capuz', translations: { en: { name: 'TechNova Hoodie' } } },
    ].map((l) => JSON.stringify(l)).join('\n') + '\n');
    assert.match(vitrine('translation', 'import', '--tenant', 'technova', '--format', 'jsonl', file), /0 failed/);
    const clothes = vitrine('category', 'list', '--tenant', 'technova').split('\n').find((l) => /\svestuario\s/.test(l)).split(/\s+/)[0];
    vitrine('market', 'save', '--tenant', 'technova', '--name', 'United States', '--countries', 'US', '--currency', 'USD',
      '--locales', 'en', '--exchange-rate', '0.19', '--rounding', '0.99', '--category', clothes, 'us');
    return true;
  })();
}

test('a market\'s window: its assortment only, in English, in dollars', async () => {
  sellAbroad();
  const { page, csp } = await open(base + '/markets/us/');
  await loaded(page);
  assert.equal(await page.$eval('html', (e) => e.lang), 'en');
  const cards = await page.$$eval('ul.cards h2', (hs) => hs.map((h) => h.textContent));
  assert.ok(cards.includes('TechNova Dev T-shirt') && cards.includes('TechNova Hoodie'), cards.join(', '));
  // Outside its assortment, as absent as a draft.
  assert.ok(!cards.some((c) => /Mouse|Notebook|Monitor/.test(c)), cards.join(', '));
  const prices = await page.$$eval('ul.cards .price', (ps) => ps.map((p) => p.textContent));
  assert.ok(prices.length > 0 && prices.every((p) => p.startsWith('$') && p.includes('.99')), prices.join(', '));
  assert.deepEqual(csp, []);
  await shoot(page, 'market-home.png');
  // A product outside the market is not found there.
  const res = await page.goto(base + '/markets/us/products/mouse-logitech-mx-master-3s');
  assert.equal(res.status(), 404);
  await page.close();
});

test('a market\'s product page, opened from its card: translated, priced in dollars', async () => {
  sellAbroad();
  const home = await open(base + '/markets/us/');
  await Promise.all([home.page.waitForNavigation(), home.page.click('ul.cards a[href*="t-shirt"]')]);
  const url = home.page.url();
  await home.page.close();
  const { page, csp } = await open(url);
  await loaded(page);
  assert.equal(await page.$eval('h1', (e) => e.textContent), 'TechNova Dev T-shirt');
  assert.match(await page.content(), /A cotton T-shirt for developers\./);
  const ld = await page.$eval('script[type="application/ld+json"]', (s) => JSON.parse(s.textContent));
  assert.equal(ld.name, 'TechNova Dev T-shirt');
  for (const v of ld.hasVariant) {
    assert.equal(v.offers.priceCurrency, 'USD');
    assert.match(v.offers.price, /\.99$/);
  }
  assert.deepEqual(csp, []);
  await shoot(page, 'market-product.png');
  const { page: checked } = await open(url, { axe: true });
  assert.deepEqual(await axeViolations(checked), []);
  await checked.close();
  await page.close();
});

test('the company\'s own product page in English (?locale=en), in reais', async () => {
  sellAbroad();
  const res = await fetch(base + '/products/camiseta-technova-dev?locale=en');
  assert.equal(res.headers.get('content-language'), 'en');
  const { page } = await open(base + '/products/camiseta-technova-dev?locale=en');
  await loaded(page);
  assert.equal(await page.$eval('html', (e) => e.lang), 'en');
  assert.equal(await page.$eval('h1', (e) => e.textContent), 'TechNova Dev T-shirt');
  const ld = await page.$eval('script[type="application/ld+json"]', (s) => JSON.parse(s.textContent));
  assert.ok(ld.hasVariant.every((v) => v.offers.priceCurrency === 'BRL'));
  await shoot(page, 'product-en.png');
  // Untranslated, a product falls back to the default locale's text.
  const { page: mouse } = await open(base + '/products/mouse-logitech-mx-master-3s?locale=en');
  assert.equal(await mouse.$eval('h1', (e) => e.textContent), 'Mouse Logitech MX Master 3S');
  await mouse.close();
  await page.close();
});
