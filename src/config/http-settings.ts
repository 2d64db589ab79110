import { isIP } from 'node:net';
import { adminToken } from './admin-token.ts';
import { ConfigError } from './config-error.ts';
import { envInt } from './env-int.ts';

export interface RateLimits {
  quote: number;
  order: number;
  status: number;
  tokens: number;
  /** The partner's own account (docs/spec.md §4 self-service): rare operations, a tight bucket. */
  account: number;
}

/** The two listeners: where they are, how long a request may take, who is limited how (docs/spec.md §7, §11). */
export interface HttpSettings {
  port: number;
  /** The ops listener of every role: /healthz, /readyz, /metrics and /admin/v1 (HUSH_OPS_PORT; default PORT + 1, 0 when PORT is 0). */
  opsPort: number;
  /** Its address (HUSH_OPS_HOST, default loopback): nothing on it is meant for partners. */
  opsHost: string;
  /**
   * Host names the ops listener answers to besides address literals and `localhost` (HUSH_OPS_HOSTNAMES, comma
   * separated): a request naming another host is refused (src/api/served-host.ts: DNS rebinding).
   */
  opsHostnames: string[];
  host: string;
  /** On SIGTERM, how long the API keeps serving (every answer `Connection: close`, /readyz 503) before it closes (HUSH_DRAIN_GRACE_MS). */
  drainGraceMs: number;
  /** How long a request may take to arrive, headers and body, before it is refused (HUSH_REQUEST_TIMEOUT_MS). */
  requestTimeoutMs: number;
  adminToken?: string;
  rateLimits: RateLimits;
  /** Per client address per second (burst ×2) for partner-API requests no key's bucket covers: failed authentication, no such route. */
  anonymousRateLimit: number;
  /** Which proxies' X-Forwarded-For names the client (HUSH_TRUST_PROXY): none, or addresses / CIDR ranges. */
  trustProxy: false | string;
}

/** The partner port when PORT is unset. */
export const DEFAULT_PORT = 8787;

/**
 * Where the ops listener is, from the variables the server reads (HUSH_OPS_HOST, HUSH_OPS_PORT, PORT): the
 * admin CLI finds a running server with the same function.
 */
export function opsAddress(env: NodeJS.ProcessEnv): { host: string; port: number } {
  return { host: env.HUSH_OPS_HOST || '127.0.0.1', port: opsPort(env, envInt(env, 'PORT', DEFAULT_PORT, 0, 65535)) };
}

/** HUSH_OPS_PORT, else the partner port + 1 (0 stays 0: an ephemeral port for each); never the partner port itself. */
function opsPort(env: NodeJS.ProcessEnv, port: number): number {
  if (!env.HUSH_OPS_PORT && port === 65535) throw new ConfigError('PORT is 65535, so the ops port (PORT + 1) does not exist: set HUSH_OPS_PORT');
  const ops = envInt(env, 'HUSH_OPS_PORT', port === 0 ? 0 : port + 1, 0, 65535);
  if (ops !== 0 && ops === port) throw new ConfigError(`HUSH_OPS_PORT must differ from PORT (${port}): the ops listener is not the partner port`);
  return ops;
}

function rateLimits(raw: string | undefined): RateLimits {
  const out: RateLimits = { quote: 20, order: 5, status: 50, tokens: 50, account: 1 };
  if (!raw) return out;
  for (const part of raw.split(',')) {
    const [k, v] = part.split('=').map((s) => s.trim());
    if (!k || !(k in out) || !v || !/^\d+$/.test(v) || Number(v) < 1) throw new ConfigError(`HUSH_RATE_LIMITS: bad entry "${part}"`);
    out[k as keyof RateLimits] = Number(v);
  }
  return out;
}

/**
 * "false"/unset, or comma-separated proxy addresses / CIDR ranges. No hop count: it would trust whoever
 * connects (Fastify 5 refuses it for that reason). Nor "true" (every hop): the client's address would be
 * the leftmost X-Forwarded-For entry, which the client writes itself behind a proxy that appends (most do),
 * so a new made-up address per request would escape the per-address limit on key guessing.
 */
function trustProxy(raw: string | undefined): HttpSettings['trustProxy'] {
  const v = raw?.trim();
  if (!v || v === 'false') return false;
  if (v === 'true') {
    throw new ConfigError('HUSH_TRUST_PROXY=true would trust any X-Forwarded-For a client writes; name the proxies instead (addresses or CIDR ranges)');
  }
  for (const part of v.split(',')) {
    const [ip, bits, ...rest] = part.trim().split('/');
    const family = isIP(ip ?? '');
    const maxBits = family === 6 ? 128 : 32;
    if (!family || rest.length > 0 || (bits !== undefined && !(/^\d{1,3}$/.test(bits) && Number(bits) <= maxBits))) {
      throw new ConfigError(`HUSH_TRUST_PROXY must be false or proxy addresses (CIDR allowed), got "${raw}"`);
    }
    // A /0 range is every address: `true` by another name.
    if (bits !== undefined && Number(bits) === 0) {
      throw new ConfigError(`HUSH_TRUST_PROXY=${part.trim()} would trust every address, so any X-Forwarded-For a client writes; name the proxies instead`);
    }
  }
  return v;
}

const HOSTNAME = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;

function opsHostnames(raw: string | undefined): string[] {
  const names = (raw ?? '').split(',').map((n) => n.trim().toLowerCase().replace(/\.$/, '')).filter(Boolean);
  for (const n of names) if (!HOSTNAME.test(n)) throw new ConfigError(`HUSH_OPS_HOSTNAMES takes host names separated by commas (no ports, no addresses: those are always served), got "${n}"`);
  return names;
}

export function httpSettings(env: NodeJS.ProcessEnv): HttpSettings {
  const ops = opsAddress(env);
  return {
    port: envInt(env, 'PORT', DEFAULT_PORT, 0, 65535),
    opsPort: ops.port,
    opsHost: ops.host,
    opsHostnames: opsHostnames(env.HUSH_OPS_HOSTNAMES),
    host: env.HOST || '127.0.0.1',
    drainGraceMs: envInt(env, 'HUSH_DRAIN_GRACE_MS', 1000, 0, 60_000),
    requestTimeoutMs: envInt(env, 'HUSH_REQUEST_TIMEOUT_MS', 30_000, 100, 600_000),
    adminToken: adminToken(env.HUSH_ADMIN_TOKEN),
    rateLimits: rateLimits(env.HUSH_RATE_LIMITS),
    anonymousRateLimit: envInt(env, 'HUSH_ANONYMOUS_RATE_LIMIT', 10, 1, 1_000_000),
    trustProxy: trustProxy(env.HUSH_TRUST_PROXY),
  };
}
