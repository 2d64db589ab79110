import type { AssetRegistry } from '../config/assets.ts';
import type { SolanaChain } from '../chain/solana-chain.ts';
import type { Db } from '../store/db.ts';
import { ledgerBalances } from '../store/settlement/ledger-balances.ts';
import { ledgerMark, UNBOOKED_TXS } from '../store/settlement/ledger-mark.ts';
import { HELD_FUNDS_ACCOUNT } from '../store/holds/fund-holds.ts';
import type { TreasuryWallets } from '../treasury/treasury-wallets.ts';
import { ChainView } from '../chain/chain-view.ts';
import { readRetiredWallets } from '../store/treasury-wallets-store.ts';

/** The ledger account frozen funds are booked on (src/admin/holds-service.ts), negative as a liability. */
export const FROZEN_ACCOUNT = 'frozen:funds';

export interface ReconcileLine {
  account: string;
  ledger: string;
  chain: string;
  difference: string;
}

export interface ReconcileReport {
  ok: boolean;
  pendingTransactions: number;
  /**
   * False when the books moved while the chain was read (a transaction booked or settled meanwhile): the
   * figures may then differ by what was in flight; ask again. True: ledger and chain were read with nothing
   * booked in between, so a difference is a real one.
   */
  consistent: boolean;
  /**
   * docs/spec.md §12: of what Hush holds, what operators froze (held orders' deposits kept, per asset);
   * part of ledgerTotal, never free to pay out; `held`: late funds screening held, awaiting the operator (issue 49).
   */
  assets: { assetId: string; ok: boolean; ledgerTotal: string; chainTotal: string; frozen: string; held: string; mismatches: ReconcileLine[] }[];
}

/**
 * Compares the ledger with the chain for every account Hush holds on chain: the fee payer, every pool (of the
 * current seed and of every retired one) and every deposit account the ledger says still holds funds. Reports each difference exactly.
 */
export async function reconcile(db: Db, chain: SolanaChain, treasury: TreasuryWallets, assets: AssetRegistry): Promise<ReconcileReport> {
  // Issue 43: a transaction that settles between the ledger read and the chain read (a late refund, a sweep)
  // showed as a difference with nothing pending. The books' mark is read before the ledger and after the
  // chain: unchanged, the two reads saw the same moment; changed, the answer says so. It does not read again
  // itself: a monitor polling reconcile while orders settle would multiply its chain reads, which share the
  // worker's request budget (measured: retries starved a test's sweeps under load).
  const before = await ledgerMark(db);
  const report = await reconcileOnce(db, chain, treasury, assets);
  const after = await ledgerMark(db);
  return { ...report, pendingTransactions: after.pending, consistent: before.lastEntry === after.lastEntry && before.pending === after.pending };
}

async function reconcileOnce(db: Db, chain: SolanaChain, treasury: TreasuryWallets, assets: AssetRegistry): Promise<Omit<ReconcileReport, 'consistent'>> {
  const ledger = await ledgerBalances(db);
  const checks: { account: string; address: string; assetId: string; native: boolean }[] = [
    { account: `feepayer:${treasury.feePayer.address}`, address: treasury.feePayer.address, assetId: 'sol', native: true },
    ...treasury.allPools().map((p) => ({ account: `pool:${p.holding}`, address: p.holding, assetId: p.assetId, native: assets.get(p.assetId)!.native })),
    // Every seed the store has known: a rotation's retired wallets count until drained, and after (docs/operations.md
    // "Rotate the treasury seed"); an asset the configuration dropped is counted as a token.
    ...(await readRetiredWallets(db)).map((w) =>
      w.role === 'feepayer'
        ? { account: `feepayer:${w.address}`, address: w.address, assetId: 'sol', native: true }
        : { account: `pool:${w.holding}`, address: w.holding, assetId: w.assetId, native: assets.get(w.assetId)?.native ?? false },
    ),
  ];
  for (const key of ledger.keys()) {
    const [account, assetId] = key.split('|') as [string, string];
    if (account.startsWith('deposit:')) checks.push({ account, address: account.slice('deposit:'.length), assetId, native: false });
  }
  const balances = await new ChainView(chain).balances([...new Set(checks.map((c) => c.address))], 'confirmed');
  const { rows } = await db.query<{ n: string | number }>(`SELECT count(*) AS n FROM chain_txs WHERE ${UNBOOKED_TXS}`);
  const byAsset = new Map<string, ReconcileReport['assets'][number]>();
  for (const c of checks) {
    const b = balances.get(c.address);
    const onChain = c.native ? (b?.lamports ?? 0n) : (b?.tokenAmount ?? 0n);
    const inLedger = ledger.get(`${c.account}|${c.assetId}`) ?? 0n;
    let entry = byAsset.get(c.assetId);
    if (!entry) byAsset.set(c.assetId, (entry = { assetId: c.assetId, ok: true, ledgerTotal: '0', chainTotal: '0', frozen: (-(ledger.get(`${FROZEN_ACCOUNT}|${c.assetId}`) ?? 0n)).toString(), held: (-(ledger.get(`${HELD_FUNDS_ACCOUNT}|${c.assetId}`) ?? 0n)).toString(), mismatches: [] }));
    entry.ledgerTotal = (BigInt(entry.ledgerTotal) + inLedger).toString();
    entry.chainTotal = (BigInt(entry.chainTotal) + onChain).toString();
    if (onChain !== inLedger) {
      entry.ok = false;
      entry.mismatches.push({ account: c.account, ledger: inLedger.toString(), chain: onChain.toString(), difference: (onChain - inLedger).toString() });
    }
  }
  const list = [...byAsset.values()];
  return { ok: list.every((a) => a.ok), pendingTransactions: Number(rows[0]?.n ?? 0), assets: list };
}
