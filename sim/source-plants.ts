/**
 * Bugs planted in Hush's source, where a statement rewrite (planted-bugs.ts) cannot reach: code that reads the
 * wall clock, a rule of arithmetic. The simulator's process loads the planted file rewritten
 * (source-plant-hook.ts, preloaded by `npm run sim`), so a source plant runs only in a process of its own:
 * `npm run sim -- --plant <name>`, and test/sim/source-plants.test.ts. Never loaded outside the simulator.
 */
import type { FaultSet } from './faults.ts';

export interface SourcePlant {
  name: string;
  /** The invariants that catch it (the first one a run reaches reports it). */
  caughtBy: readonly string[];
  /** The faults that reach the code it breaks. */
  faults: FaultSet;
  /** The file rewritten, from the repository's root, and the text replaced in it (which must be there; spacing aside). */
  file: string;
  from: string;
  to: string;
}

export const SOURCE_PLANTS: Record<string, SourcePlant> = {
  /** The outbox measures how long ago it sent a transaction on the machine's clock instead of Hush's (issue 86). */
  'wall-clock-outbox': {
    name: 'a wall-clock read in the outbox',
    caughtBy: ["time is the clock's"],
    faults: 'none',
    file: 'src/settlement/outbox.ts',
    from: 'return this.clock.now() - (this.lastSent.get(signature) ?? 0)',
    to: 'return Date.now() - (this.lastSent.get(signature) ?? 0)',
  },
  /**
   * A transaction called expired while its blockhash still lives (a margin someone meant as safety): it is signed
   * again while the first may still land, and a send that lingers before it lands pays twice (issue 86).
   */
  'early-expiry': {
    name: 'a transaction expired before its blockhash died',
    caughtBy: ['paid exactly once', 'refunded at most once', 'paid or refunded, never both', 'the ledger matches the chain'],
    faults: 'all',
    file: 'src/domain/settlement/tx-fate.ts',
    from: 'if (input.finalizedHeight > input.lastValidBlockHeight) return',
    to: 'if (input.finalizedHeight + 100n > input.lastValidBlockHeight) return',
  },
  /**
   * A completed order's partner fee accrued to a payable account nobody pays (the fee recipient dropped from its
   * name): the partner is never paid, the books still balance, and no partner is paid more than it earned (issue 86).
   */
  'partner-fee-unpaid': {
    name: "a partner's fees accrued where no payout reads them",
    caughtBy: ["the books are the shadow's"],
    faults: 'none',
    file: 'src/ledger/order-movements.ts',
    from: 'payable:partner:${o.accountId}:${o.feeRecipient ??',
    to: 'payable:partner:${o.accountId}:${null ??',
  },
};
