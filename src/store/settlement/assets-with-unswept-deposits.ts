import type { Queryable } from '../db.ts';
import { SWEEPABLE } from './sweepable.ts';

export async function assetsWithUnsweptDeposits(db: Queryable, finalizedBlockHeight: bigint): Promise<string[]> {
  const { rows } = await db.query<{ source_asset_id: string }>(`SELECT DISTINCT source_asset_id FROM orders WHERE ${SWEEPABLE}`, [finalizedBlockHeight.toString()]);
  return rows.map((r) => r.source_asset_id);
}
