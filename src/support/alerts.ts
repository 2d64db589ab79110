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
