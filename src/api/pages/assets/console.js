// The operator console (docs/compliance.md "The console"): the admin API of this listener, read with the
// admin token the operator types (kept in this tab's sessionStorage), shown as one queue of holds to resolve
// (console-holds.js, narrowed by console-queue-filters.js), the holds resolved before (console-history.js), the
// screening log (console-log.js), reconcile, liquidity and privacy per class. It refreshes itself (every
// few seconds; reconcile, which reads the chain, every minute or on request); a refresh that fails is said in an
// alert at the top until the next one succeeds.
import { timeWords } from './receipt-words.js';
import { barChart } from './console-charts.js';
import { $, api, el, onUnauthorized, scrollBox, setAssets, setSignedIn, signedIn, td, units, unitsOnly } from './console-kit.js';
import { clearHolds, refreshHolds } from './console-holds.js';
import { clearTokens, refreshTokens, wireTokens } from './console-tokens.js';
import { clearLog, initLog, refreshLog } from './console-log.js';
import { initQueueFilters } from './console-queue-filters.js';
import { sentences } from './console-words.js';
import { clearHistory, historyPaging, refreshHistory } from './console-history.js';
import { setExplorer } from './console-links.js';

const params = new URLSearchParams(location.search);
/** Seconds between refreshes (?refresh=N, at least 1; default 5). */
const EVERY_S = Math.max(1, Number(params.get('refresh')) || 5);
const LIQUIDITY_EVERY_S = Math.max(EVERY_S, 15);
const RECONCILE_EVERY_S = 60;
let timers = [];

// -------------------------------------------------------------------------------- reconcile, liquidity

async function refreshReconcile() {
  $('reconcile-summary').textContent = 'Reading the chain…';
  const r = await api('/admin/v1/reconcile').catch((e) => {
    // Not "Reading the chain…" for a minute: the alert at the top says why.
    $('reconcile-summary').textContent = 'The chain could not be read: see the alert at the top of the page.';
    throw e;
  });
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
          scrollBox(`The figures of ${name}`, el('table', {}, el('thead', {}, el('tr', {}, el('th', { scope: 'col' }, 'Released'), el('th', { scope: 'col', class: 'num' }, 'Size'), el('th', { scope: 'col', class: 'num' }, 'Mean wait (s)'), el('th', { scope: 'col', class: 'num' }, 'Longest wait (s)'))),
            el('tbody', {}, ...c.releases.map((r) => el('tr', {}, td(timeWords(r.at)), td(String(r.size), 'num'), td(String(r.meanDelaySeconds), 'num'), td(String(r.maxDelaySeconds), 'num'))))))),
      );
    }),
  );
}

// ---------------------------------------------------------------------------------------------- session

/** Each part the page refreshes by itself: what it is called in the failure alert, and how it is read. */
const PARTS = {
  holds: { what: 'The holds', run: refreshHolds },
  history: { what: 'The history of holds', run: refreshHistory },
  log: { what: 'The screening log', run: refreshLog },
  privacy: { what: 'Privacy per class', run: refreshPrivacy },
  liquidity: { what: 'Liquidity', run: refreshLiquidity },
  reconcile: { what: 'Reconcile', run: refreshReconcile },
};
/** Per part: when it last refreshed, and what failed since (a failed refresh used to leave stale figures unsaid). */
const lastGood = new Map();
const failing = new Map();

async function refresh(name) {
  try {
    await PARTS[name].run();
    lastGood.set(name, new Date().toISOString());
    failing.delete(name);
    if (name === 'holds') $('updated').textContent = `Updated ${timeWords(lastGood.get(name))}; every ${EVERY_S} s.`;
  } catch (e) {
    // Signed out meanwhile (a refused token does that): nothing of this session is shown any more.
    if (e.status === 401 || timers.length === 0) return;
    const words = String(e.message).replace(/\.$/, '');
    failing.set(name, e.status && words !== `HTTP ${e.status}` ? `${words} (HTTP ${e.status})` : words);
  }
  showFailures();
}

/**
 * The alert at the top: one sentence per part whose last refresh failed, with when it last succeeded. Its text
 * changes only when what failed does, so a screen reader hears it once, not at every retry.
 */
function showFailures() {
  const lines = [...failing].map(([name, why]) => {
    const good = lastGood.get(name);
    return sentences(`${PARTS[name].what} could not be refreshed: ${why}`, good ? `Last good refresh: ${timeWords(good)}` : 'It has not been read since you signed in', 'The page keeps trying');
  });
  const box = $('refresh-alert');
  if (lines.join('\n') === [...box.children].map((p) => p.textContent).join('\n')) return;
  box.replaceChildren(...lines.map((l) => el('p', {}, l)));
}

