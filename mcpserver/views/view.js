'use strict';
// Vitrine's views (MCP Apps). The page talks to its host alone, by the
// extension's postMessage JSON-RPC: ui/initialize, then the tool's input and
// result as notifications, and tools/call for anything else, which the host
// sends to the server, which checks it as any call. Catalog text is set as
// text (textContent), never parsed as HTML.
const V = {ctx: {}, args: {}, perms: null, caps: {}};
const pending = new Map();
let nextID = 1;

function send(msg) { window.parent.postMessage(Object.assign({jsonrpc: '2.0'}, msg), '*'); }
function request(method, params) {
  const id = nextID++;
  send({id, method, params});
  return new Promise((resolve, reject) => pending.set(id, {resolve, reject}));
}
function notify(method, params) { send({method, params}); }

const on = {
  'ui/notifications/tool-input': (p) => { V.args = p.arguments || {}; },
  'ui/notifications/tool-result': (p) => show(p),
  'ui/notifications/host-context-changed': (p) => applyContext(p),
  'ui/notifications/tool-cancelled': () => fail(t('cancelled')),
};
window.addEventListener('message', (e) => {
  const m = e.data;
  if (e.source !== window.parent || !m || m.jsonrpc !== '2.0') return;
  if (m.method === undefined) {
    const p = pending.get(m.id);
    if (p) { pending.delete(m.id); m.error ? p.reject(m.error) : p.resolve(m.result); }
  } else if (m.id !== undefined) {
    send({id: m.id, result: {}}); // ping, ui/resource-teardown: nothing to keep
  } else if (on[m.method]) {
    on[m.method](m.params || {});
  }
});

// callTool calls a tool through the host; a business error (the seed's
// JSON in the one text content) is thrown with its message.
async function callTool(name, args) {
  let r;
  try { r = await request('tools/call', {name, arguments: args}); } catch (e) { throw new Error(e.message || String(e)); }
  if (r.isError) {
    let body = {};
    try { body = JSON.parse(r.content[0].text); } catch (_) { body = {message: (r.content && r.content[0] && r.content[0].text) || '?'}; }
    const err = new Error(body.message || '?');
    err.type = body.type;
    throw err;
  }
  return r.structuredContent || JSON.parse(r.content[0].text);
}

// The person's language: Portuguese for pt-*, else English.
const L = {
  en: {cancelled: 'The call was cancelled.', noPhoto: 'No photo', photo: 'Photo', price: 'Price', stock: 'Stock', sku: 'SKU',
    variant: 'Variant', variants: 'Variants', options: 'Options', tags: 'Tags', description: 'Description', vendor: 'Vendor',
    active: 'Active', draft: 'Draft', archived: 'Archived', adjust: 'Adjust', delta: 'Units to add or remove for', publish: 'Publish',
    archive: 'Archive', confirmArchive: 'Archive “%s”? It goes off sale.', yes: 'Archive', no: 'Cancel', reason: 'Adjusted in the product view',
    products: '%d on this page', next: 'Next page', prev: 'Previous page', back: '← Back to the list', cards: 'Cards', table: 'Table',
    name: 'Name', status: 'Status', open: 'Open', empty: 'No products.', product_type: 'Type', categories: 'Categories', units: '%d in stock', waiting: 'Waiting for the result…'},
  pt: {cancelled: 'A chamada foi cancelada.', noPhoto: 'Sem foto', photo: 'Foto', price: 'Preço', stock: 'Estoque', sku: 'SKU',
    variant: 'Variante', variants: 'Variantes', options: 'Opções', tags: 'Etiquetas', description: 'Descrição', vendor: 'Fornecedor',
    active: 'Ativo', draft: 'Rascunho', archived: 'Arquivado', adjust: 'Ajustar', delta: 'Unidades a somar ou tirar de', publish: 'Publicar',
    archive: 'Arquivar', confirmArchive: 'Arquivar “%s”? Ele sai de venda.', yes: 'Arquivar', no: 'Cancelar', reason: 'Ajustado na visão do produto',
    products: '%d nesta página', next: 'Próxima página', prev: 'Página anterior', back: '← Voltar à lista', cards: 'Cartões', table: 'Tabela',
    name: 'Nome', status: 'Situação', open: 'Abrir', empty: 'Nenhum produto.', product_type: 'Tipo', categories: 'Categorias', units: '%d em estoque', waiting: 'Aguardando o resultado…'},
};
function locale() { return V.ctx.locale || navigator.language || 'en'; }
function lang() { return /^pt\b/i.test(locale()) ? 'pt' : 'en'; }
function t(key, arg) { return (L[lang()][key] || key).replace('%s', arg).replace('%d', arg); }
function money(amount, currency) {
  if (amount === undefined || amount === null || amount === '') return '';
  try { return new Intl.NumberFormat(locale(), {style: 'currency', currency: currency || 'BRL'}).format(Number(amount)); } catch (_) { return amount + ' ' + (currency || ''); }
}
function priceRange(p) {
  const low = money(p.price, p.currency);
  return p.price_max && p.price_max !== p.price ? low + ' – ' + money(p.price_max, p.currency) : low;
}

