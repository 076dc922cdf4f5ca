// The official TypeScript SDK's client against the real binary, over stdio
// and over Streamable HTTP: the seed's scenarios byte for byte, a product's
// whole life, the protocol errors, and the tools a token's grant lists.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { bin, serve, world } from './harness.mjs';

let w, server;
before(async () => {
  w = await world();
  server = await serve(w.db);
});
after(async () => {
  await server?.stop();
  w?.cleanup();
});

const transports = {
  stdio: (token) => new StdioClientTransport({ command: bin, args: ['stdio', '--db', w.db], env: { VITRINE_TOKEN: token }, stderr: 'ignore' }),
  http: (token) => new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }),
};

async function connect(kind, email) {
  const client = new Client({ name: 'vitrine-e2e', version: '1.0.0' });
  await client.connect(transports[kind](w.tokens[email]));
  return client;
}

// text returns the one text content of a result.
function text(res) {
  assert.equal(res.content.length, 1);
  assert.equal(res.content[0].type, 'text');
  return res.content[0].text;
}

function failsWith(res, want) {
  assert.equal(res.isError, true);
  assert.equal(res.structuredContent, undefined, 'an error carries no structured content');
  assert.equal(text(res), want);
}

function ok(res) {
  assert.ok(!res.isError, text(res));
  assert.deepEqual(res.structuredContent, JSON.parse(text(res)));
  return res.structuredContent;
}

