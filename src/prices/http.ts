/**
 * The HTTP seam of the remote adapters: an injected `fetch` (tests pass recorded responses; nothing
 * here ever reaches the internet on its own), a timeout, and errors that carry no secret (API keys go
 * in headers and never into messages).
 */
import { PriceSourceError } from './price-source.ts';
import type { Clock } from '../support/clock.ts';

export type { FetchLike } from '../support/fetch-like.ts';
import type { FetchLike } from '../support/fetch-like.ts';

export interface HttpOptions {
  fetch?: FetchLike;
  timeoutMs?: number;
  /** Where the timeout runs. */
  clock: Pick<Clock, 'timeout'>;
  headers?: Record<string, string>;
}

const DEFAULT_HTTP_TIMEOUT_MS = 5000;
/** Remote answers larger than this are refused (a price answer for a handful of assets is a few KiB). */
const MAX_BODY_CHARS = 1_000_000;

export type ErrorFactory = (message: string, cause?: unknown) => Error;

const priceError: ErrorFactory = (message, cause) => new PriceSourceError(message, cause === undefined ? undefined : { cause });

/**
 * Performs one request and returns the body text of a 2xx answer; any transport error, timeout,
 * non-2xx status or oversized body becomes an error built by `makeError` (PriceSourceError by default).
 * `what` names the endpoint in messages (no query string, so no key can leak).
 */
export async function requestText(
  what: string,
  url: string,
  init: RequestInit,
  opts: HttpOptions,
  makeError: ErrorFactory = priceError,
): Promise<{ status: number; text: string }> {
  const doFetch = opts.fetch ?? ((u: string, i?: RequestInit) => fetch(u, i));
  let res: Response;
  try {
    res = await doFetch(url, { ...init, headers: { accept: 'application/json', ...opts.headers, ...(init.headers as Record<string, string> | undefined) }, signal: opts.clock.timeout(opts.timeoutMs ?? DEFAULT_HTTP_TIMEOUT_MS) });
  } catch (e) {
    throw makeError(`${what}: request failed`, e);
  }
  let text: string;
  try {
    text = await res.text();
  } catch (e) {
    throw makeError(`${what}: reading the body failed`, e);
  }
  if (!res.ok) throw makeError(`${what}: HTTP ${res.status}${text ? `: ${text.slice(0, 200)}` : ''}`);
  if (text.length > MAX_BODY_CHARS) throw makeError(`${what}: body too large`);
  return { status: res.status, text };
}

/** Joins a base URL and a path without doubling or losing slashes. */
export function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
}
