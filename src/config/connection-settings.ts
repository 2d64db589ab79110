import { envInt } from './env-int.ts';
import { ConfigError } from './config-error.ts';

/** How many connections the listeners keep open (docs/spec.md §7 "Connections"; docs/decisions.md). */
export interface ConnectionSettings {
  /** HUSH_MAX_CONNECTIONS: the partner port's open connections in all. */
  maxConnections: number;
  /** HUSH_MAX_CONNECTIONS_PER_IP: per client address (IPv6 /56) on the partner port; trusted proxies are not counted. */
  maxConnectionsPerIp: number;
  /** HUSH_OPS_MAX_CONNECTIONS: the ops listener's open connections in all (no per-address cap: it is not public). */
  opsMaxConnections: number;
  /** HUSH_WRITE_TIMEOUT_MS: how long an answer may take to reach the client once it started; then its connection is closed. */
  writeTimeoutMs: number;
}

/**
 * 4,096: a fifth of the 20,000 descriptors the process that was flooded had (issue 43), and far below the
 * limits container runtimes and systemd give a service today; the start lowers it (and says so) when the
 * process's own limit leaves less room (src/runtime/connection-budget.ts).
 */
export const DEFAULT_MAX_CONNECTIONS = 4096;
/** 64: a partner's connection pool at its highest per-key rates needs a few; a NAT of several partners, dozens. */
export const DEFAULT_MAX_CONNECTIONS_PER_IP = 64;
/** 256: probes, a metrics scraper and the admin CLI use a handful; a load balancer's probes in parallel, tens. */
export const DEFAULT_OPS_MAX_CONNECTIONS = 256;
/**
 * 30 s: the API reference's largest asset (the swagger UI bundle, ~0.5 MB compressed) reaches a client at
 * 20 KB/s within it; a client that does not read at all holds its connection no longer (issue 50), and less
 * under pressure, where an answer without progress for a second is dropped.
 */
export const DEFAULT_WRITE_TIMEOUT_MS = 30_000;

export function connectionSettings(env: NodeJS.ProcessEnv): ConnectionSettings {
  const maxConnections = envInt(env, 'HUSH_MAX_CONNECTIONS', DEFAULT_MAX_CONNECTIONS, 16, 1_000_000);
  const maxConnectionsPerIp = envInt(env, 'HUSH_MAX_CONNECTIONS_PER_IP', Math.min(DEFAULT_MAX_CONNECTIONS_PER_IP, maxConnections), 1, 1_000_000);
  if (maxConnectionsPerIp > maxConnections) {
    throw new ConfigError(`HUSH_MAX_CONNECTIONS_PER_IP (${maxConnectionsPerIp}) must not exceed HUSH_MAX_CONNECTIONS (${maxConnections}): it would never apply`);
  }
  return {
    maxConnections,
    maxConnectionsPerIp,
    opsMaxConnections: envInt(env, 'HUSH_OPS_MAX_CONNECTIONS', DEFAULT_OPS_MAX_CONNECTIONS, 8, 100_000),
    writeTimeoutMs: envInt(env, 'HUSH_WRITE_TIMEOUT_MS', DEFAULT_WRITE_TIMEOUT_MS, 1000, 600_000),
  };
}
