/**
 * bench:attack's risk provider, in a process of its own: answers every screening call at once ("low") and
 * counts them (GET /calls). In the load generator's process its answers would wait behind the flood's own
 * event loop, and the quiet partner's screened quotes would be charged the attacker's client CPU.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

let calls = 0;
const server = createServer((req, res) => {
  if (req.url === '/calls') return res.writeHead(200, { 'content-type': 'application/json' }).end(String(calls));
  calls++;
  res.writeHead(200, { 'content-type': 'application/json' }).end('{"risk":"low","blocked":false}');
});
server.listen(0, '127.0.0.1', () => console.log(`risk provider at http://127.0.0.1:${(server.address() as AddressInfo).port}`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
