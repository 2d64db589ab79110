/**
 * bench:chain-check — the chain check's start-up scan (docs/decisions.md "The fee payer's history is the store's
 * high-water mark"), over a fee payer with BENCH_HISTORY (10,000) transactions of Hush's, each with its sealed
 * record, on the local chain behind JSON-RPC (a separate server, as a deployment reads its RPC):
 *   - listing: the whole history read past no watermark (what a store upgraded without one, or a store whose
 *     transactions are all known, costs: no transaction is read);
 *   - lost store: every transaction unknown, read (getTransaction, batched 100 a request) and its record opened.
 * Prints the time and the RPC calls of each, per 1,000 transactions of history.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getTransferSolInstruction } from '@solana-program/system';
import { ChainView } from '../src/chain/chain-view.ts';
import { historySince, readTransactions } from '../src/chain/hush-history.ts';
import { memoInstruction, signWithKit, txShape, withComputeBudget } from '../src/chain/hush-transactions.ts';
import { SolanaChain } from '../src/chain/solana-chain.ts';
import { startLocalnet } from '../src/localnet/start-localnet.ts';
import { systemClock } from '../src/support/clock.ts';
import { systemRandom } from '../src/support/random.ts';
import { openRecord, sealRecord } from '../src/treasury/record-cipher.ts';
import { TreasuryKeys } from '../src/treasury/treasury-keys.ts';

const N = Number(process.env.BENCH_HISTORY ?? 10_000);
const dir = mkdtempSync(join(tmpdir(), 'hush-bench-check-'));
const localnet = await startLocalnet({ host: '127.0.0.1', port: 0, wsPort: 0, slotMs: 100, dataDir: dir }, systemClock, systemRandom);
try {
  const chain = new SolanaChain(localnet.url, systemClock, 100);
  const view = new ChainView(chain);
  const keys = new TreasuryKeys(systemRandom.bytes(32));
  const feePayer = await TreasuryKeys.signer(keys.feePayerSeed());
  const recipient = await TreasuryKeys.signer(systemRandom.bytes(32));
  await chain.rpc.requestAirdrop(feePayer.address, 1_000_000_000_000n as never).send();
  await new Promise((r) => setTimeout(r, 1_000));
  const made = performance.now();
  let sent = 0;
  while (sent < N) {
    const blockhash = await chain.latestBlockhash();
    const wires: string[] = [];
    for (let i = 0; i < 500 && sent + wires.length < N; i++) {
      const n = sent + wires.length;
      const shape = txShape(feePayer, { computeUnitLimit: 10_000, computeUnitPriceMicroLamports: 0n }, blockhash);
      const memo = sealRecord(keys.recordKey, { kind: 'payout', trackingId: `trk_${String(n).padStart(22, '1')}`, part: 0, accountId: 'acc_bench' }, systemRandom);
      const tx = await signWithKit(shape, withComputeBudget(shape, [getTransferSolInstruction({ source: feePayer, destination: recipient.address, amount: 1_000_000n + BigInt(n) }), memoInstruction(memo)]));
      wires.push(tx.wire);
    }
    const out = await view.sendMany(wires);
    if (process.env.BENCH_DEBUG) console.error('# sent', sent, out.slice(0, 2));
    sent += wires.length;
  }
  // Confirmed: the last of them visible in the history at `confirmed`.
  for (;;) {
    const page = await view.signaturePage(feePayer.address, { limit: 1 });
    const count = (await historySince(view, feePayer.address, null)).length;
    if (page.length > 0 && count >= N) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  console.log(`# ${N} transactions of Hush's made and confirmed in ${((performance.now() - made) / 1000).toFixed(1)} s`);

  let t = performance.now();
  const history = await historySince(view, feePayer.address, null);
  const listMs = performance.now() - t;
  const pages = Math.floor(history.length / 1000) + 1;
  t = performance.now();
  const txs = await readTransactions(view, history.map((h) => h.signature));
  let opened = 0;
  for (const tx of txs) if (tx.memo && openRecord(keys.recordKey, tx.memo)) opened++;
  const readMs = performance.now() - t;
  const per = (ms: number) => ((ms / history.length) * 1000).toFixed(0);
  console.log(`listing ${history.length} signatures: ${(listMs / 1000).toFixed(2)} s (${per(listMs)} ms per 1,000), ${pages} getSignaturesForAddress calls`);
  console.log(`lost store, every one read and opened: ${(readMs / 1000).toFixed(2)} s (${per(readMs)} ms per 1,000), ${history.length} getTransaction calls in ${Math.ceil(history.length / 100)} requests; ${opened} records opened`);
  console.log(`idle: 1 getSignaturesForAddress per 30 s per worker (0.033/s) plus the fee payer's balance (0.033/s); an order's transactions cost the check nothing (recorded before sent, so known)`);
  // The airdrop that funded the fee payer is in its history too (someone else's transaction: no record).
  if (opened !== N) throw new Error(`opened ${opened} of ${N}`);
} finally {
  await localnet.close();
  rmSync(dir, { recursive: true, force: true });
}
