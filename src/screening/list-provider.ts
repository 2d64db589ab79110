import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { parseList } from './list-parsing.ts';
import type { ScreeningProvider, ScreeningVerdict } from './screening-port.ts';
import type { Clock, Timer } from '../support/clock.ts';

/** How often the list files are checked for a change (one stat each; no restart needed). */
export const LIST_RELOAD_MS = 5_000;

export interface LoadedList {
  name: string;
  path: string;
  /** sha256 of the content, first 16 hex digits, and when it was loaded: `<hash>@<ISO time>`. */
  version: string;
  hash: string;
  loadedAt: string;
  addresses: Set<string>;
  /** mtime and size of the file last read: a change of either reloads it. */
  stamp: string;
}

/** What the provider reports: skipped lines (info) and unreadable files (alert). */
export interface ListEvents {
  skipped?(list: string, line: number, message: string): void;
  unreadable?(list: string, error: Error): void;
  /** A reload that parsed to fewer than half the addresses of the set in use: refused (the last good set stays). */
  shrunk?(list: string, kept: number, parsed: number): void;
  loaded?(list: LoadedList): void;
}

/**
 * docs/spec.md §12 lists provider: the operator's files of blocked addresses (HUSH_SCREENING_LISTS),
 * held in memory, answered without I/O. A file that cannot be read (at start or later) keeps its last
 * good content and alerts; a malformed line is reported and skipped; a reload parsing to fewer than half
 * the addresses in use keeps the last good set and alerts (a restart accepts a list that truly shrank).
 */
export class ListProvider implements ScreeningProvider {
  readonly name = 'lists';
  private readonly lists = new Map<string, LoadedList>();
  /** Per path, the stamp of a content refused as shrunk: not read (nor alerted) again until it changes. */
  private readonly refused = new Map<string, string>();
  private timer: Timer | null = null;

  constructor(
    private readonly paths: readonly string[],
    /** Stamps each load and paces the reloads. */
    private readonly clock: Clock,
    private readonly events: ListEvents = {},
  ) {}

  /** Reads every file whose mtime or size changed since it was last read. */
  async refresh(): Promise<void> {
    await Promise.all(this.paths.map((p) => this.refreshOne(p)));
  }

  start(periodMs = LIST_RELOAD_MS): void {
    if (this.timer) return;
    this.timer = this.clock.every(periodMs, () => void this.refresh());
  }

  stop(): void {
    this.timer?.cancel();
    this.timer = null;
  }

  /** In the operator's order (HUSH_SCREENING_LISTS), never the order the reads happened to finish in. */
  loaded(): LoadedList[] {
    return this.paths.flatMap((p) => this.lists.get(p) ?? []);
  }

  check(address: string): ScreeningVerdict {
    for (const p of this.paths) {
      const l = this.lists.get(p);
      if (l?.addresses.has(address)) return { result: 'blocked', address, reason: 'listed', list: l.name, version: l.version };
    }
    return { result: 'clear' };
  }

  private async refreshOne(path: string): Promise<void> {
    const name = basename(path);
    try {
      const s = await stat(path);
      const stamp = `${s.mtimeMs}:${s.size}`;
      const last = this.lists.get(path);
      if (last?.stamp === stamp || this.refused.get(path) === stamp) return;
      const text = await readFile(path, 'utf8');
      const parsed = parseList(text, name);
      for (const e of parsed.errors) this.events.skipped?.(name, e.line, e.message);
      // A list that loses more than half its addresses at once is far likelier a broken file (a truncated
      // download, a changed format) than a mass delisting: the last good set stays and the operator is told.
      if (last && parsed.addresses.size * 2 < last.addresses.size) {
        this.refused.set(path, stamp);
        this.events.shrunk?.(name, last.addresses.size, parsed.addresses.size);
        return;
      }
      this.refused.delete(path);
      const hash = createHash('sha256').update(text).digest('hex').slice(0, 16);
      const loadedAt = this.clock.date().toISOString();
      const list: LoadedList = { name, path, hash, loadedAt, version: `${hash}@${loadedAt}`, addresses: parsed.addresses, stamp };
      this.lists.set(path, list);
      this.events.loaded?.(list);
    } catch (e) {
      this.events.unreadable?.(name, e as Error);
    }
  }
}
