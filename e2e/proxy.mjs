// A header-adding proxy for the MCP conformance suite, which sends no
// credentials: it forwards every request to Vitrine unchanged (Host
// included, so that DNS-rebinding protection is tested for real), adding
// only "Authorization: Bearer <token>". It lives in the test harness, not
// in the product: Vitrine itself never serves a request without a token.
import http from 'node:http';

export function startProxy(target, token) {
  const upstream = new URL(target);
  const server = http.createServer((req, res) => {
    const headers = { ...req.headers, authorization: `Bearer ${token}` };
    const out = http.request(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers },
      (up) => {
        res.writeHead(up.statusCode, up.headers);
        up.pipe(res);
      },
    );
    out.on('error', (err) => {
      res.writeHead(502);
      res.end(String(err));
    });
    req.pipe(out);
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => resolve({ url: `http://127.0.0.1:${server.address().port}`, close: () => server.close() }));
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [target, token] = process.argv.slice(2);
  const p = await startProxy(target, token);
  console.log(p.url);
}
