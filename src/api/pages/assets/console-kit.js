// What every part of the operator console shares: building elements, the admin API as the operator who signed
// in (a single sign-on session's cookie, or their personal token kept in this tab), who that is, the configured
// assets' units, and the polite announcement for screen readers.
import { amountWords, inUnits } from './receipt-words.js';

export const $ = (id) => document.getElementById(id);

export function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined && v !== null && v !== false) e.setAttribute(k, v === true ? '' : v);
  for (const c of children) if (c !== null && c !== undefined) e.append(c);
  return e;
}
export const td = (text, cls) => el('td', cls ? { class: cls } : {}, text ?? '—');
export const announce = (text) => ($('announce').textContent = text);

/**
 * A table in a box of its own that scrolls sideways when the table is wider than the screen (a phone): the
 * page itself never does. Focusable and named, so a keyboard can scroll it and a screen reader says what it is.
 */
export const scrollBox = (label, table) => el('div', { class: 'table-box', role: 'region', 'aria-label': label, tabindex: '0' }, table);

export class ApiError extends Error {
  constructor(status, body) {
    super(body?.error?.message ?? (status ? `HTTP ${status}` : 'the server did not answer'));
    this.status = status;
    this.code = body?.error?.code ?? null;
    this.details = body?.error?.details ?? null;
  }
}

let unauthorized = () => {};
/** What a refused token does (the session signs out); set once by the page. */
export const onUnauthorized = (f) => (unauthorized = f);

/**
 * How a request says who asks: the personal token kept in this tab, or the single sign-on session's cookie with
 * the console's header (`1` for what a person did, `refresh` for the page's own polling).
 */
function credentialsFor(active) {
  const token = sessionStorage.getItem('hush.operatorToken');
  return token ? { headers: { authorization: `Bearer ${token}` }, credentials: 'omit' } : { headers: { 'x-hush-console': active ? '1' : 'refresh' }, credentials: 'same-origin' };
}

const refused = (e) => unauthorized(sessionStorage.getItem('hush.operatorToken') ? `Your token was refused: ${e.message}` : 'Your session ended (signed out, idle too long, or too old): sign in again.');

let me = null;
/** Who is signed in, as GET /admin/v1/me answered: `{operatorId, name, role, logsAs}`. */
export const signedIn = () => me;
export const setSignedIn = (operator) => (me = operator);

/**
 * A read is the page's own refresh unless `opts.active` says a person asked for it: it does not keep a single
 * sign-on session from idling out (the server restarts its idle clock only for what a person does: a decision,
 * or the activity ping of console.js).
 */
export async function api(path, opts = {}) {
  const active = opts.active || (opts.method ?? 'GET') !== 'GET';
  const { headers: credentials, credentials: cookies } = credentialsFor(active);
  let r;
  try {
    r = await fetch(path, {
      method: opts.method ?? 'GET',
      headers: { ...credentials, ...(opts.body ? { 'content-type': 'application/json' } : {}) },
      body: opts.body ? JSON.stringify(opts.body) : undefined,
      cache: 'no-store',
      credentials: cookies,
    });
  } catch {
    // fetch's own words ("Failed to fetch") say nothing to an operator.
    throw new ApiError(0, null);
  }
  const body = await r.json().catch(() => null);
  if (!r.ok || !body?.success) {
    const e = new ApiError(r.status, body);
    if (r.status === 401) refused(e);
    throw e;
  }
  return body;
}

let assets = [];
export const setAssets = (list) => (assets = list);
export const units = (amount, assetId) => amountWords(amount, assetId, assets);
export const unitsOnly = (amount, assetId) => {
  const a = assets.find((x) => x.assetId === assetId);
  return a ? inUnits(amount, a.decimals) : amount;
};

/**
 * A file from the admin API (the log's CSV), fetched with the tab's token as `api` does: its Blob, the name the
 * server gave it, and where a cut export would go on. A refusal throws as `api` does.
 */
export async function apiFile(path) {
  let r;
  const { headers, credentials } = credentialsFor(true);
  try {
    r = await fetch(path, { headers, cache: 'no-store', credentials });
  } catch {
    throw new ApiError(0, null);
  }
  if (!r.ok) {
    const e = new ApiError(r.status, await r.json().catch(() => null));
    if (r.status === 401) refused(e);
    throw e;
  }
  const name = /filename="([^"]+)"/.exec(r.headers.get('content-disposition') ?? '')?.[1] ?? 'export.csv';
  return { blob: await r.blob(), name, next: r.headers.get('x-export-next-before') };
}
