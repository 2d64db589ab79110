/**
 * bench:settlement's second phase: one class release. `size` orders of one amount on the menu (a private
 * amount), each quote carrying the partner's choice `privacy: { minAnonymitySet: size }`, so the class waits
 * for all of them whatever its traffic estimate (docs/spec.md §9); deposits sent at once. Measured: release
 * decided (orders.class_released_at, the release pass's transaction time in the store) → the last payout
 * of the release seen confirmed by this process, which polls getSignatureStatuses for every payout
 * signature the store has recorded (read from the side endpoint) every POLL_MS, and reports the longest
 * gap between two such polls as the reading's resolution.
 */
import { rawSignatureStatuses } from './chain-calls.ts';
import { sleep } from './processes.ts';
import { since, type RpcCounts } from './rpc-cost.ts';
import { api, hushCpuMicros, payoutRows, placeOrders, pool, progress, submitDeposits, type StatusRecord } from './settlement-bench-client.ts';
import { landedSlots, wallets, type RunSetup } from './settlement-off-menu-run.ts';

export interface ClassRun {
  size: number;
  /** Distinct release decisions the class's orders were released by (1: all went together). */
  decisions: number;
  /** ms: the last deposit first seen at `confirmed` → the release decision. */
  lastDepositToDecisionMs: number;
  /** ms from the decision: the last payout first seen on the chain (any commitment), and seen `confirmed`. */
  lastLandedMs: number;
  lastConfirmedMs: number;
  /** ms from the decision: each payout's due time drawn in the spread. */
  dueMs: number[];
  /** The status record's privacy.releasedWith of each order. */
  releasedWith: (number | null)[];
  /** Slots from each deposit landing to its payout landing (the hold and the spread included). */
  slots: number[];
  /** The longest gap between two polls of the payouts' statuses while one was unconfirmed: the reading's resolution. */
  resolutionMs: number;
  seconds: number;
  cpuMs: number;
  rpc: RpcCounts;
  rpcSeconds: number;
}

