import { ledgerBalances } from '../../store/settlement/ledger-balances.ts';
import { recordMovements } from '../../store/settlement/record-movements.ts';
import type { Movement } from '../../store/settlement/movements.ts';
import type { Db } from '../../store/db.ts';
import type { SettlementContext } from '../context.ts';

type OpeningDeps = Pick<SettlementContext, 'db' | 'view' | 'treasury' | 'config' | 'log'>;

/** True when the store holds nothing of Hush's money yet: no transaction recorded, no ledger entry. */
export async function storeHoldsNothing(db: Db): Promise<boolean> {
  const { rows } = await db.query<{ n: string | number }>('SELECT (SELECT count(*) FROM chain_txs) + (SELECT count(*) FROM ledger_entries) AS n');
  return Number(rows[0]!.n) === 0;
}

/** Whether the opening balances are still to be booked (a lost store's first history read). */
export async function openingDue(db: Db): Promise<boolean> {
  const { rows } = await db.query<{ due: boolean }>('SELECT opening_due AS due FROM chain_truth WHERE id = 1');
  return rows[0]?.due === true;
}

export async function markOpeningDue(db: Pick<Db, 'query'>): Promise<void> {
  await db.query(`INSERT INTO chain_truth (id, paused, opening_due) VALUES (1, false, true) ON CONFLICT (id) DO UPDATE SET opening_due = true`);
}

/**
 * A lost store's opening balances (docs/decisions.md "What the chain gives back"): once everything the check
 * adopted has settled (nothing adopted open, nothing pending), what the fee payer and each pool hold beyond
 * what the ledger now says they hold was theirs before the store began: booked once, as funding from
 * `external:recovered`, so reconcile is exact again. Returns whether it booked (false: not settled yet).
 */
export async function bookOpeningBalances(ctx: OpeningDeps, openAdoptions: number): Promise<boolean> {
  if (openAdoptions > 0) return false;
  const { rows } = await ctx.db.query<{ n: string | number }>(`SELECT count(*) AS n FROM chain_txs WHERE status = 'pending'`);
  if (Number(rows[0]!.n) > 0) return false;
  const wallets = [
    { account: `feepayer:${ctx.treasury.feePayer.address}`, address: ctx.treasury.feePayer.address, assetId: 'sol', native: true },
    ...ctx.treasury.allPools().map((p) => ({ account: `pool:${p.holding}`, address: p.holding, assetId: p.assetId, native: ctx.config.assets.get(p.assetId)!.native })),
  ];
  const balances = await ctx.view.balances(wallets.map((w) => w.address), 'confirmed');
  const ledger = await ledgerBalances(ctx.db);
  const movements: Movement[] = [];
  for (const w of wallets) {
    const b = balances.get(w.address);
    const onChain = w.native ? (b?.lamports ?? 0n) : (b?.tokenAmount ?? 0n);
    const d = onChain - (ledger.get(`${w.account}|${w.assetId}`) ?? 0n);
    if (d === 0n) continue;
    movements.push({ movement: `recovered:${w.account}`, kind: 'funding', legs: [{ account: 'external:recovered', assetId: w.assetId, amount: -d }, { account: w.account, assetId: w.assetId, amount: d }] });
  }
  await ctx.db.transaction(async (q) => {
    if (movements.length > 0) await recordMovements(q, movements);
    await q.query('UPDATE chain_truth SET opening_due = false WHERE id = 1');
  });
  ctx.log({ wallets: movements.length }, "a lost store's opening balances booked from the chain");
  return true;
}
