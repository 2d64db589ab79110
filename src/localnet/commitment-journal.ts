import { FINALIZATION_LAG, type AccountState } from './local-chain-types.ts';

/**
 * Pre-images of accounts written in recent slots, so reads at `confirmed`/`finalized` see older state.
 * Not persisted: a restored chain resumes where everything it holds is finalized.
 */
export class CommitmentJournal {
  private readonly entries = new Map<string, { slot: bigint; pre: AccountState | null }[]>();
  private readonly order: { slot: bigint; address: string }[] = [];

  /** A transaction in `slot` wrote the accounts marked writable; `pre` is their state before it. */
  record(slot: bigint, accountKeys: readonly string[], writable: boolean[], pre: (AccountState | null)[]): void {
    accountKeys.forEach((k, i) => {
      if (!writable[i]) return;
      let list = this.entries.get(k);
      if (!list) this.entries.set(k, (list = []));
      list.push({ slot, pre: pre[i] ?? null });
      this.order.push({ slot, address: k });
    });
  }

  /**
   * The account as it was at `at` when something wrote it after that slot: its state (null: it did not
   * exist), or undefined when the current state is also the state at `at`.
   */
  stateAt(address: string, at: bigint): AccountState | null | undefined {
    const entries = this.entries.get(address);
    if (entries) for (const e of entries) if (e.slot > at) return e.pre;
    return undefined;
  }

  /** Forgets writes old enough that every commitment level sees the current state. */
  prune(tip: bigint): void {
    const keepFrom = tip > FINALIZATION_LAG + 8n ? tip - FINALIZATION_LAG - 8n : 0n;
    let n = 0;
    while (n < this.order.length && this.order[n]!.slot < keepFrom) {
      const { address } = this.order[n]!;
      const list = this.entries.get(address);
      list?.shift();
      if (list && list.length === 0) this.entries.delete(address);
      n++;
    }
    if (n > 0) this.order.splice(0, n);
  }
}
