import type { Db } from '../store/db.ts';
import { readTruth, resumeTruth, unattributed } from '../store/chain-truth-store.ts';

/** What an operator sees of the chain check (docs/operations.md "store_behind_chain"). */
export interface RecoverStatus {
  paused: boolean;
  reason: string | null;
  since: string | null;
  /** When a worker last compared the store with the chain. */
  checkedAt: string | null;
  /** Transactions of Hush's on chain that no order the store knows explains, oldest first. */
  unattributed: { signature: string; slot: string; reason: unknown; detail: Record<string, unknown>; foundAt: string }[];
}

/**
 * `admin recover`: the pause the chain check put on payouts, what caused it, and its end. Resuming is an approver's
 * (a named person: the shared admin token is no one), and only over the transactions the operator was shown, so a
 * transaction found since the operator looked keeps payouts paused.
 */
export class RecoverService {
  constructor(private readonly db: Db) {}

  async status(): Promise<RecoverStatus> {
    const t = await readTruth(this.db);
    const open = await unattributed(this.db, false);
    return {
      paused: t.paused,
      reason: t.reason,
      since: t.since?.toISOString() ?? null,
      checkedAt: t.checkedAt?.toISOString() ?? null,
      unattributed: open.map((f) => ({ signature: f.signature, slot: f.slot.toString(), reason: f.detail.reason, detail: f.detail, foundAt: f.foundAt.toISOString() })),
    };
  }

  /** Acknowledges every unattributed transaction in `seen` and resumes payouts; refused when another is unacknowledged. */
  async resume(seen: readonly string[], by: string): Promise<{ resumed: boolean; unseen: string[] }> {
    return resumeTruth(this.db, by, seen);
  }
}