for (const kind of Object.keys(transports)) {
  test(`${kind}: the seed's three scenarios`, async () => {
    const carla = await connect(kind, 'carla@technova.example'); // a member
    const technova = w.tenants['technova'];
    try {
      const notebook = ok(await carla.callTool({ name: 'get_product', arguments: { tenant_id: technova, sku: 'NB-DELL-5440' } }));
      failsWith(await carla.callTool({ name: 'delete_product', arguments: { tenant_id: technova, id: notebook.id } }),
        '{"error":true,"type":"PermissionError","message":"You do not have permission to perform this action"}');
      failsWith(await carla.callTool({ name: 'get_product', arguments: { tenant_id: technova, id: 'id-invalido' } }),
        '{"error":true,"type":"NotFoundError","message":"Product not found"}');
      failsWith(await carla.callTool({ name: 'list_products', arguments: { tenant_id: 'tenant-sem-acesso' } }),
        '{"error":true,"type":"Error","message":"Membership not found or inactive"}');
      const { tenants } = ok(await carla.callTool({ name: 'list_tenants', arguments: {} }));
      assert.deepEqual(tenants.map((t) => t.slug), ['mercado-verde', 'technova']);
    } finally {
      await carla.close();
    }
  });

  test(`${kind}: a product's whole life`, async () => {
    const bruno = await connect(kind, 'bruno@technova.example'); // an admin
    const t = w.tenants['technova'];
    try {
      const sku = `E2E-${kind}`;
      const p = ok(await bruno.callTool({ name: 'create_product', arguments: { tenant_id: t, sku, name: 'Webcam', price: '349.9', stock: 3 } }));
      assert.equal(p.price, '349.90');
      failsWith(await bruno.callTool({ name: 'create_product', arguments: { tenant_id: t, sku: sku.toLowerCase(), name: 'Dup', price: '1' } }),
        `{"error":true,"type":"ConflictError","message":"A product with SKU \\"${sku.toLowerCase()}\\" already exists in this company (SKUs are compared without case)","field":"sku"}`);
      failsWith(await bruno.callTool({ name: 'create_product', arguments: { tenant_id: t, sku: 'X', name: 'x', price: 12 } }),
        '{"error":true,"type":"ValidationError","message":"price must be a string, not a number","field":"price"}');
      const found = ok(await bruno.callTool({ name: 'list_products', arguments: { tenant_id: t, query: 'webcam' } }));
      assert.deepEqual(found.products.map((x) => x.id), [p.id]);
      const u = ok(await bruno.callTool({ name: 'update_product', arguments: { tenant_id: t, id: p.id, price: '299.90', expected_version: 1 } }));
      assert.equal(u.version, 2);
      failsWith(await bruno.callTool({ name: 'update_product', arguments: { tenant_id: t, id: p.id, name: 'x', expected_version: 1 } }),
        '{"error":true,"type":"ConflictError","message":"The product is at version 2, not 1: someone changed it since you read it. Fetch it again with get_product, check the changes, and retry with expected_version 2","field":"expected_version"}');
      const s = ok(await bruno.callTool({ name: 'adjust_stock', arguments: { tenant_id: t, id: p.id, delta: -3, reason: 'sale' } }));
      assert.equal(s.stock, 0);
      const d = ok(await bruno.callTool({ name: 'delete_product', arguments: { tenant_id: t, id: p.id } }));
      assert.equal(d.deleted, true);
      failsWith(await bruno.callTool({ name: 'get_product', arguments: { tenant_id: t, id: p.id } }),
        '{"error":true,"type":"NotFoundError","message":"Product not found"}');
    } finally {
      await bruno.close();
    }
  });

  test(`${kind}: unknown tools are protocol errors`, async () => {
    const ana = await connect(kind, 'ana@technova.example');
    try {
      await assert.rejects(ana.callTool({ name: 'invalid_tool_name', arguments: {} }), (err) => {
        assert.equal(err.code, -32602);
        assert.match(err.message, /Unknown tool: invalid_tool_name$/);
        return true;
      });
      const { tools } = await ana.listTools();
      assert.ok(tools.length >= 10 && tools.every((x) => x.title && x.description && x.annotations && x.outputSchema));
    } finally {
      await ana.close();
    }
  });

  test(`${kind}: what a client lists is what its token grants`, async () => {
    const exec = promisify(execFile);
    const token = async (...flags) => JSON.parse((await exec(bin, ['token', 'create', '--db', w.db, '--email', 'ana@technova.example',
      '--name', `e2e-${kind}`, ...flags, '--json'])).stdout);
    const open = async (secret) => {
      const client = new Client({ name: 'vitrine-e2e', version: '1.0.0' });
      await client.connect(transports[kind](secret));
      return client;
    };
    const names = async (client) => (await client.listTools()).tools.map((x) => x.name);
    const t = w.tenants['technova'];
    const catalog = await token();
    assert.deepEqual(catalog.toolsets, ['tenants', 'products']);
    const withMembers = await token('--toolsets', 'tenants,products,members');
    const clients = [await open(catalog.token), await open(withMembers.token), await open(w.tokens['ana@technova.example'])];
    try {
      const [a, b, every] = clients;
      const listed = await names(a);
      assert.ok(listed.includes('list_products') && listed.includes('request_toolset') && !listed.includes('list_members'), listed.join());
      // Outside the grant: which token would do, and nothing changes the list.
      failsWith(await a.callTool({ name: 'list_members', arguments: { tenant_id: t } }),
        '{"error":true,"type":"Error","message":"This token does not grant the members toolset: ask the user for a token that does: ' +
        'they make one on their account page (/account, Create a token) or the operator with vitrine token create ' +
        '--toolsets tenants,products,members","toolset":"members"}');
      const { toolsets } = ok(await a.callTool({ name: 'request_toolset', arguments: {} }));
      assert.deepEqual(toolsets.map((x) => x.name), ['inventory', 'catalog', 'members', 'roles', 'audit', 'shop', 'markets', 'company', 'translations']);
      assert.deepEqual(await names(a), listed);
      // A token granting members lists and calls them.
      assert.ok((await names(b)).includes('grant_permission'));
      const { members } = ok(await b.callTool({ name: 'list_members', arguments: { tenant_id: t } }));
      assert.ok(members.some((m) => m.email === 'ana@technova.example'));
      // The demo's tokens grant every toolset: nothing to ask for.
      const all = await names(every);
      assert.ok(all.includes('list_audit_events') && !all.includes('request_toolset'), all.join());
    } finally {
      for (const c of clients) await c.close();
    }
  });
}

