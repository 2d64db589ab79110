// The operator console (docs/compliance.md "The console"): the admin API of this listener, read with the
// admin token the operator types (kept in this tab's sessionStorage), shown as holds to resolve, the
// screening log, reconcile, liquidity and privacy per class. It refreshes itself (every few seconds; reconcile,
// which reads the chain, every minute or on request). Resolutions go through POST /admin/v1/orders/{id}/resolve:
// the same service as the API and the CLI, refusals shown as the API words them.
import { amountWords, inUnits, timeWords } from './receipt-words.js';
import { barChart } from './console-charts.js';

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
/** Seconds between refreshes (?refresh=N, at least 1; default 5). */
const EVERY_S = Math.max(1, Number(params.get('refresh')) || 5);
const LIQUIDITY_EVERY_S = Math.max(EVERY_S, 15);
const RECONCILE_EVERY_S = 60;
let assets = [];
let timers = [];

function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined && v !== null && v !== false) e.setAttribute(k, v === true ? '' : v);
  for (const c of children) if (c !== null && c !== undefined) e.append(c);
  return e;
}
const td = (text, cls) => el('td', cls ? { class: cls } : {}, text ?? '—');
const announce = (text) => ($('announce').textContent = text);

class ApiError extends Error {
  constructor(status, body) {
    super(body?.error?.message ?? `HTTP ${status}`);
    this.status = status;
    this.code = body?.error?.code ?? null;
  }
}

async function api(path, opts = {}) {
  const token = sessionStorage.getItem('hush.adminToken');
  const r = await fetch(path, {
    method: opts.method ?? 'GET',
    headers: { authorization: `Bearer ${token}`, ...(opts.body ? { 'content-type': 'application/json' } : {}) },
    body: opts.body ? JSON.stringify(opts.body) : undefined,
    cache: 'no-store',
    credentials: 'omit',
  });
  const body = await r.json().catch(() => null);
  if (!r.ok || !body?.success) {
    const e = new ApiError(r.status, body);
    if (r.status === 401) signOut('The admin token was refused: ' + e.message);
    throw e;
  }
  return body;
}

const units = (amount, assetId) => amountWords(amount, assetId, assets);
const unitsOnly = (amount, assetId) => {
  const a = assets.find((x) => x.assetId === assetId);
  return a ? inUnits(amount, a.decimals) : amount;
};
const STAGES = { deposit: 'at deposit', payout: 'before payout', quote: 'at quote', resolution: 'resolution' };

// ---------------------------------------------------------------------------------------------- holds

/** Holds resolved from this page: trackingId → when it had been held (a later hold is a new one). */
const resolvedHere = new Map();

function holdCard(h) {
  const d = h.decision;
  const why = d ? `${d.result === 'error' ? 'could not be screened' : 'blocked'}${d.reason ? ` (${d.reason})` : ''}` : 'no decision recorded';
  const id = h.trackingId;
  const card = el('article', { class: 'card', 'data-hold': id, 'data-held-at': h.heldAt, 'aria-labelledby': `h-${id}` });
  card.append(
    el('h3', { id: `h-${id}` }, `${id}: held ${STAGES[d?.stage] ?? ''}`),
    el('table', {},
      el('caption', { class: 'visually-hidden' }, `Hold ${id}`),
      el('tbody', {},
        el('tr', {}, el('th', { scope: 'row' }, 'Status'), el('td', {}, el('span', { class: 'status-pill', 'data-status': '' }, 'held'))),
        el('tr', {}, el('th', { scope: 'row' }, 'Stage and field'), td(`${d?.stage ?? '—'}, ${d?.field ?? '—'}${d?.address ? ` (${d.address})` : ''}`)),
        el('tr', {}, el('th', { scope: 'row' }, 'Why'), td(`${why}${d?.list ? ` by list ${d.list}, version ${d.version ?? '—'}` : ''}`)),
        el('tr', {}, el('th', { scope: 'row' }, 'Held since'), td(timeWords(h.heldAt))),
        el('tr', {}, el('th', { scope: 'row' }, 'Amounts'), td(`${units(h.amountIn, h.sourceAssetId)} in, ${units(h.amountOut, h.destinationAssetId)} out`)),
        el('tr', {}, el('th', { scope: 'row' }, 'Sender'), td(h.senderAddress, 'mono')),
        el('tr', {}, el('th', { scope: 'row' }, 'Recipient'), td(h.recipientAddress, 'mono')),
      ),
    ),
    el('h4', {}, 'Screening entries'),
    el('ul', {}, ...(h.entries ?? []).map((e) => el('li', {}, `${timeWords(e.at)}: ${e.stage} ${e.field ?? ''} ${e.result}${e.list ? `, list ${e.list} version ${e.version ?? '—'}` : ''}${e.note ? `, note “${e.note}”` : ''}`))),
  );
  const form = el('form', { class: 'resolve', 'data-resolve': id });
  const fs = el('fieldset', {}, el('legend', {}, 'Decision'));
  for (const [value, text] of [['release', 'Release'], ['refund', 'Refund'], ['freeze', 'Freeze']]) {
    const rid = `${value}-${id}`;
    fs.append(el('label', { for: rid }, el('input', { type: 'radio', name: `action-${id}`, id: rid, value, required: true }), text));
  }
  const noteId = `note-${id}`;
  form.append(
    el('div', {}, fs, el('label', { for: noteId }, 'Note (why)'), el('input', { type: 'text', id: noteId, name: 'note', maxlength: '500', required: true })),
    el('button', { type: 'submit' }, 'Resolve'),
  );
  const message = el('p', { class: 'message', role: 'status', hidden: true, 'data-message': '' });
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    void resolve(id, form, message, card);
  });
  card.append(form, message);
  return card;
}

