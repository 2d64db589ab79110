// What every part of the operator console shares: building elements, the admin API with the tab's token,
// the configured assets' units, and the polite announcement for screen readers.
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
  }
}

let unauthorized = () => {};
/** What a refused token does (the session signs out); set once by the page. */
export const onUnauthorized = (f) => (unauthorized = f);

export async function api(path, opts = {}) {
  const token = sessionStorage.getItem('hush.adminToken');
  let r;
  try {
    r = await fetch(path, {
      method: opts.method ?? 'GET',
      headers: { authorization: `Bearer ${token}`, ...(opts.body ? { 'content-type': 'application/json' } : {}) },
      body: opts.body ? JSON.stringify(opts.body) : undefined,
      cache: 'no-store',
      credentials: 'omit',
    });
  } catch {
    // fetch's own words ("Failed to fetch") say nothing to an operator.
    throw new ApiError(0, null);
  }
  const body = await r.json().catch(() => null);
  if (!r.ok || !body?.success) {
    const e = new ApiError(r.status, body);
    if (r.status === 401) unauthorized('The admin token was refused: ' + e.message);
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
  try {
    r = await fetch(path, { headers: { authorization: `Bearer ${sessionStorage.getItem('hush.adminToken')}` }, cache: 'no-store', credentials: 'omit' });
  } catch {
    throw new ApiError(0, null);
  }
  if (!r.ok) {
    const e = new ApiError(r.status, await r.json().catch(() => null));
    if (r.status === 401) unauthorized('The admin token was refused: ' + e.message);
    throw e;
  }
  const name = /filename="([^"]+)"/.exec(r.headers.get('content-disposition') ?? '')?.[1] ?? 'export.csv';
  return { blob: await r.blob(), name, next: r.headers.get('x-export-next-before') };
}
