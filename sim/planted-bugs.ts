/**
 * Bugs planted on purpose, to show the simulator catches what it claims to (test/sim/planted-bugs.test.ts):
 * each rewrites one statement Hush sends, as a careless change to that statement would, and names the
 * invariant that must catch it. Never wired outside the simulator.
 */
import type { Profile } from './traffic.ts';

export interface PlantedBug {
  name: string;
  /** The invariants that catch it (the first one a run reaches reports it). */
  caughtBy: readonly string[];
  /** The faults that reach the code it breaks ('none' when traffic alone does). */
  faults: 'none' | 'all' | 'store';
  /** The traffic that reaches it, when not the suite's steady one. */
  profile?: Profile;
  /** How often its users misbehave in the suite's search (default 1: every user, where most money bugs show first). */
  mischief?: number;
  rewrite(sql: string): string;
}

export const PLANTED_BUGS: Record<string, PlantedBug> = {
  /**
   * The chain check takes every signature of the fee payer's history for one the store knows (its lookup of the
   * store's records answering with what it was asked): a restored store never learns what it forgot, and pays again
   * what the chain shows paid (issue 85).
   */
  'skip-chain-check': {
    name: 'a restored store that never compares itself with the chain',
    // Paid again, or refunded again: whichever the forgotten order had; the pool it paid from then holds less than the books say.
    caughtBy: ['paid exactly once', 'refunded at most once', 'the ledger matches the chain'],
    faults: 'store',
    rewrite: (sql) => (sql.includes('UNION SELECT signature FROM chain_found WHERE signature = ANY($1::text[])') ? 'SELECT unnest($1::text[]) AS signature' : sql),
  },
  /**
   * A sender's own deposits counted as its class's company again (the sender's match dropped from the release's
   * exclusion, and the per-sender counts from the quotes' read): a partner repeating a test send from one wallet
   * is held, and quoted, for the crowd its own earlier sends seem to be (issue 71).
   */
  'count-own-sends': {
    name: "a test send held for its own wallet's earlier sends",
    caughtBy: ['a test send is never held for a crowd', 'a test send is never promised a crowd'],
    faults: 'none',
    profile: 'test-sends',
    rewrite: (sql) => sql.replace('WHERE x.id = ANY($3::bigint[]) AND x.sender = o.sender', 'WHERE x.id = ANY($3::bigint[]) AND x.id = o.id').replace(/THEN sender END AS sender/, 'THEN NULL END AS sender'),
  },
  /**
   * The refund step reads an order without its network fee (a column dropped from the read): a short or
   * over deposit is refunded whole, and Hush pays the network fee out of its own pools.
   */
  'refund-without-fee': {
    name: 'a refund that forgets the network fee',
    // A refund of a wrong deposit, or of late funds beside a payout, sends back more than is owed.
    caughtBy: ['refunded at most once', 'paid or refunded, never both'],
    faults: 'none',
    rewrite: (sql) => (/^SELECT .* FROM orders o WHERE o\.id = \$1$/s.test(sql.trim()) ? sql.replace(/ FROM orders o WHERE o\.id = \$1/, ', 0::numeric AS network_fee FROM orders o WHERE o.id = $1') : sql),
  },
  /**
   * The screening gate's check that an operator's release covers a finding, with its condition dropped:
   * every finding counts as released, so a listed sender's deposit is paid out with no operator's word.
   */
  'release-covers-everything': {
    name: "a payout a blocked screening lets go without an operator's release",
    caughtBy: ['a blocked flow waits for an operator'],
    // Sanctioned senders are refused at their quote; a deposit is held by the provider's outage (policy hold).
    faults: 'all',
    rewrite: (sql) => (sql.includes("r.stage = 'resolution' AND r.result = 'release' AND r.id > h.id") ? 'SELECT 1 WHERE $1::text IS NOT NULL OR $2::text IS NULL OR $3::text IS NULL OR $4::text IS NULL OR $5::text IS NULL OR $6::text IS NULL' : sql),
  },
  /**
   * A freeze's log line written without its approver (the approval's column dropped from the insert): the freeze
   * then stands in the audit log on one person's word.
   */
  'freeze-without-second-operator': {
    name: "a freeze logged on one operator's word",
    caughtBy: ['four eyes'],
    // Holds come from the provider's findings and outages; the simulated desk freezes some of them.
    faults: 'all',
    rewrite: (sql) => (sql.includes("'resolution', 'freeze', $2, $3, $4, now()") ? sql.replace("'resolution', 'freeze', $2, $3, $4, now()", "'resolution', 'freeze', $2, $3, coalesce(NULL, $4::text, NULL) || NULL, now()") : sql),
  },
  /**
   * The deposit recorded as the order's amountIn when it is up to a tenth short (a tolerance someone meant kindly):
   * a short deposit is paid in full, and Hush pays the difference (issue 86).
   */
  'short-deposit-accepted': {
    name: 'a deposit up to a tenth short, accepted and paid in full',
    caughtBy: ['a wrong deposit is refunded'],
    faults: 'none',
    // The batch confirmation (confirm-deposits.ts) writes the deposit the watch read.
    rewrite: (sql) =>
      sql.includes('AS v(id, deposit, due)')
        ? sql.replace(
            /deposit = v\.deposit\b/,
            "deposit = CASE WHEN (v.deposit ->> 'amount')::numeric >= o.amount_in * 0.9 AND (v.deposit ->> 'amount')::numeric < o.amount_in THEN jsonb_set(v.deposit, '{amount}', to_jsonb(o.amount_in::text)) ELSE v.deposit END",
          )
        : sql,
  },
  /**
   * The partner's fee taken again from amountOut as the order is stored: the recipient gets less than its quote said,
   * and the books balance (issue 86).
   */
  'partner-fee-twice': {
    name: "a partner's fee charged twice",
    caughtBy: ['the quote is the contract', 'paid exactly once'],
    faults: 'none',
    rewrite: (sql) => (sql.includes('$8::numeric, $9::numeric,') && sql.includes('$11::numeric') && sql.includes('INSERT INTO orders') ? sql.replace('$8::numeric, $9::numeric,', '$8::numeric, $9::numeric - $11::numeric,') : sql),
  },
  /**
   * A refund's fee legs booked with their signs swapped (what it kept credited to custody, debited from income): the
   * movement still balances, so nothing that only adds the books up sees it (issue 86).
   */
  'refund-fee-sign': {
    name: "a refund's fee legs booked with the wrong sign",
    caughtBy: ["the books are the shadow's"],
    faults: 'none',
    rewrite: (sql) =>
      sql.includes('INSERT INTO ledger_entries') && sql.includes('x.amount, x.order_id,')
        ? sql.replace('x.amount, x.order_id,', "CASE WHEN x.kind = 'fee_income' AND EXISTS (SELECT 1 FROM orders r WHERE r.id = x.order_id AND r.status = 'refunded') THEN -x.amount ELSE x.amount END, x.order_id,")
        : sql,
  },
  /**
   * A release written without some of its members (a filter on the release's rows meant for something else): those
   * are left waiting while their class goes, and are paid alone at their deadline, in no release (issue 86).
   */
  'release-leaves-members-out': {
    name: 'a class release that leaves members out',
    caughtBy: ['every member goes out in a release'],
    faults: 'none',
    // Releases of several members: a crowd of well-behaved users of a few classes. A member left out with two workers
    // is often taken by the other's next pass within a release's span, where no outside reader can tell it apart.
    profile: 'cold-crowd',
    mischief: 0,
    rewrite: (sql) => (sql.includes('AS v(id, at, size))') ? sql.replace('AS v(id, at, size))', 'AS v(id, at, size) WHERE v.id % 3 <> 0)') : sql),
  },
  /**
   * What a partner is owed read as twice its accrued fees (a sign handled twice): its fee recipient is paid double,
   * and the books, which book what was paid, still balance (issue 86).
   */
  'partner-paid-twice': {
    name: "a partner's fees paid out twice",
    caughtBy: ['a partner is paid at most its fees'],
    faults: 'none',
    rewrite: (sql) => (sql.includes("l.account LIKE 'payable:partner:%' GROUP BY l.account, l.asset_id") ? sql.replace('(-sum(l.amount) -', '(-2 * sum(l.amount) -') : sql),
  },
};