async function resolve(id, form, message, card) {
  const action = form.querySelector(`input[name="action-${id}"]:checked`)?.value;
  const note = form.querySelector('input[name="note"]').value;
  const button = form.querySelector('button');
  button.disabled = true;
  try {
    const out = await api(`/admin/v1/orders/${encodeURIComponent(id)}/resolve`, { method: 'POST', body: { action, note, operator: sessionStorage.getItem('hush.operator') } });
    resolvedHere.set(id, card.getAttribute('data-held-at'));
    card.querySelector('[data-status]').textContent = out.status;
    form.hidden = true;
    message.hidden = false;
    message.className = 'message ok';
    message.textContent = `Resolved (${action}): the order is now ${out.status}.`;
    $('resolved').prepend(el('tr', { 'data-resolved': id }, td(id, 'mono'), td(action), td(out.status), td(note)));
    announce(message.textContent);
  } catch (e) {
    message.hidden = false;
    message.className = 'message bad';
    // The API's own words, and its code.
    message.textContent = `Refused: ${e.message}${e.code ? ` (${e.code})` : ''}`;
    announce(message.textContent);
  } finally {
    button.disabled = false;
  }
}

async function refreshHolds() {
  const { holds } = await api('/admin/v1/holds');
  const box = $('holds');
  const now = new Set(holds.map((h) => h.trackingId));
  for (const card of box.querySelectorAll('[data-hold]')) {
    const id = card.getAttribute('data-hold');
    // Resolved elsewhere (the CLI, another operator): it leaves the queue. Resolved here: kept, showing its new status.
    if (!now.has(id) && !resolvedHere.has(id)) card.remove();
  }
  for (const h of holds) {
    const shown = box.querySelector(`[data-hold="${h.trackingId}"]`);
    // Resolved here, then held again (a new finding at a later stage): a new decision is due.
    if (shown && resolvedHere.has(h.trackingId) && resolvedHere.get(h.trackingId) !== h.heldAt) {
      resolvedHere.delete(h.trackingId);
      shown.replaceWith(holdCard(h));
      announce(`${h.trackingId} is held again`);
    } else if (!shown) box.append(holdCard(h));
  }
  $('holds-empty').hidden = box.children.length > 0;
}

// ------------------------------------------------------------------------------------- screening log

async function refreshLog() {
  const q = new URLSearchParams({ limit: '100' });
  const order = $('filter-order').value.trim();
  const address = $('filter-address').value.trim();
  if (order) q.set('trackingId', order);
  if (address) q.set('address', address);
  const { entries } = await api(`/admin/v1/screening-log?${q}`);
  $('log').replaceChildren(
    ...entries.map((e) =>
      el('tr', { 'data-log': e.id }, td(timeWords(e.at)), td(e.trackingId, 'mono'), td(e.stage), td(e.field), td(e.address, 'mono'), td(e.result), td(e.list ? `${e.list} ${e.version ?? ''}` : null), td(`${e.actor}${e.note ? `: ${e.note}` : ''}`)),
    ),
  );
}

// -------------------------------------------------------------------------------- reconcile, liquidity

async function refreshReconcile() {
  $('reconcile-summary').textContent = 'Reading the chain…';
  const r = await api('/admin/v1/reconcile');
  $('reconcile-summary').textContent = `${r.ok ? 'The ledger agrees with the chain.' : 'The ledger and the chain differ.'} ${r.pendingTransactions} transaction(s) in flight${r.consistent === false ? '; the books moved while the chain was read: check again' : ''}. Read ${timeWords(new Date().toISOString())}.`;
  $('reconcile').replaceChildren(
    ...r.assets.map((a) =>
      el('tr', { 'data-asset': a.assetId }, td(a.assetId), td(a.ok ? 'yes' : 'no'), td(unitsOnly(a.ledgerTotal, a.assetId), 'num'), td(unitsOnly(a.chainTotal, a.assetId), 'num'), td(unitsOnly(a.frozen, a.assetId), 'num'),
        td(a.mismatches.length ? a.mismatches.map((m) => `${m.account}: chain − ledger = ${m.difference}`).join('; ') : 'none')),
    ),
  );
}

