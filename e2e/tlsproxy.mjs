// A local TLS front for Vitrine's shop windows, as a shopping agent meets a
// window at the root of its own host (https://technova.localhost/): an
// HTTP proxy that clients reach through HTTPS_PROXY, which accepts CONNECT
// to *.localhost:443 only (anything else, the internet included, is
// refused), terminates TLS there with a certificate of a throwaway CA made
// by openssl for the hosts named, and forwards each request to Vitrine
// unchanged, Host included. The clients trust the CA through
// NODE_EXTRA_CA_CERTS. It lives in the test harness, not in the product.
import http from 'node:http';
import https from 'node:https';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// makeCA writes a CA and a certificate it signs for hosts, in a new folder.
function makeCA(hosts) {
  const dir = mkdtempSync(join(tmpdir(), 'vitrine-tls-'));
  const p = (f) => join(dir, f);
  const ssl = (...args) => execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  ssl('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', p('ca.key'), '-out', p('ca.pem'),
    '-days', '1', '-subj', '/CN=Vitrine e2e CA', '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign');
  ssl('req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', p('host.key'), '-out', p('host.csr'),
    '-subj', `/CN=${hosts[0]}`);
  writeFileSync(p('ext.cnf'), `subjectAltName=${hosts.map((h) => `DNS:${h}`).join(',')}\nextendedKeyUsage=serverAuth\n`);
  ssl('x509', '-req', '-in', p('host.csr'), '-CA', p('ca.pem'), '-CAkey', p('ca.key'), '-CAcreateserial', '-out', p('host.pem'),
    '-days', '1', '-extfile', p('ext.cnf'));
  return { dir, ca: p('ca.pem'), key: readFileSync(p('host.key')), cert: readFileSync(p('host.pem')) };
}

// startTLSProxy starts the proxy for hosts (*.localhost names); target()
// names Vitrine's origin (http://127.0.0.1:PORT) when a request comes, so
// that the proxy may start before Vitrine. It returns the proxy's URL (for
// HTTPS_PROXY), the CA's file (for NODE_EXTRA_CA_CERTS), the TLS front's
// own port (for a client that dials it: fetchVia) and close.
export async function startTLSProxy(hosts, target) {
  const tls = makeCA(hosts);
  const front = https.createServer({ key: tls.key, cert: tls.cert }, (req, res) => {
    const upstream = new URL(target());
    const out = http.request({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url,
      headers: { ...req.headers, 'x-forwarded-proto': 'https' } }, (up) => {
      res.writeHead(up.statusCode, up.headers);
      up.pipe(res);
    });
    out.on('error', (err) => {
      res.writeHead(502);
      res.end(String(err));
    });
    req.pipe(out);
  });
  const proxy = http.createServer((_, res) => res.writeHead(405).end('CONNECT only\n'));
  proxy.on('connect', (req, socket, head) => {
    const [host, port] = req.url.split(':');
    if (port !== '443' || !hosts.includes(host)) {
      socket.end('HTTP/1.1 403 Forbidden\r\n\r\n');
      return;
    }
    socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    if (head.length) socket.unshift(head);
    front.emit('connection', socket);
  });
  await new Promise((done) => proxy.listen(0, '127.0.0.1', done));
  await new Promise((done) => front.listen(0, '127.0.0.1', done));
  return {
    url: `http://127.0.0.1:${proxy.address().port}`,
    ca: tls.ca,
    port: front.address().port,
    close: () => {
      proxy.close();
      front.close();
      rmSync(tls.dir, { recursive: true, force: true });
    },
  };
}

// fetchVia is a fetch (as the TypeScript SDK's transport takes one) that
// reaches https://{name}.localhost/ at the proxy's TLS front (port),
// trusting its CA, as a browser reaches a host of its own: the URL, the
// Host header and TLS's server name are the host's, whatever port the
// front listens on.
export function fetchVia(ca, port) {
  const agent = new https.Agent({ ca: readFileSync(ca) });
  return (input, init = {}) => new Promise((resolve, reject) => {
    const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
    const headers = { ...Object.fromEntries(new Headers(init.headers ?? {}).entries()), host: url.host };
    const req = https.request({ host: '127.0.0.1', port, servername: url.hostname, path: url.pathname + url.search,
      method: init.method ?? 'GET', headers, agent, signal: init.signal }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const h = new Headers();
        for (const [k, v] of Object.entries(res.headers)) h.set(k, Array.isArray(v) ? v.join(', ') : v);
        const body = [204, 304].includes(res.statusCode) ? null : Buffer.concat(chunks);
        resolve(new Response(body, { status: res.statusCode, headers: h }));
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    if (init.body) req.write(init.body);
    req.end();
  });
}
