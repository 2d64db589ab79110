import { alertFields, plainFields, type RecordSink } from '../support/alerts.ts';

export type Log = (msg: string) => void;
export type RecordFn = (fields: Record<string, unknown>, msg: string) => void;
export type AlertFn = (kind: string, fields: Record<string, unknown>, msg: string) => void;

/** One record: structured when a sink is given, else a text line with its fields as JSON; an ALERT is a record with its kind. */
export function startLog(log: Log, records: RecordSink | undefined): { record: RecordFn; alert: AlertFn } {
  const record: RecordFn = (fields, msg) => {
    const plain = plainFields(fields);
    if (records) records(plain.alert ? 'warn' : 'info', plain, msg);
    else log(`${msg} ${JSON.stringify(plain)}`);
  };
  const alert: AlertFn = (kind, fields, msg) => record(alertFields(kind, fields), `ALERT: ${msg}`);
  return { record, alert };
}