/** `completedBefore`: orders already completed in the store by the earlier phase. */
export async function classRun(s: RunSetup, completedBefore: number): Promise<ClassRun> {
  const { chainUrl, rpc, info, proxy, orders: size, pollMs } = s;
  const people = await wallets(s, size, s.amount);

  const rpcAtStart = await proxy.counts();
  const rpcT0 = performance.now();
  const deposits = await placeOrders(info, people, { amount: s.amount, assetId: s.asset.assetId, privacy: { minAnonymitySet: size } });
  const ours = new Set(deposits.map((d) => d.trackingId));
  await sleep(2 * s.slotMs);

  const cpu0 = await hushCpuMicros(info);
  const t0 = Date.now();
  await submitDeposits(chainUrl, deposits);

  const depositSlot = new Map<string, number>();
  let lastDepositVisible = 0;
  let pendingDeposits = deposits.map((d) => d.signature);
  const byTracking = new Map(deposits.map((d) => [d.signature, d.trackingId]));
  // Payout signatures of this class as the store records them (record-before-send), and when this process
  // first saw each on the chain, at any commitment and at `confirmed`.
  const watched = new Set<string>();
  const landedSeen = new Map<string, number>();
  const confirmedSeen = new Map<string, number>();
  let lastRows = 0;
  let lastProgress = 0;
  let lastPayoutPoll = 0;
  let resolutionMs = 0;
  let finalSigs: string[] | null = null;
  for (;;) {
    if (Date.now() - t0 > s.timeoutMs) throw new Error('timed out waiting for the class release to complete');
    if (pendingDeposits.length > 0) {
      const value = await rawSignatureStatuses(chainUrl, pendingDeposits);
      const now = Date.now();
      pendingDeposits = pendingDeposits.filter((sig, i) => {
        const st = value[i];
        if (st?.err) throw new Error(`deposit ${sig} failed: ${JSON.stringify(st.err)}`);
        if (!st || st.confirmationStatus === 'processed') return true;
        lastDepositVisible = now;
        depositSlot.set(byTracking.get(sig)!, Number(st.slot));
        return false;
      });
    }
    // New payouts are read every 25 ms: a payout is recorded before it is sent, and lands a slot later at the earliest.
    if (Date.now() - lastRows >= 25) {
      lastRows = Date.now();
      for (const r of await payoutRows(info)) if (ours.has(r.trackingId)) watched.add(r.signature);
    }
    const unconfirmed = [...watched].filter((sig) => !confirmedSeen.has(sig));
    if (unconfirmed.length > 0) {
      const value = await rawSignatureStatuses(chainUrl, unconfirmed);
      const now = Date.now();
      if (lastPayoutPoll > 0) resolutionMs = Math.max(resolutionMs, now - lastPayoutPoll);
      lastPayoutPoll = now;
      unconfirmed.forEach((sig, i) => {
        const st = value[i];
        if (!st || st.err) return;
        if (!landedSeen.has(sig)) landedSeen.set(sig, now);
        if (st.confirmationStatus !== 'processed') confirmedSeen.set(sig, now);
      });
    } else lastPayoutPoll = 0;
    if (Date.now() - lastProgress >= 100) {
      lastProgress = Date.now();
      if (!finalSigs && ((await progress(info)).completed ?? 0) >= completedBefore + size) {
        // Completed: the payouts that count are those the status records name (a replaced part never lands).
        // releasedWith is counted once the release's last payout has landed (issue 54): read until it is, 10 s at most.
  const statuses = await pool(size, 8, async (i) => {
    for (let tries = 0; ; tries++) {
      const st = (await api<{ order: StatusRecord }>(info, 'GET', `/status/${deposits[i]!.trackingId}`)).order;
      if (st.privacy.releasedWith !== null || tries >= 50) return st;
      await sleep(200);
    }
  });
        finalSigs = statuses.flatMap((st) => st.payouts.map((p) => p.signature));
        for (const sig of finalSigs) watched.add(sig);
      }
      if (finalSigs && finalSigs.every((sig) => confirmedSeen.has(sig))) break;
    }
    await sleep(pollMs);
  }

  const rpcCalls = since(await proxy.counts(), rpcAtStart);
  const rpcSeconds = (performance.now() - rpcT0) / 1000;
  const cpuMs = ((await hushCpuMicros(info)) - cpu0) / 1000;
  // releasedWith is counted once the release's last payout has landed (issue 54): read until it is, 10 s at most.
  const statuses = await pool(size, 8, async (i) => {
    for (let tries = 0; ; tries++) {
      const st = (await api<{ order: StatusRecord }>(info, 'GET', `/status/${deposits[i]!.trackingId}`)).order;
      if (st.privacy.releasedWith !== null || tries >= 50) return st;
      await sleep(200);
    }
  });
  const releases = ((await (await fetch(`${info.sideUrl}/releases`)).json()) as { trackingId: string; decidedAt: string; dueAt: string }[]).filter((r) =>
    ours.has(r.trackingId),
  );
  if (releases.length !== size) throw new Error(`${releases.length} of ${size} orders were released by a class release`);
  const decidedAt = Math.min(...releases.map((r) => Date.parse(r.decidedAt)));
  const payoutSlot = await landedSlots(rpc, statuses);
  const last = (seen: Map<string, number>) => Math.max(...finalSigs!.map((sig) => seen.get(sig)!));
  const completedAt = statuses.map((st) => Date.parse(st.history.find((h) => h.status === 'completed')!.at));
  return {
    size,
    decisions: new Set(releases.map((r) => r.decidedAt)).size,
    lastDepositToDecisionMs: decidedAt - lastDepositVisible,
    lastLandedMs: last(landedSeen) - decidedAt,
    lastConfirmedMs: last(confirmedSeen) - decidedAt,
    dueMs: releases.map((r) => Date.parse(r.dueAt) - decidedAt),
    releasedWith: statuses.map((st) => st.privacy.releasedWith),
    slots: statuses.map((st) => payoutSlot.get(st.trackingId)! - depositSlot.get(st.trackingId)!),
    resolutionMs,
    seconds: (Math.max(...completedAt) - t0) / 1000,
    cpuMs,
    rpc: rpcCalls,
    rpcSeconds,
  };
}