async function refreshLiquidity() {
  const { assets: rows } = await api('/admin/v1/liquidity');
  $('liquidity').replaceChildren(
    ...rows.map((a) => el('tr', { 'data-asset': a.assetId }, td(a.assetId), ...['pools', 'pending', 'owed', 'held', 'free'].map((k) => td(unitsOnly(a[k], a.assetId), 'num')))),
  );
}

// ---------------------------------------------------------------------------------------------- privacy

async function refreshPrivacy() {
  const { windowHours, classes } = await api('/admin/v1/privacy');
  $('privacy-window').textContent = String(windowHours);
  $('privacy-empty').hidden = classes.length > 0;
  $('privacy').replaceChildren(
    ...classes.map((c) => {
      const pinnedAsset = c.mode === 'exact_in' ? c.sourceAssetId : c.destinationAssetId;
      const name = `${units(c.amount, pinnedAsset)} ${c.sourceAssetId === c.destinationAssetId ? 'send' : `${c.sourceAssetId} → ${c.destinationAssetId}`} (${c.mode})`;
      const oldestFirst = [...c.releases].reverse();
      const sizes = oldestFirst.map((r) => r.size);
      const delays = oldestFirst.map((r) => r.meanDelaySeconds);
      return el('article', { class: 'card chart', 'data-class': `${c.sourceAssetId}/${c.destinationAssetId}/${c.mode}/${c.amount}` },
        el('h3', {}, name),
        el('p', {}, `Waiting now: ${c.waiting}${c.waitingSince ? `, the oldest since ${timeWords(c.waitingSince)}` : ''}.`),
        barChart(sizes, { label: `Release sizes of ${name}, oldest first: ${sizes.join(', ') || 'none'}`, unit: 'orders' }),
        barChart(delays, { label: `Mean wait before release of ${name}, seconds, oldest first: ${delays.join(', ') || 'none'}`, unit: 's', color: '#6b3fa0' }),
        el('details', {}, el('summary', {}, 'The figures'),
          el('table', {}, el('thead', {}, el('tr', {}, el('th', { scope: 'col' }, 'Released'), el('th', { scope: 'col', class: 'num' }, 'Size'), el('th', { scope: 'col', class: 'num' }, 'Mean wait (s)'), el('th', { scope: 'col', class: 'num' }, 'Longest wait (s)'))),
            el('tbody', {}, ...c.releases.map((r) => el('tr', {}, td(timeWords(r.at)), td(String(r.size), 'num'), td(String(r.meanDelaySeconds), 'num'), td(String(r.maxDelaySeconds), 'num')))))),
      );
    }),
  );
}

// ---------------------------------------------------------------------------------------------- session

function every(seconds, f) {
  const run = () => f().catch((e) => e.status !== 401 && announce(`Could not refresh: ${e.message}`));
  void run();
  timers.push(setInterval(run, seconds * 1000));
}

async function open() {
  const { tokens } = await fetch('/console/config.json', { credentials: 'omit' }).then((r) => r.json());
  assets = tokens;
  await api('/admin/v1/holds?limit=1'); // the token works
  $('signin-part').hidden = true;
  $('signin-message').hidden = true;
  $('session').hidden = false;
  $('who').textContent = `Signed in as ${sessionStorage.getItem('hush.operator')}`;
  $('console').hidden = false;
  every(EVERY_S, async () => {
    await Promise.all([refreshHolds(), refreshLog(), refreshPrivacy()]);
    $('updated').textContent = `Updated ${timeWords(new Date().toISOString())}; every ${EVERY_S} s.`;
  });
  every(LIQUIDITY_EVERY_S, refreshLiquidity);
  every(RECONCILE_EVERY_S, refreshReconcile);
}

function signOut(message) {
  timers.forEach(clearInterval);
  timers = [];
  sessionStorage.removeItem('hush.adminToken');
  $('console').hidden = true;
  $('session').hidden = true;
  $('signin-part').hidden = false;
  $('holds').replaceChildren();
  resolvedHere.clear();
  if (message) {
    $('signin-message').textContent = message;
    $('signin-message').hidden = false;
  }
  $('token').focus();
}

$('signin').addEventListener('submit', (ev) => {
  ev.preventDefault();
  sessionStorage.setItem('hush.adminToken', $('token').value);
  sessionStorage.setItem('hush.operator', $('operator').value.trim());
  $('token').value = '';
  open().catch((e) => e.status !== 401 && signOut(`Could not open the console: ${e.message}`));
});
$('signout').addEventListener('click', () => signOut());
$('reconcile-again').addEventListener('click', () => void refreshReconcile().catch((e) => announce(e.message)));
let filterTimer;
$('log-filters').addEventListener('input', () => {
  clearTimeout(filterTimer);
  filterTimer = setTimeout(() => void refreshLog().catch((e) => announce(e.message)), 250);
});
$('log-filters').addEventListener('submit', (ev) => ev.preventDefault());
$('operator').value = sessionStorage.getItem('hush.operator') ?? '';
if (sessionStorage.getItem('hush.adminToken')) open().catch(() => signOut());
