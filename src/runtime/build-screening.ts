import type { FetchLike } from '../support/fetch-like.ts';
import type { HushConfig } from '../config/config.ts';
import { ProviderScreening } from '../screening/cached-screening.ts';
import { HttpProvider } from '../screening/http-provider.ts';
import { ListProvider } from '../screening/list-provider.ts';
import type { QuoteDecisionSink } from '../screening/quote-screening.ts';
import { SCREENING_OFF, type Screening } from '../screening/screening-port.ts';
import type { Db } from '../store/db.ts';
import { recordScreening } from '../store/screening-log-store.ts';
import type { Closers } from './closers.ts';
import type { AlertFn, Log } from './start-log.ts';
import type { Clock } from '../support/clock.ts';

/**
 * docs/spec.md §12: the screening port from HUSH_SCREENING_*; off (zero cost) when no provider is configured,
 * said once here. Lists are read before the first quote and re-read when they change; an unreadable one
 * keeps its last good content and alerts (at start, with no good content, it blocks nothing).
 */
export async function buildScreening(config: HushConfig, log: Log, alert: AlertFn, closers: Closers, clock: Clock, fetchFn?: FetchLike): Promise<Screening> {
  if (config.screeningLists.length === 0 && !config.screeningUrl) {
    log('screening: off (no HUSH_SCREENING_LISTS or HUSH_SCREENING_URL)');
    return SCREENING_OFF;
  }
  const lists =
    config.screeningLists.length > 0
      ? new ListProvider(config.screeningLists, clock, {
          skipped: (list, line, message) => log(`screening: ${list} line ${line} skipped: ${message}`),
          unreadable: (list, e) => alert('screening_list_unreadable', { list, error: e.message }, `screening: ${list} cannot be read; its last good version stays in use`),
          shrunk: (list, kept, parsed) =>
            alert('screening_list_shrunk', { list, kept, parsed }, `screening: ${list} now parses to ${parsed} addresses, fewer than half of the ${kept} in use; the last good version stays in use (check the file; a restart accepts it)`),
          loaded: (l) => log(`screening: loaded ${l.name} (${l.addresses.size} SOL addresses, version ${l.version})`),
        })
      : null;
  if (lists) {
    await lists.refresh();
    lists.start(config.screeningReloadMs);
    closers.add(() => lists.stop());
  }
  const http = config.screeningUrl ? new HttpProvider(config.screeningUrl, config.screeningKey, clock, config.screeningTimeoutMs, fetchFn) : null;
  const screening = new ProviderScreening(lists, http, () => ({
    enabled: true,
    lists: (lists?.loaded() ?? []).map((l) => ({ name: l.name, version: l.version, loadedAt: l.loadedAt, addresses: l.addresses.size })),
    http: http?.name ?? null,
    onError: config.screeningOnError,
  }), clock, config.screeningCacheTtlS * 1000, config.screeningRatePerAccount);
  log(`screening: on (${[lists ? `${config.screeningLists.length} list(s)` : '', http?.name ?? ''].filter(Boolean).join(', ')}; on error: ${config.screeningOnError})`);
  return screening;
}

/** Writes a quote refused at screening to the screening log; a store failure there never fails the 403. */
export function quoteDecisionSink(db: Db, log: Log): QuoteDecisionSink {
  return (field, v, account) => {
    recordScreening(db, { stage: 'quote', field, address: v.address, result: 'blocked', list: v.list, version: v.version, reason: v.reason, actor: 'hush', accountId: account ?? null }).catch((e: Error) =>
      log(`screening: could not record a quote decision: ${e.message}`),
    );
  };
}

/** /readyz's one line about screening (docs/spec.md §12). */
export function screeningSummary(screening: Screening): string {
  const d = screening.describe();
  if (!d.enabled) return 'off';
  // When each list was last read: a version names what a list holds, so a re-read of the same listings shows only here.
  const parts = d.lists.map((l) => `${l.name}@${l.version} (${l.addresses}) read ${l.loadedAt}`);
  if (d.http) parts.push(d.http);
  return `on: ${parts.join(', ') || 'no list loaded'}; on error ${d.onError}`;
}
