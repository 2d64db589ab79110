/**
 * The counting JSON-RPC proxy of the benches, in a process of its own (RPC_TARGET = the chain's JSON-RPC
 * URL): in the bench's process it would share an event loop with the stopwatch or the load generator and
 * skew both. A side server answers GET /counts (calls by method, HTTP requests) and POST /reset. Prints
 * one JSON line with both addresses.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startRpcFaultProxy } from '../../src/localnet/rpc-fault-proxy.ts';
import { systemClock } from '../../src/support/clock.ts';
import { systemRandom } from '../../src/support/random.ts';

const proxy = await startRpcFaultProxy(process.env.RPC_TARGET!, systemClock, systemRandom);
const side = createServer((req, res) => {
  if (req.method === 'POST' && req.url === '/reset') proxy.reset();
  else if (req.url !== '/counts') return void res.writeHead(404).end();
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ calls: Object.fromEntries(proxy.counts), httpRequests: proxy.httpRequests() }));
});
await new Promise<void>((resolve) => side.listen(0, '127.0.0.1', resolve));
console.log(JSON.stringify({ url: proxy.url, sideUrl: `http://127.0.0.1:${(side.address() as AddressInfo).port}` }));

process.on('SIGTERM', async () => {
  side.close();
  await proxy.close();
  process.exit(0);
});