function every(seconds, name) {
  void refresh(name);
  timers.push(setInterval(() => void refresh(name), seconds * 1000));
}

/** What a sign-in through the identity provider came back with (?signin=…), in words. */
const SIGNIN_OUTCOMES = {
  unknown: 'The identity provider signed you in, but you are not an operator of this Hush: ask an approver to register you.',
  failed: 'The sign-in could not be checked (the identity provider’s answer failed its checks): try again.',
  expired: 'The sign-in took too long or was started elsewhere: try again.',
  unavailable: 'The identity provider did not answer: try again in a moment, or use your personal token.',
};

let idleTimer;
let lastPing = 0;
let idleSeconds = 15 * 60;
/** A person's input: the server's idle clock restarts (at most once a minute), and the page's own does. */
function activity() {
  clearTimeout(idleTimer);
  if (timers.length === 0) return;
  idleTimer = setTimeout(() => signOut(sentences(`Signed out after ${Math.round(idleSeconds / 60)} minutes without activity`)), idleSeconds * 1000);
  const now = Date.now();
  if (now - lastPing > 60_000) {
    lastPing = now;
    api('/admin/v1/me', { active: true }).catch(() => {});
  }
}

async function open() {
  const { operator, sessionIdleSeconds } = await api('/admin/v1/me', { active: true });
  if (operator.kind !== 'operator') {
    return signOut('The shared admin token is the deployment’s automation and does not open the console: sign in as yourself (single sign-on, or your personal token).');
  }
  setSignedIn(operator);
  idleSeconds = sessionIdleSeconds ?? idleSeconds;
  $('signin-part').hidden = true;
  $('signin-message').hidden = true;
  $('session').hidden = false;
  $('who').textContent = `Signed in as ${operator.name} (${operator.role})`;
  $('console').hidden = false;
  for (const name of ['holds', 'history', 'log', 'privacy']) every(EVERY_S, name);
  every(LIQUIDITY_EVERY_S, 'liquidity');
  every(RECONCILE_EVERY_S, 'reconcile');
  void refreshTokens().catch(() => {});
  activity();
}

function signOut(message) {
  timers.forEach(clearInterval);
  timers = [];
  clearTimeout(idleTimer);
  // A single sign-on session ends on the server too; a token is only forgotten by this tab.
  if (!sessionStorage.getItem('hush.operatorToken') && signedIn()) void fetch('/console/sign-out', { method: 'POST', headers: { 'x-hush-console': '1' }, credentials: 'same-origin' }).catch(() => {});
  sessionStorage.removeItem('hush.operatorToken');
  setSignedIn(null);
  $('console').hidden = true;
  $('session').hidden = true;
  $('signin-part').hidden = false;
  clearHolds();
  clearTokens();
  clearLog();
  clearHistory();
  lastGood.clear();
  failing.clear();
  showFailures();
  if (message) {
    $('signin-message').textContent = message;
    $('signin-message').hidden = false;
  }
  $('token').focus();
}

onUnauthorized(signOut);
wireTokens();
for (const kind of ['keydown', 'pointerdown']) document.addEventListener(kind, activity, { passive: true });
$('signin').addEventListener('submit', (ev) => {
  ev.preventDefault();
  sessionStorage.setItem('hush.operatorToken', $('token').value.trim());
  $('token').value = '';
  open().catch((e) => e.status !== 401 && signOut(sentences(`Could not open the console: ${e.message}`)));
});
$('signout').addEventListener('click', () => signOut());
$('reconcile-again').addEventListener('click', () => void refresh('reconcile'));
initLog(() => void refresh('log'));
initQueueFilters(() => void refresh('holds'));
historyPaging(() => refresh('history'));
async function start() {
  const { tokens, sso, explorer } = await fetch('/console/config.json', { credentials: 'omit' }).then((r) => r.json());
  setAssets(tokens);
  setExplorer(explorer);
  $('sso-part').hidden = !sso;
  const outcome = params.get('signin');
  if (outcome && SIGNIN_OUTCOMES[outcome]) {
    $('signin-message').textContent = SIGNIN_OUTCOMES[outcome];
    $('signin-message').hidden = false;
  }
  // A personal token kept in this tab, or a single sign-on session's cookie: whichever the server takes.
  // Asked without the API's sign-out on 401: no session yet is no news.
  const session = sso && !sessionStorage.getItem('hush.operatorToken')
    ? await fetch('/admin/v1/me', { headers: { 'x-hush-console': '1' }, credentials: 'same-origin', cache: 'no-store' }).then((r) => r.ok, () => false)
    : false;
  if (sessionStorage.getItem('hush.operatorToken') || session) await open().catch((e) => e.status !== 401 && signOut(sentences(`Could not open the console: ${e.message}`)));
}
void start();
