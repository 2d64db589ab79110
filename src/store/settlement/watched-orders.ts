import type { Address } from '@solana/kit';
import type { Queryable } from '../db.ts';
import { statusesSql } from './final-statuses.ts';

/** An order whose deposit the watch reads, with what signing its payout ahead needs. */
export interface WatchedRow {
  id: string | number;
  tracking_id: string;
  /** The partner's: a payout's sealed record names it (docs/decisions.md "Every transaction Hush signs carries a sealed record"). */
  account_id: string;
  deposit_account: Address;
  /** The only one whose transaction can be the deposit (DepositOrigins). */
  sender: Address;
  recipient: Address;
  fee_recipient: Address | null;
  amount_in: string;
  amount_out: string;
  source_asset_id: string;
  destination_asset_id: string;
  mode: 'exact_in' | 'exact_out';
  tx_blockhash: string;
  created_at: Date;
  /** The quote's privacy promise only (what the payout's due time depends on), not the whole quote. */
  quote: { privacy?: unknown };
}

/** The orders awaiting a deposit (at most 10,000: the watch reads all their accounts every slot). */
export async function watchedOrders(db: Queryable): Promise<WatchedRow[]> {
  const { rows } = await db.query<WatchedRow>(
    `SELECT id, tracking_id, account_id, deposit_account, sender, recipient, fee_recipient, amount_in, amount_out, source_asset_id, destination_asset_id, mode, tx_blockhash, created_at,
            jsonb_build_object('privacy', quote -> 'privacy') AS quote
             FROM orders WHERE status IN ${statusesSql('awaitsDeposit')} LIMIT 10000`,
  );
  return rows;
}
