import type { Address, Signature } from '@solana/kit';
import type { AssetRegistry } from '../config/assets.ts';
import type { SolanaChain } from '../chain/solana-chain.ts';
import type { Db } from '../store/db.ts';
import { recordMovement } from '../store/settlement/record-movements.ts';
import { ChainView } from '../chain/chain-view.ts';
import { settledFate } from '../domain/settlement/tx-fate.ts';
import type { TreasuryWallets } from './treasury-wallets.ts';

/** An airdrop the chain has not seen this long after it was asked for never landed. */
const AIRDROP_GIVE_UP_S = 300;
/** How far back a wallet's history is searched for an airdrop whose answer was lost. */
const LOST_AIRDROP_LOOKBACK = 50;

/** Records a top-up before it is asked for; returns the intent's id. */
export async function recordAirdropIntent(db: Db, account: string, assetId: string, amount: bigint): Promise<string> {
  const { rows } = await db.query<{ id: string }>('INSERT INTO funding_airdrops (account, asset_id, amount, created_at) VALUES ($1, $2, $3, now()) RETURNING id::text AS id', [account, assetId, amount.toString()]);
  return rows[0]!.id;
}

export async function signAirdropIntent(db: Db, id: string, signature: string): Promise<void> {
  await db.query('UPDATE funding_airdrops SET signature = $2 WHERE id = $1 AND signature IS NULL', [id, signature]);
}

/** The faucet refused: nothing was moved. */
export async function forgetAirdropIntent(db: Db, id: string): Promise<void> {
  await db.query('DELETE FROM funding_airdrops WHERE id = $1 AND signature IS NULL', [id]);
}

interface AirdropRow {
  id: string;
  signature: string | null;
  account: string;
  asset_id: string;
  amount: string;
  stale: boolean;
}

/**
 * The signature of an airdrop whose answer was lost: a successful transaction in the wallet's recent
 * history, not paid by Hush's fee payer, that credited exactly `amount` (lamports for SOL, the token
 * balance otherwise) and is not booked or known yet. Null when there is none (yet).
 */
async function findLostAirdrop(chain: SolanaChain, row: AirdropRow, native: boolean, feePayer: string, taken: Set<string>): Promise<string | null> {
  const address = row.account.slice(row.account.indexOf(':') + 1) as Address;
  const history = await chain.rpc.getSignaturesForAddress(address, { limit: LOST_AIRDROP_LOOKBACK, commitment: 'confirmed' }).send();
  for (const h of [...history].reverse()) {
    if (h.err !== null || taken.has(h.signature)) continue;
    const tx = await chain.rpc.getTransaction(h.signature as Signature, { commitment: 'confirmed', encoding: 'json', maxSupportedTransactionVersion: 0 }).send();
    if (!tx?.meta || tx.meta.err) continue;
    const keys = tx.transaction.message.accountKeys as readonly string[];
    if (keys[0] === feePayer) continue;
    const at = keys.indexOf(address);
    if (at < 0) continue;
    const tokenAt = (list: typeof tx.meta.preTokenBalances) => BigInt(list?.find((b) => b.accountIndex === at)?.uiTokenAmount.amount ?? '0');
    const credited = native ? BigInt(tx.meta.postBalances[at]!) - BigInt(tx.meta.preBalances[at]!) : tokenAt(tx.meta.postTokenBalances) - tokenAt(tx.meta.preTokenBalances);
    if (credited === BigInt(row.amount)) return h.signature;
  }
  return null;
}

/**
 * Puts every recorded airdrop that landed on the ledger (and forgets it in the same transaction); forgets
 * those that failed, or that the chain still does not know long after they were asked for. An intent
 * without a signature (its answer was lost) is looked for in its wallet's history first.
 */
export async function settleFundingAirdrops(db: Db, chain: SolanaChain, treasury: TreasuryWallets, assets: AssetRegistry): Promise<void> {
  const { rows } = await db.query<AirdropRow>(
    `SELECT id::text AS id, signature, account, asset_id, amount::text, created_at < now() - make_interval(secs => $1) AS stale FROM funding_airdrops ORDER BY signature IS NULL, created_at`,
    [AIRDROP_GIVE_UP_S],
  );
  if (rows.length === 0) return;
  const taken = new Set(rows.flatMap((r) => (r.signature ? [r.signature] : [])));
  if (rows.some((r) => !r.signature)) {
    const { rows: booked } = await db.query<{ movement: string }>("SELECT DISTINCT movement FROM ledger_entries WHERE kind = 'funding'");
    for (const b of booked) taken.add(b.movement.slice('funding:'.length));
  }
  for (const r of rows) {
    if (r.signature) continue;
    const found = await findLostAirdrop(chain, r, assets.get(r.asset_id)?.native === true, treasury.feePayer.address, taken);
    if (found) {
      taken.add(found);
      await db.query('UPDATE funding_airdrops SET signature = $2 WHERE id = $1 AND signature IS NULL', [r.id, found]);
      r.signature = found;
    } else if (r.stale) {
      await db.query('DELETE FROM funding_airdrops WHERE id = $1 AND signature IS NULL', [r.id]);
    }
  }
  const signed = rows.filter((r): r is AirdropRow & { signature: string } => r.signature !== null);
  if (signed.length === 0) return;
  const statuses = await new ChainView(chain).statuses(signed.map((r) => r.signature));
  for (const [i, r] of signed.entries()) {
    const st = statuses[i];
    const landed = settledFate(st) === 'landed';
    if (!landed && !(st && st.err) && !(st === null && r.stale)) continue; // still on its way
    await db.transaction(async (tx) => {
      if (landed) {
        const amount = BigInt(r.amount);
        await recordMovement(tx, `funding:${r.signature}`, 'funding', [
          { account: 'external:faucet', assetId: r.asset_id, amount: -amount },
          { account: r.account, assetId: r.asset_id, amount },
        ]);
      }
      await tx.query('DELETE FROM funding_airdrops WHERE id = $1', [r.id]);
    });
  }
}
