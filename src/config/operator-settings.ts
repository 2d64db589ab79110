import { ConfigError } from './config-error.ts';
import { envInt } from './env-int.ts';

/** Single sign-on to the console (docs/spec.md §12 "Named operators"): an OpenID Connect provider and this client. */
export interface OidcSettings {
  /** HUSH_OIDC_ISSUER: https, or http on a loopback host only (a provider run beside Hush for development). */
  issuer: string;
  clientId: string;
  /** HUSH_OIDC_CLIENT_SECRET; unset: a public client (PKCE only). */
  clientSecret?: string;
  /** HUSH_OIDC_REDIRECT_URL: this console's callback as registered with the provider (…/console/sign-in/callback). */
  redirectUrl: string;
}

export interface OperatorSettings {
  oidc?: OidcSettings;
  /** A console session ends after this many minutes without a request (HUSH_CONSOLE_IDLE_MINUTES, default 15). */
  consoleIdleMinutes: number;
  /** …and this many hours after sign-in in any case (HUSH_CONSOLE_SESSION_HOURS, default 12). */
  consoleSessionHours: number;
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

function url(env: NodeJS.ProcessEnv, name: string): URL {
  const raw = env[name] ?? '';
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be a URL, got "${raw.slice(0, 100)}"`);
  }
  if (u.protocol !== 'https:' && !(u.protocol === 'http:' && LOOPBACK.has(u.hostname))) throw new ConfigError(`${name} must be https (http only on a loopback host), got "${raw.slice(0, 100)}"`);
  return u;
}

export function operatorSettings(env: NodeJS.ProcessEnv): OperatorSettings {
  const base = { consoleIdleMinutes: envInt(env, 'HUSH_CONSOLE_IDLE_MINUTES', 15, 1, 24 * 60), consoleSessionHours: envInt(env, 'HUSH_CONSOLE_SESSION_HOURS', 12, 1, 7 * 24) };
  if (!env.HUSH_OIDC_ISSUER) {
    for (const n of ['HUSH_OIDC_CLIENT_ID', 'HUSH_OIDC_CLIENT_SECRET', 'HUSH_OIDC_REDIRECT_URL']) if (env[n]) throw new ConfigError(`${n} is set but HUSH_OIDC_ISSUER is not`);
    return base;
  }
  if (!env.HUSH_OIDC_CLIENT_ID) throw new ConfigError('HUSH_OIDC_ISSUER is set: HUSH_OIDC_CLIENT_ID is required');
  if (!env.HUSH_OIDC_REDIRECT_URL) throw new ConfigError('HUSH_OIDC_ISSUER is set: HUSH_OIDC_REDIRECT_URL (the console callback registered with the provider) is required');
  url(env, 'HUSH_OIDC_ISSUER');
  const redirect = url(env, 'HUSH_OIDC_REDIRECT_URL');
  if (!redirect.pathname.endsWith('/console/sign-in/callback')) throw new ConfigError('HUSH_OIDC_REDIRECT_URL must end in /console/sign-in/callback');
  return {
    ...base,
    oidc: {
      // As written: the provider's issuer identifier is compared exactly (a URL's normal form may add a slash).
      issuer: env.HUSH_OIDC_ISSUER,
      clientId: env.HUSH_OIDC_CLIENT_ID,
      ...(env.HUSH_OIDC_CLIENT_SECRET ? { clientSecret: env.HUSH_OIDC_CLIENT_SECRET } : {}),
      redirectUrl: redirect.href,
    },
  };
}
