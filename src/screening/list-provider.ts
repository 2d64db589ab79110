import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { parseList } from './list-parsing.ts';
import type { ScreeningProvider, ScreeningVerdict } from './screening-port.ts';

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
  loaded?(list: LoadedList): void;
}

/**
 * docs/spec.md §12 lists provider: the operator's files of blocked addresses (HUSH_SCREENING_LISTS),
 * held in memory, answered without I/O. A file that cannot be read (at start or later) keeps its last
 * good content and alerts; a malformed line is reported and skipped.
 */
export class ListProvider implements ScreeningProvider {
  readonly name = 'lists';
  private readonly lists = new Map<string, LoadedList>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly paths: readonly string[],
    private readonly events: ListEvents = {},
  ) {}

  /** Reads every file whose mtime or size changed since it was last read. */
  async refresh(): Promise<void> {
    await Promise.all(this.paths.map((p) => this.refreshOne(p)));
  }

  start(periodMs = LIST_RELOAD_MS): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.refresh(), periodMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  loaded(): LoadedList[] {
    return [...this.lists.values()];
  }

  check(address: string): ScreeningVerdict {
    for (const l of this.lists.values()) {
      if (l.addresses.has(address)) return { result: 'blocked', address, reason: 'listed', list: l.name, version: l.version };
    }
    return { result: 'clear' };
  }

  private async refreshOne(path: string): Promise<void> {
    const name = basename(path);
    try {
      const s = await stat(path);
      const stamp = `${s.mtimeMs}:${s.size}`;
      if (this.lists.get(path)?.stamp === stamp) return;
      const text = await readFile(path, 'utf8');
      const parsed = parseList(text);
      for (const e of parsed.errors) this.events.skipped?.(name, e.line, e.message);
      const hash = createHash('sha256').update(text).digest('hex').slice(0, 16);
      const loadedAt = new Date().toISOString();
      const list: LoadedList = { name, path, hash, loadedAt, version: `${hash}@${loadedAt}`, addresses: parsed.addresses, stamp };
      this.lists.set(path, list);
      this.events.loaded?.(list);
    } catch (e) {
      this.events.unreadable?.(name, e as Error);
    }
  }
}
