/**
 * bench:attack's quiet partner, in a process of its own so that its latencies are the server's, not the load
 * generator's event loop: quotes one at a time every 100 ms for QUIET_S seconds over a keep-alive pool from
 * QUIET_SOURCE, then prints one JSON line with the latencies (ms) of its 200 answers and the other statuses.
 */
import { Agent } from 'node:http';
import { generateKeyPairSigner } from '@solana/kit';
import { exchange } from './attack-clients.ts';

const { QUIET_URL, QUIET_KEY, QUIET_SOURCE, QUIET_S } = process.env as Record<string, string>;
const wallets = await Promise.all(Array.from({ length: 40 }, () => generateKeyPairSigner()));
const agent = new Agent({ keepAlive: true, maxSockets: 1, localAddress: QUIET_SOURCE });
const ms: number[] = [];
const other: number[] = [];
// Two warm-up quotes (the connection, the addresses' screening), not counted.
for (let i = 0; i < 2 + 0; i++) await exchange(`${QUIET_URL}/transfer/v1/quote`, QUIET_SOURCE!, { method: 'POST', headers: { authorization: `Bearer ${QUIET_KEY}` }, body: body(i), agent });
const until = performance.now() + Number(QUIET_S) * 1000;
for (let i = 0; performance.now() < until; i++) {
  const e = await exchange(`${QUIET_URL}/transfer/v1/quote`, QUIET_SOURCE!, { method: 'POST', headers: { authorization: `Bearer ${QUIET_KEY}` }, body: body(i), agent });
  (e.status === 200 ? ms : other).push(e.status === 200 ? e.ms : e.status);
  await new Promise((r) => setTimeout(r, 100));
}
agent.destroy();
console.log(JSON.stringify({ ms, other }));

function body(i: number): string {
  return JSON.stringify({ amount: '5000000', sourceAssetId: 'usdc', destinationAssetId: 'usdc', senderAddress: wallets[i % 40]!.address, recipientAddress: wallets[(i + 1) % 40]!.address });
}