// applyContext takes the host's theme (light or dark), its CSS variables and
// the person's language, and renders again if the language changed.
function applyContext(c) {
  const before = lang();
  V.ctx = Object.assign({}, V.ctx, c);
  const root = document.documentElement;
  if (c.theme === 'light' || c.theme === 'dark') { root.style.colorScheme = c.theme; root.dataset.theme = c.theme; }
  const vars = (c.styles && c.styles.variables) || {};
  for (const k of Object.keys(vars)) if (k.startsWith('--') && typeof vars[k] === 'string') root.style.setProperty(k, vars[k]);
  root.lang = lang() === 'pt' ? 'pt-BR' : 'en';
  if (lang() !== before && V.redraw) V.redraw();
}

// el makes an element; strings among the children become text nodes.
function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else if (k === 'text') e.textContent = v;
    else e.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat(Infinity)) if (c !== null && c !== undefined && c !== false) e.append(typeof c === 'string' || typeof c === 'number' ? String(c) : c);
  return e;
}
function app() { return document.getElementById('app'); }
function draw(...children) { app().replaceChildren(...children.flat(Infinity).filter((c) => c !== null && c !== undefined && c !== false)); }
function fail(message) { app().prepend(el('p', {class: 'error', role: 'alert', text: message})); }
function clearErrors() { for (const e of app().querySelectorAll('.error')) e.remove(); }

