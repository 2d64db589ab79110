import { congestionFromEnv, type CongestionOptions } from './congestion-profile.ts';
import { MAX_LAG_SLOTS } from './lagging-view.ts';

/** Settings of the embedded chain, from the environment (docs/spec.md §11). */
export interface LocalnetConfig {
  host: string;
  port: number;
  /** PubSub WebSocket port; unset → port + 1. */
  wsPort?: number;
  slotMs: number;
  dataDir: string;
  /** A chain that congests like mainnet (LOCALNET_CONGESTION…); absent or null: off, every valid transaction lands. */
  congestion?: CongestionOptions | null;
  /** A second JSON-RPC endpoint that lags `slots` behind (LOCALNET_LAGGING_PORT, LOCALNET_LAG_SLOTS); absent: none. */
  lagging?: { port: number; slots: number } | null;
}

function intFrom(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) throw new Error(`${name} must be an integer between ${min} and ${max}, got "${raw}"`);
  return n;
}

export function localnetConfigFromEnv(env: NodeJS.ProcessEnv = process.env): LocalnetConfig {
  return {
    host: env.LOCALNET_HOST || '127.0.0.1',
    port: intFrom(env, 'LOCALNET_PORT', 8899, 0, 65535),
    ...(env.LOCALNET_WS_PORT ? { wsPort: intFrom(env, 'LOCALNET_WS_PORT', 0, 0, 65535) } : {}),
    slotMs: intFrom(env, 'LOCALNET_SLOT_MS', 400, 10, 60_000),
    dataDir: env.DATA_DIR || './data',
    ...localnetExtrasFromEnv(env),
  };
}

/** Congestion and the lagging endpoint: what the embedded chain of `npm start` reads too (src/runtime). */
export function localnetExtrasFromEnv(env: NodeJS.ProcessEnv): Pick<LocalnetConfig, 'congestion' | 'lagging'> {
  const lagging = env.LOCALNET_LAGGING_PORT ? { port: intFrom(env, 'LOCALNET_LAGGING_PORT', 0, 0, 65535), slots: intFrom(env, 'LOCALNET_LAG_SLOTS', 4, 1, MAX_LAG_SLOTS) } : null;
  return { congestion: congestionFromEnv(env), lagging };
}
