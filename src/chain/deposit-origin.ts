import { aboveWrappedSolReserve } from '../domain/reserves.ts';
import type { ChainView } from './chain-view.ts';
import { FIRST_SIGNATURE_LOOKBACK } from './solana-chain.ts';
import type { Clock } from '../support/clock.ts';

/** The order's own deposit: the transaction of its sender that funded the deposit account, and what it put there. */
export interface DepositOrigin {
  signature: string;
  amount: bigint;
  /** docs/spec.md §12, the deposit's source: every signer, and the owner of every token account it debited (payersOf). */
  payers: string[];
}

/** An order's deposit account and whose transaction may fund it. */
export interface OriginQuery {
  account: string;
  sender: string;
  /** Wrapped SOL: counted by lamports above the rent reserve, as the worker reads the account. */
  native: boolean;
}

/** A landed transaction as plain JSON or kit's client gives it (kit: bigint lamports, readonly lists). */
type JudgedTransaction = {
  transaction: { message: { accountKeys: readonly string[]; header: { numRequiredSignatures: number | bigint } } };
  meta: {
    err: unknown;
    preBalances: readonly (number | bigint)[];
    postBalances: readonly (number | bigint)[];
    preTokenBalances?: readonly { accountIndex: number; owner?: string; uiTokenAmount: { amount: string } }[] | null;
    postTokenBalances?: readonly { accountIndex: number; owner?: string; uiTokenAmount: { amount: string } }[] | null;
    loadedAddresses?: { writable: readonly string[]; readonly: readonly string[] } | null;
  } | null;
};

/** What one landed transaction did to one deposit account: signed by the order's sender or not, and what it added. */
interface Verdict {
  bySender: boolean;
  payers: string[];
  credited: bigint;
  /** The account held nothing (as counted) before it: no transaction before it had added anything. */
  fromEmpty: boolean;
}

/** Transactions of one account's history looked at per lookup, oldest first: each costs a getTransaction once (memoized). */
const MAX_CANDIDATES = 6;
const MEMO_MAX = 20_000;
/** Signatures noted per account (a deposit account sees one or two transactions). */
const SEEN_PER_ACCOUNT = 4;
/**
 * How long a noted transaction may stay not visible at `confirmed` (a lookup can run as it lands, and an
 * RPC's index can lag its accounts) before it is dropped as a dropped fork's and the history decides.
 */
const SEEN_PENDING_MS = 5_000;

/** Lamports as plain JSON (numbers) or kit (bigints) give them; null when a number is beyond exact. */
const exact = (v: number | bigint | undefined): bigint | null => (typeof v === 'bigint' ? v : Number.isSafeInteger(v ?? 0) ? BigInt(v ?? 0) : null);

/**
 * What `tx` did to `q.account`: whether the order's sender signed it (only the sender can: a third party
 * cannot forge its signature) and how much it added to the account's token amount (wrapped SOL: above the
 * reserve, so SOL someone left at the bare address before the account existed is not the sender's). Null
 * when the transaction failed or a figure is beyond exact JSON numbers.
 */
/**
 * docs/spec.md §12: where a transaction's funds come from — every address that signed it, and the owner of
 * every token account it debited (a delegate can move a wallet's tokens with that wallet's signature absent:
 * issue 49's payer was a co-signer, and could as well have been an approving owner). Each is screened.
 */
export function payersOf(tx: JudgedTransaction): string[] {
  const message = tx.transaction.message;
  const out = new Set(message.accountKeys.slice(0, Number(message.header.numRequiredSignatures)));
  const pre = tx.meta?.preTokenBalances ?? [];
  for (const p of pre) {
    const post = tx.meta?.postTokenBalances?.find((b) => b.accountIndex === p.accountIndex)?.uiTokenAmount.amount ?? '0';
    if (p.owner && BigInt(post) < BigInt(p.uiTokenAmount.amount)) out.add(p.owner);
  }
  return [...out];
}

function verdictOf(tx: JudgedTransaction, q: OriginQuery): Verdict | null {
  const meta = tx.meta;
  if (!meta || meta.err) return null;
  const message = tx.transaction.message;
  const keys = [...message.accountKeys, ...(meta.loadedAddresses?.writable ?? []), ...(meta.loadedAddresses?.readonly ?? [])];
  const bySender = message.accountKeys.slice(0, Number(message.header.numRequiredSignatures)).includes(q.sender);
  const payers = payersOf(tx);
  const i = keys.indexOf(q.account);
  if (i < 0) return { bySender, payers, credited: 0n, fromEmpty: false };
  if (q.native) {
    const pre = exact(meta.preBalances[i]);
    const post = exact(meta.postBalances[i]);
    if (pre === null || post === null) return null;
    const before = aboveWrappedSolReserve(pre);
    return { bySender, payers, credited: aboveWrappedSolReserve(post) - before, fromEmpty: before === 0n };
  }
  const amount = (list: typeof meta.postTokenBalances) => BigInt(list?.find((b) => b.accountIndex === i)?.uiTokenAmount.amount ?? '0');
  const before = amount(meta.preTokenBalances);
  return { bySender, payers, credited: amount(meta.postTokenBalances) - before, fromEmpty: before === 0n };
}

