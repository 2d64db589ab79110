/**
 * bench:settlement's first phase: a burst of orders of an amount off the menu (not private: paid at the
 * policy's floor, two slots after the deposit confirms, by the order loop), deposits sent at once; the run
 * ends when every order is `completed`. What each figure means is in bench/settlement-throughput.ts.
 */
import { generateKeyPairSigner, type Signature } from '@solana/kit';
import type { Asset } from '../../src/config/assets.ts';
import { fund, rawSignatureStatuses, type Rpc } from './chain-calls.ts';
import { sleep } from './processes.ts';
import { since, type RpcCounts, type RpcProxy } from './rpc-cost.ts';
import { api, hushCpuMicros, payoutRows, placeOrders, pool, progress, submitDeposits, type BenchInfo, type StatusRecord } from './settlement-bench-client.ts';

export interface OffMenuRun {
  seconds: number;
  perSecond: number;
  slots: number[];
  msFromVisible: number[];
  msFromRecorded: number[];
  overheadMs: number[];
  /** Payout due (the floor: two slots after the deposit's recorded confirmation) → payout recorded, i.e. sent next (ms). */
  dueToSentMs: number[];
  /** Where the time goes, per order: consecutive phases (ms). */
  phases: [string, number[]][];
  splitOrders: number;
  /** Orders with more than one landed payout of the same part (never: exactly once). */
  paidTwice: number;
  /** Orders whose status record says standard (private): 0 for an amount off the menu. */
  standard: number;
  /** CPU time the Hush process used from deposit submission to the last completion (all cores). */
  cpuMs: number;
  /** Hush's RPC calls from the first quote to the last completion, and how long that was. */
  rpc: RpcCounts;
  rpcSeconds: number;
}

export interface RunSetup {
  chainUrl: string;
  rpc: Rpc;
  info: BenchInfo;
  proxy: RpcProxy;
  asset: Asset;
  orders: number;
  amount: bigint;
  slotMs: number;
  pollMs: number;
  timeoutMs: number;
}

/** Funded senders and fresh recipients: SOL for fees (and twice the amount for SOL sends), twice the amount in tokens. */
export async function wallets(s: Pick<RunSetup, 'chainUrl' | 'rpc' | 'asset'>, n: number, amount: bigint) {
  const senders = await Promise.all(Array.from({ length: n }, () => generateKeyPairSigner()));
  const recipients = await Promise.all(Array.from({ length: n }, () => generateKeyPairSigner()));
  const lamports = 1_000_000_000n + (s.asset.native ? 2n * amount : 0n);
  await fund(s.chainUrl, s.rpc, s.asset, senders.map((w) => ({ address: w.address, lamports, tokens: 2n * amount })));
  return { senders, recipients };
}

