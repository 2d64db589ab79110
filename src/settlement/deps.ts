import type { Asset } from '../config/assets.ts';
import type { HushConfig } from '../config/config.ts';
import type { ChainView } from '../chain/chain-view.ts';
import type { TxShape } from '../chain/hush-transactions.ts';
import type { FreshBlockhash, SolanaChain } from '../chain/solana-chain.ts';
import type { Db, Queryable } from '../store/db.ts';
import type { Treasury } from '../treasury/treasury.ts';

export type Log = (obj: Record<string, unknown>, msg: string) => void;

/**
 * What the context's parts (outbox, pools, presigner, payout queue) need of it: declared apart so that
 * they depend on this, and the context on them, without a cycle.
 */
export interface SettlementDeps {
  readonly config: HushConfig;
  readonly db: Db;
  readonly view: ChainView;
  readonly treasury: Treasury;
  readonly workerId: string;
  readonly leaseSeconds: number;
  readonly log: Log;
  /** An ALERT record: `alert: kind` with the fields, counted in hush_alerts_total{kind}. */
  alert(kind: string, fields: Record<string, unknown>, msg: string): void;
  readonly slotMs: number;
  chain(): SolanaChain;
  /** A blockhash for a payout: never one a deposit transaction of an open order carries, nor `own`. */
  payoutBlockhash(q?: Queryable, own?: string): Promise<FreshBlockhash>;
  asset(id: string): Asset;
  shape(blockhash: { blockhash: string; lastValidBlockHeight: bigint }): TxShape;
}