/** The chain reads a lookup makes; a request's lookup passes a view in its own lane (src/chain/rpc-lane.ts). */
export type OriginReads = Pick<ChainView, 'signatureHistories' | 'transactionsMany'>;

/** A verdict's memo key: one transaction as seen from one order's deposit account. */
const key = (signature: string, q: OriginQuery) => `${signature}:${q.account}:${q.sender}`;

/**
 * Finds each order's own deposit (docs/spec.md §5, "Whose deposit"): the oldest successful transaction
 * signed by the order's sender that added to the account. Anyone can create an order's deposit account
 * first or send to it (its address is in the unsigned transaction); what they put there is never the
 * deposit. A transaction already noted for the account (saw: PubSub told of it as it landed) is read
 * first: if the sender signed it, it added to the account, and the account held nothing before it, it is
 * the oldest funding of all (nothing leaves a deposit account while its order awaits the deposit: only
 * Hush, its owner, can take funds out), so one getTransaction settles it. Otherwise the account's history:
 * one getSignaturesForAddress, then a getTransaction per transaction not yet judged. Verdicts are memoized
 * by signature and account, so a front-run account is not read again each time it is looked at.
 */
export class DepositOrigins {
  private readonly memo = new Map<string, Verdict | null>();
  /** Successful transactions seen mentioning a deposit account, by account (hints: each is judged before use). */
  private readonly seen = new Map<string, { sig: string; at: number }[]>();

  constructor(
    /** The reads of a lookup that names none (the worker's, in the settlement lane). */
    private readonly view: () => OriginReads,
    /** When a transaction was noted (the memo of sightings ages by it). */
    private readonly clock: Pick<Clock, 'now'>,
  ) {}

  /** Notes a successful transaction that mentions `account` (its deposit, likely), so a lookup can skip the history read. */
  saw(account: string, signature: string): void {
    const list = this.seen.get(account) ?? [];
    if (list.some((s) => s.sig === signature) || list.length >= SEEN_PER_ACCOUNT) return;
    if (list.length === 0 && this.seen.size >= MEMO_MAX) this.seen.delete(this.seen.keys().next().value!);
    this.seen.set(account, [...list, { sig: signature, at: this.clock.now() }]);
  }

  /** Drops what was noted for accounts no longer watched. */
  forget(account: string): void {
    this.seen.delete(account);
  }

  /**
   * By account: the origin; null when the account's listed transactions are judged and none of them is
   * the sender's funding (as yet); undefined when a read failed or nothing is listed yet.
   */
  async find(queries: OriginQuery[], view: OriginReads = this.view()): Promise<Map<string, DepositOrigin | null | undefined>> {
    const out = new Map<string, DepositOrigin | null | undefined>();
    if (queries.length === 0) return out;
    const rest = await this.fromSeen(queries, out, view);
    if (rest.length > 0) await this.fromHistory(rest, out, view);
    return out;
  }

  /**
   * The noted transactions that settle a query alone (see the class); returns the queries they do not
   * settle. One noted but not visible at `confirmed` yet leaves its query undefined, for a later look,
   * for SEEN_PENDING_MS (the history would lag as much).
   */
  private async fromSeen(queries: OriginQuery[], out: Map<string, DepositOrigin | null | undefined>, view: OriginReads): Promise<OriginQuery[]> {
    const unknown = new Map<string, { s: { sig: string; at: number }; q: OriginQuery }>();
    for (const q of queries) for (const s of this.seen.get(q.account) ?? []) if (!this.memo.has(key(s.sig, q))) unknown.set(key(s.sig, q), { s, q });
    const judged = new Map<string, Verdict | null>();
    const pending = new Set<string>();
    if (unknown.size > 0) {
      const items = [...unknown.entries()];
      // A failed read only loses the shortcut: the history path below covers these queries.
      const txs = await view.transactionsMany(items.map(([, v]) => v.s.sig)).catch(() => []);
      items.forEach(([k, { s, q }], n) => {
        const tx = txs[n];
        if (tx === null && this.clock.now() - s.at < SEEN_PENDING_MS) pending.add(q.account);
        else if (tx === null) this.seen.set(q.account, (this.seen.get(q.account) ?? []).filter((x) => x !== s));
        if (!tx) return;
        judged.set(k, verdictOf(tx, q));
        this.remember(k, judged.get(k)!);
      });
    }
    return queries.filter((q) => {
      for (const { sig } of this.seen.get(q.account) ?? []) {
        const k = key(sig, q);
        const v = judged.has(k) ? judged.get(k) : this.memo.get(k);
        if (!v?.bySender || v.credited <= 0n || !v.fromEmpty) continue;
        out.set(q.account, { signature: sig, amount: v.credited, payers: v.payers });
        return false;
      }
      if (!pending.has(q.account)) return true;
      out.set(q.account, undefined);
      return false;
    });
  }

