import { ConfigError } from './config-error.ts';

/** pino's levels, most verbose first; `silent` logs nothing. */
export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** LOG_LEVEL (default info): anything else refuses to start, naming the variable and the levels. */
export function logLevel(raw: string | undefined): LogLevel {
  const v = raw || 'info';
  if (!(LOG_LEVELS as readonly string[]).includes(v)) throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${raw}"`);
  return v as LogLevel;
}

/** Whether a record at `level` is written under the configured level. */
export function logs(configured: LogLevel, level: Exclude<LogLevel, 'silent'>): boolean {
  return LOG_LEVELS.indexOf(level) >= LOG_LEVELS.indexOf(configured);
}
