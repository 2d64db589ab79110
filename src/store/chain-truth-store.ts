import type { Queryable } from './db.ts';

/** What the chain check found of one transaction of Hush's the store had forgotten (migration 037). */
export interface FoundTransaction {
  signature: string;
  slot: bigint;
  kind: 'payout' | 'refund' | 'partner_payout' | 'sweep' | 'stray_return' | 'unattributed';
  orderId: string | null;
  part: number;
  assetId: string | null;
  amount: bigint | null;
  source: string | null;
  destination: string | null;
  wire: string;
  /** unattributed: why; sweep: the deposit accounts it closed and what each moved; several pools: their shares. */
  detail: Record<string, unknown>;
}

export interface TruthState {
  paused: boolean;
  reason: string | null;
  since: Date | null;
  checkedAt: Date | null;
}

export async function readWatermark(db: Queryable, wallet: string): Promise<{ signature: string; slot: bigint } | null> {
  const { rows } = await db.query<{ signature: string; slot: string | number }>('SELECT signature, slot FROM chain_watermarks WHERE wallet = $1', [wallet]);
  return rows[0] ? { signature: rows[0].signature, slot: BigInt(rows[0].slot) } : null;
}

export async function writeWatermark(db: Queryable, wallet: string, signature: string, slot: bigint): Promise<void> {
  await db.query(
    `INSERT INTO chain_watermarks (wallet, signature, slot, updated_at) VALUES ($1, $2, $3, now())
     ON CONFLICT (wallet) DO UPDATE SET signature = $2, slot = $3, updated_at = now()`,
    [wallet, signature, slot.toString()],
  );
}

/** The signatures among `signatures` the store knows: recorded before they were sent, or found by an earlier check. */
export async function knownSignatures(db: Queryable, signatures: string[]): Promise<Set<string>> {
  if (signatures.length === 0) return new Set();
  const { rows } = await db.query<{ signature: string }>(
    `SELECT signature FROM chain_txs WHERE signature = ANY($1::text[])
     UNION SELECT signature FROM chain_found WHERE signature = ANY($1::text[])`,
    [signatures],
  );
  return new Set(rows.map((r) => r.signature));
}

export async function readTruth(db: Queryable): Promise<TruthState> {
  const { rows } = await db.query<{ paused: boolean; reason: string | null; since: Date | null; checked_at: Date | null }>('SELECT paused, reason, since, checked_at FROM chain_truth WHERE id = 1');
  const r = rows[0];
  return r ? { paused: r.paused, reason: r.reason, since: r.since, checkedAt: r.checked_at } : { paused: false, reason: null, since: null, checkedAt: null };
}

/** Pauses payouts (kept across restarts) until an operator resumes them; a pause already in force keeps its reason and time. */
export async function pauseTruth(db: Queryable, reason: string): Promise<void> {
  await db.query(
    `INSERT INTO chain_truth (id, paused, reason, since, checked_at) VALUES (1, true, $1, now(), now())
     ON CONFLICT (id) DO UPDATE SET paused = true, reason = CASE WHEN chain_truth.paused THEN chain_truth.reason ELSE $1 END,
       since = CASE WHEN chain_truth.paused THEN chain_truth.since ELSE now() END, checked_at = now()`,
    [reason],
  );
}

export async function markChecked(db: Queryable): Promise<void> {
  await db.query(`INSERT INTO chain_truth (id, paused, checked_at) VALUES (1, false, now()) ON CONFLICT (id) DO UPDATE SET checked_at = now()`);
}

/**
 * The operator's resumption: every unattributed transaction acknowledged by `by`, payouts resumed. Refused
 * (false) while a transaction it has not seen is unacknowledged: `seen` lists those the operator was shown.
 */
export async function resumeTruth(db: Queryable, by: string, seen: readonly string[]): Promise<{ resumed: boolean; unseen: string[] }> {
  const open = await unattributed(db, false);
  const unseen = open.filter((f) => !seen.includes(f.signature)).map((f) => f.signature);
  if (unseen.length > 0) return { resumed: false, unseen };
  await db.query(`UPDATE chain_found SET settled_at = now(), settled_by = $1 WHERE kind = 'unattributed' AND settled_at IS NULL`, [by]);
  await db.query(`UPDATE chain_truth SET paused = false, reason = NULL, since = NULL WHERE id = 1`);
  return { resumed: true, unseen: [] };
}

export async function insertFound(db: Queryable, found: FoundTransaction[]): Promise<void> {
  for (const f of found) {
    await db.query(
      `INSERT INTO chain_found (signature, slot, kind, order_id, part, asset_id, amount, source, destination, wire, detail, found_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, now()) ON CONFLICT (signature) DO NOTHING`,
      [f.signature, f.slot.toString(), f.kind, f.orderId, f.part, f.assetId, f.amount?.toString() ?? null, f.source, f.destination, f.wire, JSON.stringify(f.detail)],
    );
  }
}

interface FoundRow {
  signature: string;
  slot: string | number;
  kind: FoundTransaction['kind'];
  order_id: string | number | null;
  part: number;
  asset_id: string | null;
  amount: string | null;
  source: string | null;
  destination: string | null;
  wire: string;
  detail: Record<string, unknown>;
}

const toFound = (r: FoundRow): FoundTransaction => ({
  signature: r.signature,
  slot: BigInt(r.slot),
  kind: r.kind,
  orderId: r.order_id === null ? null : String(r.order_id),
  part: Number(r.part),
  assetId: r.asset_id,
  amount: r.amount === null ? null : BigInt(r.amount),
  source: r.source,
  destination: r.destination,
  wire: r.wire,
  detail: r.detail,
});