// Raw requests of the sessionless revision (2026-07-28), as a client of it
// sends them, against the binary: what the issue that brought the revision
// in observed, each as it must be.
test('http: raw 2026-07-28 requests', async () => {
  const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
  const send = async (method, params = {}, name) => {
    const headers = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream',
      Authorization: `Bearer ${w.tokens['ana@technova.example']}`, 'Mcp-Protocol-Version': '2026-07-28', 'Mcp-Method': method };
    if (name) headers['Mcp-Name'] = name;
    const res = await fetch(server.url, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: 5, method, params: { ...params, _meta: meta } }) });
    const text = await res.text();
    const msgs = res.headers.get('content-type').startsWith('text/event-stream')
      ? text.split('\n').filter((l) => l.startsWith('data: ')).map((l) => JSON.parse(l.slice(6))) : [JSON.parse(text)];
    return { status: res.status, msgs, last: msgs[msgs.length - 1] };
  };
  const { capabilities } = (await send('server/discover')).last.result;
  assert.deepEqual(capabilities, { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } },
    logging: {}, prompts: {}, resources: {}, tools: {} }, 'no list changes while the server runs; the views\' extension declared');
  const prompts = (await send('prompts/list')).last.result;
  assert.deepEqual(prompts.prompts, []);
  assert.deepEqual([prompts.cacheScope, prompts.ttlMs], ['public', 3600000]);
  const tools = (await send('tools/list')).last.result;
  assert.deepEqual([tools.cacheScope, tools.ttlMs], ['private', 3600000], 'a list that changes with the deployment and the grant');
  const uri = `vitrine://tenants/${w.tenants['technova']}/products/id-invalido`;
  const missing = await send('resources/read', { uri }, uri);
  assert.equal(missing.last.error.code, -32602);
  assert.equal(missing.last.error.data.uri, uri);
  const listen = await send('subscriptions/listen', { notifications: { toolsListChanged: true } });
  assert.deepEqual(listen.msgs.map((m) => m.method ?? 'result'), ['notifications/subscriptions/acknowledged', 'result']);
  const origin = await fetch(server.url, { method: 'POST', headers: { 'Content-Type': 'application/json', Origin: 'https://evil.example',
    Accept: 'application/json, text/event-stream', Authorization: `Bearer ${w.tokens['ana@technova.example']}` },
  body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) });
  assert.equal(origin.status, 403, 'a page of the web is refused on loopback too');
});

test('http: no token, no entry', async () => {
  for (const headers of [{}, { Authorization: 'Bearer vtr_nonsense' }]) {
    const res = await fetch(server.url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    assert.equal(res.status, 401);
    assert.match(res.headers.get('www-authenticate'), /^Bearer realm="vitrine"/);
  }
});

// A token the server has already seen is admitted to a tool call without
// reading the access epoch first: the call's own first read checks it. A
// revocation by the operator's CLI, another process on the same database,
// still refuses the very next call with the 401 of any refused token.
test('http: a token revoked by the CLI is refused at its next tool call', async () => {
  const exec = promisify(execFile);
  const created = JSON.parse((await exec(bin, ['token', 'create', '--db', w.db, '--email', 'bruno@technova.example', '--name', 'e2e-revoke', '--json'])).stdout);
  const headers = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', Authorization: `Bearer ${created.token}` };
  const post = (body) => fetch(server.url, { method: 'POST', headers, body: JSON.stringify(body) });
  const init = await post({ jsonrpc: '2.0', id: 0, method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'e2e', version: '1' } } });
  assert.equal(init.status, 200);
  await init.text();
  headers['Mcp-Session-Id'] = init.headers.get('mcp-session-id');
  headers['Mcp-Protocol-Version'] = '2025-06-18';
  await (await post({ jsonrpc: '2.0', method: 'notifications/initialized' })).text();
  const call = (id) => post({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'list_tenants', arguments: {} } });
  for (const id of [1, 2]) {
    const res = await call(id);
    assert.equal(res.status, 200);
    assert.match(await res.text(), /technova/);
  }
  await exec(bin, ['token', 'revoke', '--db', w.db, '--id', created.id]);
  const res = await call(3);
  assert.equal(res.status, 401);
  assert.match(res.headers.get('www-authenticate'), /error="invalid_token", error_description="the token was revoked"/);
  assert.doesNotMatch(await res.text(), /jsonrpc|technova/);
});

