import { readFileSync } from 'node:fs';
import type { HushConfig } from '../config/config.ts';
import type { ConnectionLimits } from '../api/connection-guard.ts';

/**
 * Descriptors kept for everything but the two listeners' connections: the store's pool, the chain's RPC and
 * PubSub connections, Redis, webhook deliveries (16 at once), the screening provider, the embedded chain and
 * its files, logs. Measured 2026-11-25: a Hush on PGlite with the embedded chain, serving, holds 148 beyond a
 * bare Node process (122 of them PGlite's and the chain's open files, 16 sockets); the rest is margin.
 */
export const FD_RESERVE = 512;

/**
 * The process's open-file limit (the soft RLIMIT_NOFILE, which Node raises to the hard limit as it starts),
 * from /proc/self/limits: Node has no call for it. null where there is no such file (not Linux) or no limit.
 */
export function openFileLimit(read: () => string = () => readFileSync('/proc/self/limits', 'utf8')): number | null {
  try {
    const m = /^Max open files\s+(\d+|unlimited)\s/m.exec(read());
    return m && m[1] !== 'unlimited' ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

export interface ConnectionBudget {
  partner: ConnectionLimits;
  ops: ConnectionLimits;
  /** The limit the caps were checked against (null: unknown, the settings are taken as they are). */
  fileLimit: number | null;
  /** The settings the limit lowered, for the start's log. */
  lowered: string[];
}

/** Of the descriptors the listeners may use, the share the partner cap may take when the limit is tight: the rest answers connections over a cap. */
const PARTNER_SHARE = 0.75;

/**
 * The listeners' caps within the process's descriptors: the ops listener's, the partner port's, the room for
 * answering connections over a cap (docs/spec.md §7: 429/503, not a reset) and FD_RESERVE together stay below
 * the limit, so a flood of the partner port can never take the descriptors /readyz, the store or the chain
 * need. A setting the limit cannot hold is lowered (never raised).
 */
export function connectionBudget(config: Pick<HushConfig, 'maxConnections' | 'maxConnectionsPerIp' | 'opsMaxConnections' | 'writeTimeoutMs'>, fileLimit = openFileLimit()): ConnectionBudget {
  let ops = config.opsMaxConnections;
  let partner = config.maxConnections;
  // With no limit known: four times the partner cap (an answer takes its descriptor for a moment, ANSWER_WAIT_MS at most).
  let answering = 4 * partner;
  const lowered: string[] = [];
  if (fileLimit !== null) {
    const room = fileLimit - FD_RESERVE;
    ops = Math.max(8, Math.min(ops, Math.floor(room / 8)));
    partner = Math.max(16, Math.min(partner, Math.floor((room - ops) * PARTNER_SHARE)));
    answering = Math.max(0, room - ops - partner);
    if (ops < config.opsMaxConnections) lowered.push(`HUSH_OPS_MAX_CONNECTIONS ${config.opsMaxConnections} → ${ops}`);
    if (partner < config.maxConnections) lowered.push(`HUSH_MAX_CONNECTIONS ${config.maxConnections} → ${partner}`);
  }
  return {
    partner: { maxTotal: partner, maxPerAddress: Math.min(config.maxConnectionsPerIp, partner), maxAnswering: answering, writeTimeoutMs: config.writeTimeoutMs },
    ops: { maxTotal: ops, maxPerAddress: 0, maxAnswering: Math.min(ops, answering), writeTimeoutMs: config.writeTimeoutMs },
    fileLimit,
    lowered,
  };
}
