/**
 * The screening log as the operator reads it (docs/spec.md §12): a page with the cursor of the next one, and the
 * CSV export of the same filters.
 *
 * The export is built whole, then sent, rather than streamed: it is bounded (LOG_EXPORT_MAX rows, about 3 MB at
 * the log's widest), so it fits in memory many times over, and it is one read of the store, so the file is one
 * consistent moment of the log. Streamed, a store error half-way would arrive as a 200 whose file simply stops,
 * which an operator could take for the whole log; built first, it is an error answer and no file.
 */
import { csvRecord } from '../support/csv.ts';
import type { ScreeningLogRow } from '../store/screening-log-store.ts';

/** The most rows one export holds: past it the file says where it stopped and how to get the rest. */
export const LOG_EXPORT_MAX = 10_000;

/**
 * A page of at most `limit` entries from `rows` (read with `limit + 1`, so one more says whether an older page
 * exists); `next` is the `before` of that page, or null at the log's oldest matching entry.
 */
export function logPage(rows: ScreeningLogRow[], limit: number): { entries: ScreeningLogRow[]; next: string | null } {
  const entries = rows.slice(0, limit);
  return { entries, next: rows.length > limit ? entries.at(-1)!.id : null };
}

const COLUMNS = ['id', 'at', 'trackingId', 'accountId', 'stage', 'field', 'address', 'result', 'list', 'version', 'reason', 'actor', 'approvedBy', 'note'] as const;

/**
 * The CSV of `rows` (read with `max + 1`), newest first, a header first. Cut at `max`: a last record says so and
 * gives the `before` that exports the rest (`next`).
 */
export function logCsv(rows: ScreeningLogRow[], max = LOG_EXPORT_MAX): { csv: string; rows: number; next: string | null } {
  const { entries, next } = logPage(rows, max);
  const lines = [csvRecord(COLUMNS), ...entries.map((e) => csvRecord(COLUMNS.map((c) => e[c])))];
  if (next !== null) lines.push(csvRecord([`# cut at ${entries.length} entries: older ones match too; export again with before=${next} for them`]));
  return { csv: lines.join(''), rows: entries.length, next };
}
