import { ConfigError } from './config-error.ts';

/** An optional URL variable: unset or empty → undefined; else it must parse with one of the schemes (or be a socket path). */
export function envUrl(env: NodeJS.ProcessEnv, name: string, protocols: string[], socketPath = false): string | undefined {
  const raw = env[name];
  if (!raw) return undefined;
  if (socketPath && raw.startsWith('/')) return raw;
  let parsed: URL | null = null;
  try {
    parsed = new URL(raw);
  } catch {
    // reported below
  }
  // The value itself is not echoed: a connection string can carry a password.
  if (!parsed || !protocols.includes(parsed.protocol)) throw new ConfigError(`${name} must be a ${protocols.map((p) => `${p}//`).join(' or ')} URL`);
  return raw;
}
