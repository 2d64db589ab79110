import { ConfigError } from './config-error.ts';

/** An integer setting within min..max, `fallback` when unset or empty; anything else is a ConfigError naming it. */
export function envInt(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) throw new ConfigError(`${name} must be an integer in ${min}..${max}, got "${raw}"`);
  return n;
}