export async function offMenuRun(s: RunSetup): Promise<OffMenuRun> {
  const { chainUrl, rpc, info, proxy, orders: ORDERS, slotMs: SLOT_MS, pollMs: POLL_MS } = s;
  const people = await wallets(s, ORDERS, s.amount);

  const rpcAtStart = await proxy.counts();
  const rpcT0 = performance.now();
  // Every deposit signed before the clock starts (the sender's wallet, not Hush, does this).
  const deposits = await placeOrders(info, people, { amount: s.amount, assetId: s.asset.assetId });
  // Let the worker see every new order once (steady state: it is watching 200 empty deposit accounts).
  await sleep(2 * SLOT_MS);

  const depositSlot = new Map<string, number>();
  const visibleAt = new Map<string, number>();
  if (process.env.BENCH_PROFILE) await fetch(`${info.sideUrl}/profile/start`);
  if (process.env.BENCH_SQL_STATS) await fetch(`${info.sideUrl}/sql/start`);
  const cpu0 = await hushCpuMicros(info);
  const t0 = Date.now();
  if (process.env.HUSH_TRACE) console.error(`[bench] ${t0} deposits submitted`);
  await submitDeposits(chainUrl, deposits);

  // Watch: each deposit until it is confirmed (tight), and Hush's progress (cheap, every 100 ms).
  let pending = deposits.map((d) => d.signature);
  const byTracking = new Map(deposits.map((d) => [d.signature, d.trackingId]));
  let lastProgress = 0;
  for (;;) {
    if (Date.now() - t0 > s.timeoutMs) throw new Error('timed out waiting for the off-menu orders to complete');
    if (pending.length > 0) {
      // Plain JSON-RPC, not kit: kit's response transform (bigint upcasting of every status) costs ~4 ms of
      // CPU per poll of 200 statuses, every POLL_MS, on a 2-core machine shared with the very process whose
      // overhead is being measured.
      const value = await rawSignatureStatuses(chainUrl, pending);
      const now = Date.now();
      pending = pending.filter((sig, i) => {
        const st = value[i];
        if (st?.err) throw new Error(`deposit ${sig} failed: ${JSON.stringify(st.err)}`);
        if (!st || st.confirmationStatus === 'processed') return true;
        if (process.env.HUSH_TRACE && visibleAt.size === 0) console.error(`[bench] ${now} first visible`);
        visibleAt.set(byTracking.get(sig)!, now);
        depositSlot.set(byTracking.get(sig)!, Number(st.slot));
        return false;
      });
    }
    if (Date.now() - lastProgress >= 100) {
      lastProgress = Date.now();
      if (((await progress(info)).completed ?? 0) >= ORDERS) break;
    }
    await sleep(pending.length > 0 ? POLL_MS : 50);
  }

  const rpcCalls = since(await proxy.counts(), rpcAtStart);
  const rpcSeconds = (performance.now() - rpcT0) / 1000;
  const cpuMs = ((await hushCpuMicros(info)) - cpu0) / 1000;
  if (process.env.BENCH_SQL_STATS) console.log(`Hush's statements during (a), by total time:\n${((await (await fetch(`${info.sideUrl}/sql/stop`)).json()) as { lines: string[] }).lines.join('\n')}`);
  if (process.env.BENCH_PROFILE) console.log(`Hush CPU profile of the run: ${((await (await fetch(`${info.sideUrl}/profile/stop`)).json()) as { file: string }).file}`);
  // After the run: what Hush recorded, and where the payouts landed.
  const statuses = await pool(ORDERS, 16, async (i) => (await api<{ order: StatusRecord }>(info, 'GET', `/status/${deposits[i]!.trackingId}`)).order);
  const firstRecorded = new Map<string, number>();
  const lastSettled = new Map<string, number>();
  const dueAt = new Map<string, number>();
  const landedParts = new Map<string, number>();
  const rows = await payoutRows(info);
  for (const r of rows) if (r.status === 'confirmed') landedParts.set(`${r.trackingId}/${r.part}`, (landedParts.get(`${r.trackingId}/${r.part}`) ?? 0) + 1);
  for (const r of rows) {
    if (!firstRecorded.has(r.trackingId)) firstRecorded.set(r.trackingId, Date.parse(r.createdAt));
    if (r.dueAt) dueAt.set(r.trackingId, Date.parse(r.dueAt));
    if (r.status === 'confirmed') lastSettled.set(r.trackingId, Math.max(lastSettled.get(r.trackingId) ?? 0, Date.parse(r.settledAt)));
  }
  const payoutSlot = await landedSlots(rpc, statuses);

  const at = (st: StatusRecord, status: string) => Date.parse(st.history.find((h) => h.status === status)!.at);
  const completedAt = statuses.map((st) => at(st, 'completed'));
  const seconds = (Math.max(...completedAt) - t0) / 1000;
  return {
    seconds,
    perSecond: ORDERS / seconds,
    slots: statuses.map((st) => payoutSlot.get(st.trackingId)! - depositSlot.get(st.trackingId)!),
    msFromVisible: statuses.map((st) => at(st, 'completed') - visibleAt.get(st.trackingId)!),
    msFromRecorded: statuses.map((st) => at(st, 'completed') - at(st, 'deposit_confirmed')),
    overheadMs: statuses.map((st) => firstRecorded.get(st.trackingId)! - visibleAt.get(st.trackingId)!),
    dueToSentMs: statuses.map((st) => firstRecorded.get(st.trackingId)! - dueAt.get(st.trackingId)!),
    phases: [
      ['deposit visible → deposit_confirmed recorded', statuses.map((st) => at(st, 'deposit_confirmed') - visibleAt.get(st.trackingId)!)],
      ['deposit_confirmed → payout due (the floor)', statuses.map((st) => dueAt.get(st.trackingId)! - at(st, 'deposit_confirmed'))],
      ['payout due → payout recorded (sent next)', statuses.map((st) => firstRecorded.get(st.trackingId)! - dueAt.get(st.trackingId)!)],
      ['payout recorded → seen confirmed and settled', statuses.map((st) => lastSettled.get(st.trackingId)! - firstRecorded.get(st.trackingId)!)],
      ['payout settled → order completed', statuses.map((st) => at(st, 'completed') - lastSettled.get(st.trackingId)!)],
    ],
    splitOrders: statuses.filter((st) => st.payouts.length > 1).length,
    paidTwice: new Set([...landedParts].filter(([, n]) => n > 1).map(([k]) => k.split('/')[0])).size,
    standard: statuses.filter((st) => st.privacy.standard).length,
    cpuMs,
    rpc: rpcCalls,
    rpcSeconds,
  };
}

/** The slot each order's payout landed in (several parts: the latest), from the chain's signature statuses. */
export async function landedSlots(rpc: Rpc, statuses: StatusRecord[]): Promise<Map<string, number>> {
  const payoutSigs = statuses.flatMap((st) => st.payouts.map((p) => ({ trackingId: st.trackingId, signature: p.signature })));
  const payoutSlot = new Map<string, number>();
  for (let i = 0; i < payoutSigs.length; i += 256) {
    const chunk = payoutSigs.slice(i, i + 256);
    const { value } = await rpc.getSignatureStatuses(chunk.map((p) => p.signature as Signature), { searchTransactionHistory: true }).send();
    value.forEach((st, j) => {
      const t = chunk[j]!.trackingId;
      if (!st) throw new Error(`payout ${chunk[j]!.signature} not found on chain`);
      payoutSlot.set(t, Math.max(payoutSlot.get(t) ?? 0, Number(st.slot)));
    });
  }
  return payoutSlot;
}
