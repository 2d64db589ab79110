import { Counter } from 'prom-client';

/**
 * ALERT records by kind, for /metrics (`hush_alerts_total{kind}`): one counter per process, registered
 * in every registry it serves. An ALERT record carries `alert: <kind>` beside its order and amounts.
 */
export const alertsTotal = new Counter({ name: 'hush_alerts_total', help: 'ALERT records written, by kind', labelNames: ['kind'] as const, registers: [] });

/** Counts an alert of `kind` and returns the fields of its record, `alert: kind` first. */
export function alertFields(kind: string, fields: Record<string, unknown>): Record<string, unknown> {
  alertsTotal.inc({ kind });
  return { alert: kind, ...fields };
}

/** Where structured records go (pino's level methods in production); ALERT records at `warn`. */
export type RecordSink = (level: 'info' | 'warn', fields: Record<string, unknown>, msg: string) => void;

/** A record's fields as plain JSON values: bigints as decimal strings, errors as their message. */
export function plainFields(fields: Record<string, unknown>): Record<string, unknown> {
  return JSON.parse(JSON.stringify(fields, (_k, v) => (typeof v === 'bigint' ? v.toString() : v instanceof Error ? v.message : v)));
}

/** Writes one ALERT record of `kind` (counting it): what services and workers are handed. */
export type AlertSink = (kind: string, fields: Record<string, unknown>, msg: string) => void;
