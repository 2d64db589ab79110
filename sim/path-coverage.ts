import type { Db } from '../src/store/db.ts';
import { FAULT_POINTS } from './faults.ts';

/**
 * Every path a seed set must run (issue 86): the faults dealt, by the names the fault plan tallies them under, and
 * what Hush did about them, read where an operator would see it (its transitions as logged, its transactions'
 * records, the chain wire's sends). A set of seeds that leaves one out has not tested it.
 */
export const PATHS = [
  'rpc http',
  'rpc rate_limited',
  'rpc stall',
  'rpc lost',
  'rpc drop',
  'rpc late',
  'rpc stale',
  'store cut before',
  'store cut after',
  ...FAULT_POINTS.map((p) => `crash at ${p}`),
  // A process killed while another of its role goes on (the run's default processes: two APIs, two workers).
  'an API killed beside another',
  'a worker killed beside another',
  'screening outage',
  'resend',
  'expiry',
  're-sign',
  'sweep',
  'refund',
  'late refund',
  'partner payout',
  'order expired',
  'held by screening',
  'operator release',
  'freeze',
] as const;

/** Transitions Hush logged ('order transition'), as the paths they are. */
export function transitionPath(from: unknown, to: unknown): string | null {
  if (to === 'held') return 'held by screening';
  if (to === 'frozen') return 'freeze';
  if (to === 'refunded') return 'refund';
  if (to === 'expired') return 'order expired';
  if (from === 'held' && to !== 'refunding') return 'operator release';
  return null;
}

/** What Hush's transaction records show it did: expiries, parts signed again, sweeps, late refunds, partners paid. */
export async function recordedPaths(db: Db): Promise<Map<string, number>> {
  const { rows } = await db.query<{ expiry: number; resigned: number; sweep: number; late: number; partner: number }>(
    `SELECT count(*) FILTER (WHERE status = 'expired')::int AS expiry,
            count(*) FILTER (WHERE kind = 'partner_payout' AND status = 'confirmed')::int AS partner,
            count(*) FILTER (WHERE kind = 'sweep')::int AS sweep,
            count(*) FILTER (WHERE kind = 'refund' AND meta ? 'lateOf')::int AS late,
            (SELECT count(*)::int FROM (SELECT 1 FROM chain_txs WHERE order_id IS NOT NULL AND kind IN ('payout', 'refund')
                                         GROUP BY order_id, kind, meta ->> 'part', meta ? 'lateOf' HAVING count(*) > 1) parts) AS resigned
       FROM chain_txs`,
  );
  const r = rows[0]!;
  return new Map([
    ['expiry', r.expiry],
    ['re-sign', r.resigned],
    ['sweep', r.sweep],
    ['late refund', r.late],
    ['partner payout', r.partner],
  ]);
}

/** The paths of `seen` that are none of `PATHS`' or that ran zero times: what a seed set left out. */
export function pathsNotRun(seen: ReadonlyMap<string, number>): string[] {
  return PATHS.filter((p) => !((seen.get(p) ?? 0) > 0));
}
