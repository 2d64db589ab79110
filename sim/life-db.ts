import type { Db, Queryable } from '../src/store/db.ts';

/** The error a dead process's or a cut connection's statement gets: what `pg` says when its socket is gone. */
export class ConnectionCut extends Error {
  constructor(what: string) {
    super(`Connection terminated unexpectedly (${what})`);
  }
}

/** Decides, per statement, whether the store connection is cut before it or after it ran (its answer lost). */
export interface StoreFaults {
  /** 'before': nothing ran; 'after': it ran and committed (outside a transaction), and the answer is lost. */
  cut(sql: string, inTransaction: boolean): 'before' | 'after' | null;
}

/**
 * One process's connection to the simulator's store (one PGlite shared by every life): its statements run on
 * the shared store while the process lives; once `kill`ed every statement it sends fails, its open transaction
 * rolls back, its LISTENs stop, as when the operating system closes a SIGKILLed process's socket. `faults`
 * cuts the connection at seeded statements; `rewrite` changes statement texts (a bug planted on purpose, to
 * show the simulator catches it).
 */
export class LifeDb implements Db {
  readonly kind: Db['kind'];
  private dead = false;
  private readonly unlisteners = new Set<() => Promise<void>>();
  private readonly lostHandlers = new Set<() => void>();
  private killed!: Promise<never>;
  private killNow!: (e: Error) => void;
  /** Statements sent and not yet answered (the simulator's quiescence check reads it). */
  inFlight = 0;
  /** Statements sent in all. */
  sent = 0;
  /** Statements by their text's first words, when counting (SIM_SQL_TALLY=1): where an idle run's time goes. */
  readonly tally: Map<string, number> | null = process.env.SIM_SQL_TALLY ? new Map() : null;
  /** Wall time in the store by the same key (SIM_SQL_TALLY=time sorts the report by it). */
  readonly tallyMs = new Map<string, number>();

  constructor(
    private readonly store: Db,
    private readonly opts: { faults?: StoreFaults; rewrite?: (sql: string) => string } = {},
  ) {
    this.kind = store.kind;
    this.killed = new Promise<never>((_, reject) => (this.killNow = reject));
    this.killed.catch(() => {});
  }

  get alive(): boolean {
    return !this.dead;
  }

  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<{ rows: T[]; rowCount: number }> {
    return this.run(this.store, sql, params, false);
  }

  async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    this.check('transaction');
    this.inFlight++;
    this.sent++;
    try {
      return await this.store.transaction((tx) => {
        const lifeTx: Queryable = { query: <R>(sql: string, params?: unknown[]) => this.run<R>(tx, sql, params, true) };
        // A kill ends the transaction at once (rolled back), whatever it was waiting for.
        return Promise.race([fn(lifeTx), this.killed]);
      });
    } finally {
      this.inFlight--;
    }
  }

  async listen(channel: string, onNotify: (payload: string) => void, onLost?: () => void): Promise<() => Promise<void>> {
    this.check('listen');
    const unlisten = await this.store.listen(channel, (p) => {
      if (!this.dead) onNotify(p);
    }, onLost);
    const lost = () => onLost?.();
    this.lostHandlers.add(lost);
    const stop = async () => {
      this.unlisteners.delete(stop);
      this.lostHandlers.delete(lost);
      await unlisten();
    };
    this.unlisteners.add(stop);
    return stop;
  }

  exec(sql: string): Promise<void> {
    this.check('exec');
    return this.store.exec(sql);
  }

  /** SIM_SQL_TALLY: this process's statements by their first words (or by time, SIM_SQL_TALLY=time): where an idle run's time goes. */
  printTally(): void {
    if (!this.tally) return;
    const ms = this.tallyMs;
    const byTime = process.env.SIM_SQL_TALLY === 'time';
    for (const [k, n] of [...this.tally].sort((a, b) => (byTime ? (ms.get(b[0]) ?? 0) - (ms.get(a[0]) ?? 0) : b[1] - a[1])).slice(0, 30)) {
      process.stderr.write(`${String(n).padStart(7)} ${String(Math.round(ms.get(k) ?? 0)).padStart(7)} ms ${k}\n`);
    }
  }

  /** A process closes its connection; the shared store stays open for the next life. */
  async close(): Promise<void> {
    await this.dropListens();
  }

  /** The process is gone: every later statement fails, an open transaction rolls back, its LISTENs end. */
  kill(): void {
    if (this.dead) return;
    this.dead = true;
    this.killNow(new ConnectionCut('the process died'));
    void this.dropListens();
  }

  private async dropListens(): Promise<void> {
    await Promise.all([...this.unlisteners].map((u) => u().catch(() => {})));
  }

  private check(what: string): void {
    if (this.dead) throw new ConnectionCut(`${what} after the process died`);
  }

  private async run<T>(on: Queryable, sql: string, params: unknown[] | undefined, inTransaction: boolean): Promise<{ rows: T[]; rowCount: number }> {
    this.check('query');
    const text = this.opts.rewrite ? this.opts.rewrite(sql) : sql;
    const cut = this.opts.faults?.cut(text, inTransaction) ?? null;
    if (cut === 'before') return this.cutNow('before the statement');
    this.inFlight++;
    this.sent++;
    let tallyKey: string | null = null;
    if (this.tally) {
      let k = text.replace(/\s+/g, ' ').trim().slice(0, 90);
      // SIM_SQL_STACK=<prefix>: that statement counted by the frames that sent it.
      if (process.env.SIM_SQL_STACK && k.startsWith(process.env.SIM_SQL_STACK)) {
        // Call sites without source maps (their lookup reads files: real I/O the simulation would wait for).
        const prepare = Error.prepareStackTrace;
        Error.prepareStackTrace = (_e, sites) => sites;
        const sites = (new Error().stack as unknown as NodeJS.CallSite[]).slice(2);
        Error.prepareStackTrace = prepare;
        k += ' <- ' + sites.filter((c) => (c.getFileName() ?? '').includes('/src/') && !/order-transitions|confirm-deposits|db\.ts|clocked-db/.test(c.getFileName() ?? '')).slice(0, 5).map((c) => `${c.getFunctionName() ?? '?'} ${(c.getFileName() ?? '').replace(/.*\/src\//, '')}`).join(' < ');
      }
      this.tally.set(k, (this.tally.get(k) ?? 0) + 1);
      tallyKey = k;
    }
    const started = tallyKey ? performance.now() : 0;
    try {
      const result = await on.query<T>(text, params);
      if (tallyKey) this.tallyMs.set(tallyKey, (this.tallyMs.get(tallyKey) ?? 0) + performance.now() - started);
      if (this.dead) throw new ConnectionCut('the process died before the answer');
      if (cut === 'after') return this.cutNow('the answer was lost');
      return result;
    } finally {
      this.inFlight--;
    }
  }

  private cutNow(what: string): never {
    // Notifications sent while the connection was down are lost: those listening hear of it.
    for (const lost of this.lostHandlers) lost();
    throw new ConnectionCut(what);
  }
}
