import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { parseList } from './list-parsing.ts';
import type { ScreeningFinding, ScreeningProvider, ScreeningVerdict } from './screening-port.ts';
import type { Clock, Timer } from '../support/clock.ts';

/**
 * A blocked verdict's reason names the listing (the SDN entry), so a release covers that listing and no other:
 * the same address named by a new entry is a new finding (src/store/screening-log-store.ts, releaseCovers).
 */
export function listingOf(entry: string | null): string {
  return entry === null ? 'listed' : `listed (SDN entry ${entry})`;
}

/** How often the list files are checked for a change (one stat each; no restart needed). */
export const LIST_RELOAD_MS = 5_000;

export interface LoadedList {
  name: string;
  path: string;
  /**
   * What it lists: the first 16 hex digits of the sha256 of its addresses with their entries, sorted — never
   * when it was read, nor its comments or order, so a re-read, a restart or the next daily file of the same
   * listings is the same version (docs/spec.md §12).
   */
  version: string;
  loadedAt: string;
  addresses: Set<string>;
  /** The listing behind each address (ParsedList.entries). */
  entries: Map<string, string | null>;
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

  /** The first list's listing (a quote's question: blocked or not), read without building the others. */
  check(address: string): ScreeningVerdict {
    for (const f of this.listed(address)) return f;
    return { result: 'clear' };
  }

  /** Every list's listing of the address, in the operator's order of lists. */
  listings(address: string): ScreeningFinding[] {
    return [...this.listed(address)];
  }

  private *listed(address: string): Generator<ScreeningFinding> {
    for (const p of this.paths) {
      const l = this.lists.get(p);
      if (l?.addresses.has(address)) yield { result: 'blocked', address, reason: listingOf(l.entries.get(address) ?? null), list: l.name, version: l.version };
    }
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
      const listed = [...parsed.entries].map(([address, entry]) => `${address} ${entry ?? ''}`).sort();
      const version = createHash('sha256').update(listed.join('\n')).digest('hex').slice(0, 16);
      const list: LoadedList = { name, path, version, loadedAt: this.clock.date().toISOString(), addresses: parsed.addresses, entries: parsed.entries, stamp };
      this.lists.set(path, list);
      this.events.loaded?.(list);
    } catch (e) {
      this.events.unreadable?.(name, e as Error);
    }
  }
}