/** Adopted transactions not yet in chain_txs: each becomes its order's payout, refund or sweep record. */
export async function openAdoptions(db: Queryable): Promise<FoundTransaction[]> {
  const { rows } = await db.query<FoundRow>(`SELECT * FROM chain_found WHERE settled_at IS NULL AND kind <> 'unattributed' ORDER BY slot, signature`);
  return rows.map(toFound);
}

/** Adoptions whose signature now has its chain_txs record are settled; returns how many remain open. */
export async function settleRecordedAdoptions(db: Queryable): Promise<number> {
  await db.query(`UPDATE chain_found f SET settled_at = now(), settled_by = 'recorded' WHERE f.settled_at IS NULL AND f.kind <> 'unattributed' AND EXISTS (SELECT 1 FROM chain_txs t WHERE t.signature = f.signature)`);
  const { rows } = await db.query<{ n: string | number }>(`SELECT count(*) AS n FROM chain_found WHERE settled_at IS NULL AND kind <> 'unattributed'`);
  return Number(rows[0]!.n);
}

/** The transactions of Hush's no order the store knows explains (open ones only, unless `all`). */
export async function unattributed(db: Queryable, all: boolean): Promise<(FoundTransaction & { foundAt: Date; settledBy: string | null })[]> {
  const { rows } = await db.query<FoundRow & { found_at: Date; settled_by: string | null }>(
    `SELECT * FROM chain_found WHERE kind = 'unattributed' ${all ? '' : 'AND settled_at IS NULL'} ORDER BY slot, signature`,
  );
  return rows.map((r) => ({ ...toFound(r), foundAt: r.found_at, settledBy: r.settled_by }));
}

/** The order whose deposit account `account` is (an index lookup: the column is unique). */
export async function orderIdByDepositAccount(db: Queryable, account: string): Promise<string | null> {
  const { rows } = await db.query<{ id: string | number }>('SELECT id FROM orders WHERE deposit_account = $1', [account]);
  return rows[0] ? String(rows[0].id) : null;
}

/** The fee payer as the worker last read it (docs/operations.md "fee_payer_low"). */
export interface FeePayerReading {
  lamports: bigint;
  /** Hours left at the last hour's spending; null when nothing was spent. */
  runwayHours: number | null;
  state: 'ok' | 'low' | 'empty';
}

export async function writeFeePayer(db: Queryable, r: FeePayerReading): Promise<void> {
  await db.query(
    `INSERT INTO chain_truth (id, paused, fee_payer_lamports, fee_payer_runway_hours, fee_payer_state) VALUES (1, false, $1, $2, $3)
     ON CONFLICT (id) DO UPDATE SET fee_payer_lamports = $1, fee_payer_runway_hours = $2, fee_payer_state = $3`,
    [r.lamports.toString(), r.runwayHours, r.state],
  );
}

export async function writeReconcile(db: Queryable, ok: boolean, differences: Record<string, string>): Promise<void> {
  await db.query(
    `INSERT INTO chain_truth (id, paused, reconcile_ok, reconcile_at, reconcile_differences) VALUES (1, false, $1, now(), $2)
     ON CONFLICT (id) DO UPDATE SET reconcile_ok = $1, reconcile_at = now(), reconcile_differences = $2`,
    [ok, JSON.stringify(differences)],
  );
}

/** What /metrics and /readyz show of the treasury's health: one row, one read. */
export interface TreasuryHealthRow {
  paused: boolean;
  feePayerLamports: bigint | null;
  runwayHours: number | null;
  feePayerState: 'ok' | 'low' | 'empty' | null;
  reconcileOk: boolean | null;
  differences: Record<string, string>;
}

export async function readTreasuryHealth(db: Queryable): Promise<TreasuryHealthRow | null> {
  const { rows } = await db.query<{ paused: boolean; fee_payer_lamports: string | null; fee_payer_runway_hours: number | null; fee_payer_state: TreasuryHealthRow['feePayerState']; reconcile_ok: boolean | null; reconcile_differences: Record<string, string> | null }>(
    'SELECT paused, fee_payer_lamports, fee_payer_runway_hours, fee_payer_state, reconcile_ok, reconcile_differences FROM chain_truth WHERE id = 1',
  );
  const r = rows[0];
  if (!r) return null;
  return {
    paused: r.paused,
    feePayerLamports: r.fee_payer_lamports === null ? null : BigInt(r.fee_payer_lamports),
    runwayHours: r.fee_payer_runway_hours === null ? null : Number(r.fee_payer_runway_hours),
    feePayerState: r.fee_payer_state,
    reconcileOk: r.reconcile_ok,
    differences: r.reconcile_differences ?? {},
  };
}

/**
 * A partner account the store lost, back under its id so its rebuilt orders have an owner: suspended (its keys
 * are lost with the store) until an operator issues it a key and reactivates it (docs/operations.md).
 */
export async function ensureRecoveredAccount(db: Queryable, id: string): Promise<void> {
  await db.query(
    `INSERT INTO accounts (id, name, fee_cap_bps, status, created_at, updated_at) VALUES ($1, $2, 0, 'suspended', now(), now()) ON CONFLICT (id) DO NOTHING`,
    [id, `recovered ${id}`],
  );
}
