import type { HushConfig } from '../config/config.ts';

/** Which variable sets each port Hush listens on, and what that port is, for a start-up error. */
function portSetting(port: number | undefined, config: HushConfig): string {
  if (port === undefined || port === 0) return 'set PORT, HUSH_OPS_PORT or LOCALNET_PORT';
  if (port === config.port) return 'set PORT (or HUSH_OPS_PORT for the ops listener)';
  if (port === config.opsPort) return `set HUSH_OPS_PORT (the ops listener; it defaults to PORT + 1)`;
  if (port === config.localnetPort) return 'set LOCALNET_PORT (the embedded chain), or SOLANA_RPC_URL to use a chain already running';
  if (port === config.localnetWsPort) return "set LOCALNET_WS_PORT (the embedded chain's PubSub)";
  return 'set PORT, HUSH_OPS_PORT or LOCALNET_PORT';
}

/** Errors of reaching PostgreSQL that a wrong DATABASE_URL causes: refused, no such host, bad login, no such database. */
const STORE_SETTING_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', '28P01', '28000', '3D000']);

/**
 * A failed start as one line: the cause and the variable to change, never a stack (which could carry SQL
 * or a connection string).
 */
export function startFailureMessage(e: unknown, config: HushConfig | null): string {
  const err = e as { message?: string; code?: string; port?: number } | null;
  if (config && (err?.code === 'EADDRINUSE' || err?.code === 'EACCES')) {
    const what = err.code === 'EADDRINUSE' ? 'is in use' : 'may not be opened by this user';
    return `port ${err.port ?? '?'} ${what}: ${portSetting(err.port, config)}`;
  }
  const cause = err?.message || err?.code || String(e);
  if (config?.databaseUrl && STORE_SETTING_CODES.has(err?.code ?? '')) return `${cause}: check DATABASE_URL`;
  return cause;
}
