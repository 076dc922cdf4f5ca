// The TypeScript ceiling of vitrine-bench: get_product on the official
// TypeScript SDK (Streamable HTTP, stateful sessions) over better-sqlite3,
// doing only the point lookup: no authentication, no audit, no checks.
// It reads the database vitrine-bench filled.
//
//	node server.mjs --addr 127.0.0.1:8095 --db bench.db
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import { z } from 'zod';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';

const arg = (name) => process.argv[process.argv.indexOf(name) + 1];
const [host, port] = arg('--addr').split(':');
const db = new Database(arg('--db'), { readonly: true });
const lookup = db.prepare(`SELECT id, sku, name, description, price, currency, stock, status, version, created_at, updated_at
  FROM products WHERE tenant_id = ? AND id = ?`);

function newServer() {
  const server = new McpServer({ name: 'ts-bench', version: '1' });
  server.registerTool('get_product', {
    description: 'Get a product by id.',
    inputSchema: { tenant_id: z.string(), id: z.string() },
  }, async ({ tenant_id, id }) => {
    const row = lookup.get(tenant_id, id);
    if (!row) {
      return { isError: true, content: [{ type: 'text', text: '{"error":true,"type":"NotFoundError"}' }] };
    }
    return { content: [{ type: 'text', text: JSON.stringify(row) }], structuredContent: row };
  });
  return server;
}

const transports = new Map();

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      try {
        resolve(chunks.length ? JSON.parse(Buffer.concat(chunks).toString()) : undefined);
      } catch (e) {
        reject(e);
      }
    });
    req.on('error', reject);
  });
}

http.createServer(async (req, res) => {
  if (req.url === '/healthz') {
    res.end('ok\n');
    return;
  }
  try {
    const id = req.headers['mcp-session-id'];
    const body = req.method === 'POST' ? await readBody(req) : undefined;
    let transport = id && transports.get(id);
    if (!transport) {
      if (req.method !== 'POST' || !isInitializeRequest(body)) {
        res.writeHead(400).end('no session');
        return;
      }
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sid) => transports.set(sid, transport),
      });
      transport.onclose = () => transport.sessionId && transports.delete(transport.sessionId);
      await newServer().connect(transport);
    }
    await transport.handleRequest(req, res, body);
  } catch (e) {
    if (!res.headersSent) res.writeHead(500).end(String(e));
  }
}).listen(Number(port), host);
