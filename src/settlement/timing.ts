/**
 * Polls are fallbacks where a faster signal exists: the deposit watch wakes an order whose deposit became
 * visible, and settling a payout or refund wakes its order. Each poll costs a claim and a release.
 */
export const AWAITING_POLL_SLOTS = 4;
export const SETTLE_FALLBACK_SLOTS = 4;
/** Orders claimed per batch, and batches stepped at once. */
export const ORDER_BATCH = 64;
export const ORDER_BATCHES_IN_FLIGHT = 4;
/** Payouts planned and recorded together (one read of pending outflows and pool balances, one statement, one send). */
export const PAYOUT_BATCH = 256;
/** A payout due within this long of its deposit's confirmation (the floor) is signed while it waits. */
export const PRESIGN_AHEAD_MS = 5_000;
/** A payout signed ahead is dropped unused after this long (its order was held, refunded, or paid by another worker). */
export const PRESIGNED_TTL_MS = 30_000;
/** A presign chooses its pools against the last batch's reads when they are at most this old (checked again at use). */
export const PRESIGN_READS_MAX_AGE_MS = 5_000;
/** How long a starting worker leaves the watchdog off while it catches up on orders due during an outage. */
export const WATCHDOG_START_GRACE_MS = 10 * 60_000;
/** A settle-loop resend waits this long after the last send of the same signature. */
export const RESEND_EVERY_MS = 2000;
/** Sweeps wait this many slots after the deposit watch last confirmed deposits. */
export const SWEEP_QUIET_SLOTS = 4;
/** How long a verdict "funded by someone else" stands while the balance stays the same (an RPC's history can lag its accounts). */
export const FOREIGN_RECHECK_MS = 15_000;
/** How often the receipt signer passes while orders wait for their receipt. */
export const RECEIPT_PASS_MS = 1_000;
/** Share of the request budget (HUSH_RPC_MAX_RPS) one fallback poll may spend while the socket is down. */
const FALLBACK_POLL_BUDGET_SHARE = 0.2;

/** Calls one sweep batch makes: its balances, a blockhash, the send. */
const SWEEP_CALLS_PER_BATCH = 3;
/** Batches of one asset a sweep tick sends at most while they come back full. */
const SWEEP_BATCHES_PER_TICK_MAX = 16;

/**
 * Batches of one asset a sweep tick may send: 16, or under a request budget as many as the fallback share
 * of the calls one tick interval allows (at least one), so a backlog being swept never crowds the payouts
 * out of the budget.
 */
export function sweepBatchesPerTick(maxRps: number, intervalMs: number): number {
  if (maxRps <= 0) return SWEEP_BATCHES_PER_TICK_MAX;
  const calls = (maxRps * FALLBACK_POLL_BUDGET_SHARE * intervalMs) / 1000;
  return Math.max(1, Math.min(SWEEP_BATCHES_PER_TICK_MAX, Math.floor(calls / SWEEP_CALLS_PER_BATCH)));
}

/** A poll's interval: `minMs`, or longer, so that it never spends more than its share of the request budget. */
export function budgetedPollMs(minMs: number, maxRps: number): number {
  return maxRps > 0 ? Math.max(minMs, Math.ceil(1000 / (maxRps * FALLBACK_POLL_BUDGET_SHARE))) : minMs;
}

/**
 * How often a fallback poll (the slot, watched accounts, signature statuses) may run while the PubSub
 * socket is down: four times a slot, but never more than its share of the request budget.
 */
export function fallbackPollMs(slotMs: number, maxRps: number): number {
  return budgetedPollMs(Math.max(20, Math.floor(slotMs / 4)), maxRps);
}