// photo is an image the shop named, or a placeholder. The CSP says which
// load: any https one, and the server's own (the demo's) from a server
// reached over http.
function photo(src, alt, cls) {
  if (typeof src === 'string' && /^https?:\/\//i.test(src)) return el('img', {class: cls || 'photo', src, alt: alt || '', loading: 'lazy', referrerpolicy: 'no-referrer'});
  return el('div', {class: cls || 'photo', role: 'img', 'aria-label': t('noPhoto'), text: t('noPhoto')});
}

// plainText is the product's description (sanitized HTML from the server)
// without its tags: parsed in an inert document, which runs nothing and
// loads nothing, and only its text kept.
function plainText(html) {
  if (!html) return '';
  const doc = new DOMParser().parseFromString(String(html), 'text/html');
  for (const x of doc.querySelectorAll('script,style,template,noscript')) x.remove();
  for (const b of doc.querySelectorAll('br,p,li,div,h1,h2,h3,h4,tr')) b.append('\n');
  return doc.body.textContent.replace(/\n{3,}/g, '\n\n').trim();
}

function statusBadge(s) { return el('span', {class: 'badge ' + (s || ''), 'data-status': s, text: t(s || '')}); }

// canEdit says whether the caller may change products in the tenant, from
// its permissions (get_tenant). Unknown is no: the server refuses anyway.
async function loadPermissions(tenantID) {
  if (V.perms || !tenantID) return;
  try { V.perms = (await callTool('get_tenant', {tenant_id: tenantID})).permissions || []; } catch (_) { V.perms = []; }
}
function canEdit() { return !!V.perms && V.perms.includes('products:update'); }

// withDefaults is a product record with what it leaves out filled in:
// get_product's output schema states each default (an empty field's, a
// variant's inventory_policy, requires_shipping, taxable, options), and a
// variant's or an image's position is its place in the list.
const productDefaults = {description: '', sku: '', tags: [], options: [], media: [], categories: [], attributes: {}, seo: {}};
const variantDefaults = {sku: '', options: {}, inventory_policy: 'deny', track_inventory: true, requires_shipping: true, taxable: true};
function withDefaults(p) {
  if (!p || typeof p !== 'object' || !Array.isArray(p.variants)) return p; // a list's row, not a record
  const fill = (x, defaults) => { for (const [k, d] of Object.entries(defaults)) if (!(k in x)) x[k] = structuredClone(d); return x; };
  const placed = (x, i) => Object.assign({position: i + 1}, x);
  const out = fill(Object.assign({}, p), productDefaults);
  out.variants = p.variants.map((v, i) => fill(placed(v, i), variantDefaults));
  out.media = out.media.map(placed);
  return out;
}

function variantsOf(p) {
  if (Array.isArray(p.variants) && p.variants.length) return p.variants;
  return [{sku: p.sku, price: p.price, compare_at_price: p.compare_at_price, stock: p.stock, one: true}];
}
// variantName is a variant's option values in the order of the product's
// options (a JSON object's keys keep no order of their own).
function variantName(v, p) {
  if (!v.options || typeof v.options !== 'object') return '';
  const names = p && Array.isArray(p.options) && p.options.length ? p.options.map((o) => o.name) : Object.keys(v.options);
  return names.filter((n) => n in v.options).map((n) => v.options[n]).join(' / ');
}

// renderProduct draws a product (get_product's result) into the page.
function renderProduct(p, back) {
  p = withDefaults(p);
  const tenantID = V.args.tenant_id || p.tenant_id;
  const media = (Array.isArray(p.media) && p.media.length ? p.media : p.image ? [p.image] : []).slice().sort((a, b) => (a.position || 0) - (b.position || 0));
  let shown = 0;
  const main = el('div', {class: 'gallery'});
  const drawGallery = () => {
    main.replaceChildren(media.length ? photo(media[shown].url, media[shown].alt || p.name) : photo());
    if (media.length > 1) main.append(el('div', {class: 'thumbs'}, media.map((m, i) =>
      el('button', {type: 'button', 'aria-current': i === shown ? 'true' : null, 'aria-label': m.alt || t('photo') + ' ' + (i + 1), onclick: () => { shown = i; drawGallery(); }},
        photo(m.url, m.alt || '', 'thumb')))));
  };
  drawGallery();
  const edit = canEdit() && tenantID;
  const variants = variantsOf(p);
  const named = variants.some((v) => variantName(v, p));
  const rows = variants.map((v) => {
    const delta = el('input', {type: 'number', step: 1, value: 1, 'aria-label': t('delta') + ' ' + (variantName(v, p) || v.sku || p.name)});
    const button = el('button', {type: 'button', class: 'adjust', text: t('adjust')});
    button.addEventListener('click', () => act(button, async () => {
      const target = v.one || !v.id ? {id: p.id} : {variant_id: v.id};
      await callTool('adjust_stock', Object.assign({tenant_id: tenantID, delta: Number(delta.value), reason: t('reason')}, target));
      renderProduct(await callTool('get_product', {tenant_id: tenantID, id: p.id}), back);
    }));
    return el('tr', {'data-sku': v.sku},
      named ? el('td', {text: variantName(v, p)}) : null,
      el('td', {text: v.sku || ''}),
      el('td', {class: 'n'}, money(v.price, p.currency), v.compare_at_price ? el('span', {class: 'was', text: money(v.compare_at_price, p.currency)}) : null),
      el('td', {class: 'n stock' + (v.stock <= 0 ? ' low' : ''), text: String(v.stock ?? '')}),
      edit ? el('td', {}, el('span', {class: 'row'}, delta, button)) : null);
  });
  const status = async (s) => {
    renderProduct(await callTool('update_product', {tenant_id: tenantID, id: p.id, status: s, expected_version: p.version}), back);
  };
  const actions = !edit ? null : el('div', {class: 'row actions'},
    p.status !== 'active' ? el('button', {type: 'button', class: 'publish', text: t('publish'), onclick: (e) => act(e.target, () => status('active'))}) : null,
    p.status !== 'archived' ? el('button', {type: 'button', class: 'archive danger', text: t('archive'),
      onclick: (e) => act(e.target, async () => { if (await confirmed(t('confirmArchive', p.name))) await status('archived'); })}) : null);
  const options = Array.isArray(p.options) ? p.options.filter((o) => o && o.name) : [];
  const tags = Array.isArray(p.tags) ? p.tags : [];
  const byline = [p.vendor, p.product_type].filter(Boolean).join(' · ');
  const desc = plainText(p.description);
  draw(
    back ? el('p', {}, el('button', {type: 'button', class: 'link back', text: t('back'), onclick: back})) : null,
    el('article', {class: 'product', 'data-id': p.id},
      el('div', {class: 'top'}, main, el('div', {},
        el('h1', {class: 'name', text: p.name || ''}),
        el('p', {class: 'row'}, statusBadge(p.status), byline ? el('span', {class: 'muted vendor', text: byline}) : null),
        el('p', {}, el('span', {class: 'price', text: priceRange(p)}), p.compare_at_price ? el('span', {class: 'was compare', text: money(p.compare_at_price, p.currency)}) : null),
        el('p', {class: 'muted total', text: t('units', p.stock ?? 0)}),
        tags.length ? el('p', {class: 'row tags', 'aria-label': t('tags')}, tags.map((x) => el('span', {class: 'chip', text: String(x)}))) : null,
        options.length ? el('dl', {class: 'options'}, options.map((o) => [el('dt', {text: o.name}), el('dd', {text: (o.values || []).join(', ')})])) : null,
        actions)),
      desc ? [el('h2', {text: t('description')}), el('p', {class: 'desc', text: desc})] : null,
      el('h2', {text: t('variants')}),
      el('table', {class: 'variants'}, el('thead', {}, el('tr', {},
        named ? el('th', {text: t('variant')}) : null, el('th', {text: t('sku')}), el('th', {class: 'n', text: t('price')}),
        el('th', {class: 'n', text: t('stock')}), edit ? el('th', {text: t('adjust')}) : null)), el('tbody', {}, rows))));
  V.redraw = () => renderProduct(p, back);
}

// act runs a write from a control, disabled meanwhile; a refusal shows
// the server's message.
async function act(control, fn) {
  control.disabled = true;
  clearErrors();
  try { await fn(); } catch (e) { fail(e.message); } finally { control.disabled = false; }
}

// confirmed asks the person before a destructive change, in the page.
function confirmed(text) {
  const d = document.getElementById('confirm');
  document.getElementById('confirm-text').textContent = text;
  document.getElementById('confirm-no').textContent = t('no');
  document.getElementById('confirm-yes').textContent = t('yes');
  // Buttons, not a form: a sandbox may forbid forms (allow-forms).
  document.getElementById('confirm-no').onclick = () => d.close('no');
  document.getElementById('confirm-yes').onclick = () => d.close('yes');
  d.returnValue = '';
  d.showModal();
  return new Promise((resolve) => d.addEventListener('close', () => resolve(d.returnValue === 'yes'), {once: true}));
}

// show renders a tool result: a list view has its own renderList.
async function show(result) {
  if (result.isError) {
    let msg = '';
    try { msg = JSON.parse(result.content[0].text).message; } catch (_) { msg = (result.content && result.content[0] && result.content[0].text) || ''; }
    app().replaceChildren();
    fail(msg);
    return;
  }
  let data = result.structuredContent;
  if (!data) try { data = JSON.parse(result.content[0].text); } catch (_) { data = {}; }
  await loadPermissions(V.args.tenant_id || data.tenant_id);
  if (Array.isArray(data.products) && typeof renderList === 'function') renderList(data);
  else renderProduct(data);
}

// The host learns the page's height as it changes.
new ResizeObserver(() => {
  const r = document.body.getBoundingClientRect();
  notify('ui/notifications/size-changed', {width: Math.ceil(r.width), height: Math.ceil(r.height)});
}).observe(document.body);

(async () => {
  app().textContent = '';
  const init = await request('ui/initialize', {appInfo: {name: 'vitrine-view', version: '1'}, appCapabilities: {}, protocolVersion: '2026-01-26'});
  V.caps = init.hostCapabilities || {};
  applyContext(init.hostContext || {});
  app().append(el('p', {class: 'muted waiting', text: t('waiting')}));
  notify('ui/notifications/initialized', {});
})();
