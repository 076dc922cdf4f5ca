// The list view: a page of list_products as cards or a table, its facets,
// the next page through the host, and each product's view.
const LV = {layout: 'cards', pages: []};

// The filter each facet narrows list_products by.
const facetArg = {vendor: 'vendor', product_type: 'product_type', tags: 'tags', status: 'status', categories: 'category_id'};

function listArgs(extra) {
  const a = Object.assign({}, V.args, extra);
  for (const k of Object.keys(a)) if (a[k] === undefined) delete a[k];
  return a;
}

async function page(args) {
  V.args = args;
  renderList(await callTool('list_products', args));
}

function facetButtons(facets) {
  const groups = [];
  for (const [name, values] of Object.entries(facets || {})) {
    if (name === 'options' && values && typeof values === 'object') {
      for (const [opt, vals] of Object.entries(values)) groups.push([opt, vals, (v) => ({options: Object.assign({}, V.args.options, {[opt]: v.value})}), (v) => V.args.options && V.args.options[opt] === v.value]);
    } else if (facetArg[name] && Array.isArray(values)) {
      const arg = facetArg[name];
      groups.push([t(name), values, (v) => ({[arg]: arg === 'tags' ? [v.value] : v.value}),
        (v) => (arg === 'tags' ? (V.args.tags || []).includes(v.value) : V.args[arg] === v.value)]);
    }
  }
  if (!groups.length) return null;
  return el('div', {class: 'facets'}, groups.map(([label, values, narrow, pressed]) => el('div', {class: 'row facet'}, el('span', {class: 'muted', text: label}),
    values.map((v) => el('button', {type: 'button', 'aria-pressed': pressed(v) ? 'true' : 'false', 'data-value': v.value,
      text: (v.name || (label === t('status') ? t(v.value) : v.value)) + ' (' + v.count + ')',
      onclick: (e) => act(e.target, () => { LV.pages = []; return page(listArgs(Object.assign({cursor: undefined}, narrow(v)))); })})))));
}

function openProduct(row) {
  const list = LV.shown;
  return callTool('get_product', {tenant_id: V.args.tenant_id || row.tenant_id, id: row.id})
    .then((p) => renderProduct(p, () => renderList(list)));
}

function renderList(data) {
  LV.shown = data;
  const rows = data.products || [];
  const name = (r) => el('button', {type: 'button', class: 'link open', 'data-id': r.id, text: r.name || r.sku || r.id, onclick: (e) => act(e.target, () => openProduct(r))});
  const img = (r) => photo(r.image && r.image.url, (r.image && r.image.alt) || r.name);
  const stock = (r) => el('span', {class: 'stock' + (r.stock <= 0 ? ' low' : ''), text: t('units', r.stock ?? 0)});
  const body = !rows.length ? el('p', {class: 'muted', text: t('empty')}) : LV.layout === 'cards'
    ? el('div', {class: 'cards'}, rows.map((r) => el('div', {class: 'card product-row', 'data-id': r.id}, img(r), name(r),
      el('div', {class: 'price', text: priceRange(r)}), el('div', {class: 'row'}, stock(r), statusBadge(r.status)))))
    : el('table', {class: 'list'}, el('thead', {}, el('tr', {}, el('th', {text: t('photo')}), el('th', {text: t('name')}),
      el('th', {class: 'n', text: t('price')}), el('th', {class: 'n', text: t('stock')}), el('th', {text: t('status')}))),
    el('tbody', {}, rows.map((r) => el('tr', {class: 'product-row', 'data-id': r.id}, el('td', {}, img(r)), el('td', {}, name(r)),
      el('td', {class: 'n', text: priceRange(r)}), el('td', {class: 'n'}, stock(r)), el('td', {}, statusBadge(r.status))))));
  const toggle = (layout) => el('button', {type: 'button', class: 'layout-' + layout, 'aria-pressed': LV.layout === layout ? 'true' : 'false', text: t(layout),
    onclick: () => { LV.layout = layout; renderList(LV.shown); }});
  const prev = LV.pages.length ? el('button', {type: 'button', class: 'prev', text: t('prev'),
    onclick: (e) => act(e.target, () => page(listArgs({cursor: LV.pages.pop() || undefined})))}) : null;
  const next = data.next_cursor ? el('button', {type: 'button', class: 'next', text: t('next'),
    onclick: (e) => act(e.target, () => { LV.pages.push(V.args.cursor || ''); return page(listArgs({cursor: data.next_cursor})); })}) : null;
  draw(
    el('div', {class: 'row'}, el('strong', {class: 'count', text: t('products', rows.length)}), el('span', {class: 'row'}, toggle('cards'), toggle('table'))),
    facetButtons(data.facets), body, el('p', {class: 'row pager'}, prev, next));
  V.redraw = () => renderList(LV.shown);
}