// The VS Code configurations of the README, with their placeholders filled
// in, connect and work.
test('README: the VS Code configurations connect', async () => {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  const block = (name) => JSON.parse(readme.match(new RegExp(`<!-- config: ${name} -->\\n\`\`\`json\\n([\\s\\S]*?)\`\`\``))[1]);
  const token = w.tokens['diego@technova.example'];
  const fill = (s) => s.replace('/path/to/bin/vitrine', bin).replace('/path/to/vitrine.db', w.db).replace('${input:vitrine-token}', token)
    .replace('http://127.0.0.1:8080/mcp', server.url);
  const stdio = block('vscode-stdio').servers.vitrine;
  const http = block('vscode-http').servers.vitrine;
  for (const transport of [
    new StdioClientTransport({ command: fill(stdio.command), args: stdio.args.map(fill), env: { VITRINE_TOKEN: fill(stdio.env.VITRINE_TOKEN) }, stderr: 'ignore' }),
    new StreamableHTTPClientTransport(new URL(fill(http.url)), { requestInit: { headers: { Authorization: fill(http.headers.Authorization) } } }),
  ]) {
    const client = new Client({ name: 'vitrine-e2e', version: '1.0.0' });
    await client.connect(transport);
    const who = ok(await client.callTool({ name: 'whoami', arguments: {} }));
    assert.equal(who.user.email, 'diego@technova.example');
    await client.close();
  }
});

test('http: export_tenant\'s archive downloads with a GET of its url and the owner\'s token', async () => {
  const ana = await connect('http', 'ana@technova.example');
  try {
    const res = await ana.callTool({ name: 'export_tenant', arguments: { tenant_id: w.tenants['technova'] } });
    assert.ok(!res.isError, res.content[0].text);
    const out = res.structuredContent;
    assert.equal(out.status, 'done');
    assert.equal(out.url, new URL(`/tenants/${w.tenants['technova']}/exports/${out.export_id}`, server.url).href);
    const link = res.content.find((c) => c.type === 'resource_link');
    assert.ok(link?.description?.includes(out.url), JSON.stringify(link));

    const get = (email) => fetch(out.url, { headers: { authorization: `Bearer ${w.tokens[email]}` } });
    const archive = await get('ana@technova.example');
    assert.equal(archive.status, 200);
    assert.equal(archive.headers.get('content-type'), 'application/zip');
    assert.match(archive.headers.get('content-disposition'), /^attachment; filename="export-.+\.zip"$/);
    const body = Buffer.from(await archive.arrayBuffer());
    assert.equal(body.length, out.bytes);
    assert.equal(body.subarray(0, 2).toString(), 'PK');
    assert.equal(archive.headers.get('repr-digest'), `sha-256=:${Buffer.from(out.sha256, 'hex').toString('base64')}:`);
    assert.equal((await fetch(out.url)).status, 401, 'no token');
    assert.equal((await get('marina@mercadoverde.example')).status, 404, "another company's owner");
    assert.equal((await get('carla@technova.example')).status, 403, 'a member without tenants:delete');
  } finally {
    await ana.close();
  }
});