  /** The history path: the oldest of each account's listed transactions that its sender signed and that added to it. */
  private async fromHistory(queries: OriginQuery[], out: Map<string, DepositOrigin | null | undefined>, view: OriginReads): Promise<void> {
    const histories = await view.signatureHistories(queries.map((q) => q.account));
    // Successful transactions, oldest first (the RPC lists newest first).
    const candidates = queries.map((_q, n) => histories[n]?.filter((s) => s.err === null).map((s) => s.signature).reverse().slice(0, MAX_CANDIDATES));
    const unknown = new Map<string, { sig: string; q: OriginQuery }>();
    // This call's verdicts, whatever the bounded memo evicts meanwhile.
    const judged = new Map<string, Verdict | null>();
    queries.forEach((q, n) => {
      for (const sig of candidates[n] ?? []) {
        const k = key(sig, q);
        if (!this.memo.has(k)) {
          unknown.set(k, { sig, q });
          continue;
        }
        const v = this.memo.get(k)!;
        judged.set(k, v);
        if (v?.bySender && v.credited > 0n) break;
      }
    });
    const failed = new Set<string>();
    if (unknown.size > 0) {
      const items = [...unknown.entries()];
      const txs = await view.transactionsMany(items.map(([, v]) => v.sig));
      items.forEach(([k, { q }], n) => {
        const tx = txs[n];
        // Not visible at `confirmed` though listed there, or the call failed: judged on a later look.
        if (!tx) return void failed.add(k);
        judged.set(k, verdictOf(tx, q));
        this.remember(k, judged.get(k)!);
      });
    }
    queries.forEach((q, n) => {
      const list = candidates[n];
      // No successful transaction listed though the caller saw funds: the RPC's history lags its accounts.
      if (!list || list.length === 0) return void out.set(q.account, undefined);
      let found: DepositOrigin | null = null;
      for (const sig of list) {
        const k = key(sig, q);
        // An unjudged earlier transaction might be the deposit: this account is left for a later look.
        if (failed.has(k)) return void out.set(q.account, undefined);
        const v = judged.get(k);
        if (v?.bySender && v.credited > 0n) {
          found = { signature: sig, amount: v.credited, payers: v!.payers };
          break;
        }
      }
      out.set(q.account, found);
    });
  }

  /** Judges a transaction the caller has already read (a deposit hint's), so a lookup need not read it, nor the history when it settles it alone. */
  judge(signature: string, q: OriginQuery, tx: JudgedTransaction): void {
    this.remember(key(signature, q), verdictOf(tx, q));
    this.saw(q.account, signature);
  }

  private remember(k: string, v: Verdict | null): void {
    if (this.memo.size >= MEMO_MAX) this.memo.delete(this.memo.keys().next().value!);
    this.memo.set(k, v);
  }
}

/**
 * docs/spec.md §12, funds outside an order: the payers of every successful transaction in a deposit account's
 * history that added to it, other than the order's own deposit. Null when a read failed (the caller asks again
 * later). Late funds are rare: their one history read and one batch of transactions cost nothing on the common path.
 * `incomplete` when the history read came back full (FIRST_SIGNATURE_LOOKBACK entries): older credits may lie
 * beyond it, and a payer can push its own transfer out of view with a few cheap empty ones, so the payers are
 * not known (a deposit account has a handful of transactions; paging further would let anyone spend our RPC
 * budget by sending it dust).
 */
export async function creditorsOf(
  view: Pick<ChainView, 'signatureHistories' | 'transactionsMany'>,
  q: { account: string; native: boolean },
  depositSignature: string | null,
): Promise<string[] | null | 'incomplete'> {
  const [history] = await view.signatureHistories([q.account]);
  if (!history) return null;
  if (history.length >= FIRST_SIGNATURE_LOOKBACK) return 'incomplete';
  const sigs = history.filter((s) => s.err === null && s.signature !== depositSignature).map((s) => s.signature);
  if (sigs.length === 0) return [];
  const txs = await view.transactionsMany(sigs);
  const out = new Set<string>();
  for (const tx of txs) {
    if (!tx) return null;
    const v = verdictOf(tx, { account: q.account, sender: '', native: q.native });
    if (v && v.credited > 0n) for (const p of v.payers) out.add(p);
  }
  return [...out];
}
