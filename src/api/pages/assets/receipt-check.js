// The receipt-check page: reads a receipt from a dropped or chosen file or the text box, checks it in this
// browser with the SDK's own checks (receipt-checks.js, served from packages/sdk/src) against the keys this
// Hush publishes, and shows the outcome of each check and what the receipt states. The receipt is never sent:
// the only requests are for the page's files and the published keys.
import { checkReceipt } from './receipt-checks.js';
import { statementOf } from './receipt-words.js';

const $ = (id) => document.getElementById(id);

/** What went wrong with a request, in words: the server's own message, and when to try again on a 429. */
async function failure(what, r) {
  const body = await r.json().catch(() => null);
  const retry = r.headers.get('retry-after');
  const again = r.status === 429 ? ` Try again in ${retry ?? 'a few'} second${retry === '1' ? '' : 's'}.` : ' Try again.';
  return new Error(`${what} could not be loaded (${body?.error?.message ?? `HTTP ${r.status}`}).${again}`);
}

/** Fetches `url` as JSON; a network failure or an error answer is an Error that says so (never a silent stop). */
async function fetchJson(what, url, init) {
  let r;
  try {
    r = await fetch(url, { credentials: 'omit', ...init });
  } catch {
    throw new Error(`${what} could not be loaded: the server did not answer. Check your connection and try again.`);
  }
  if (!r.ok) throw await failure(what, r);
  return r.json();
}

// Asked for once; asked again on the next check if it failed (the page never stays unable to check).
let configP = null;
const pageConfig = () => (configP ??= fetchJson("The page's settings", '/receipt-check/config.json').catch((e) => ((configP = null), Promise.reject(e))));

async function publishedKeys() {
  const body = await fetchJson("Hush's published receipt keys", '/transfer/v1/receipt-keys', { cache: 'no-store' });
  if (!body.success) throw new Error("Hush's published receipt keys could not be read. Try again.");
  return body.keys.map((k) => k.keyId);
}

/** The receipt from the text: the receipt itself, or the API's answer around it ({ success, receipt }). */
function parse(text) {
  const value = JSON.parse(text);
  return value && typeof value === 'object' && value.receipt && !value.document ? value.receipt : value;
}

function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  for (const c of children) e.append(c);
  return e;
}

const OUTCOME = { passed: 'Passed', failed: 'Failed', skipped: 'Not checked' };

function show({ verdict, ok, checks, document: doc, config }) {
  $('result').hidden = false;
  const v = $('verdict');
  v.className = `verdict ${ok ? 'ok' : 'bad'}`;
  v.textContent = verdict;
  $('checks').replaceChildren(
    ...checks.map((c) =>
      el('li', { 'data-check': c.id, 'data-outcome': c.outcome }, el('span', { class: `outcome ${c.outcome}` }, `${OUTCOME[c.outcome]}: `), `${c.title}. `, c.detail, c.field ? ` (field: ${c.field})` : ''),
    ),
  );
  const statement = $('statement');
  const part = $('statement-part');
  part.hidden = !doc;
  if (doc) {
    statement.className = `statement${ok ? '' : ' untrusted'}`;
    $('statement-note').textContent = ok
      ? 'Hush signed these words; the transactions can be opened on the chain explorer.'
      : 'This receipt did not pass its checks: Hush does not vouch for any of the following.';
    statement.replaceChildren(
      ...statementOf(doc, config).flatMap(([term, parts]) => [
        el('dt', {}, term),
        el('dd', {}, ...parts.map((p) => (typeof p === 'string' ? p : el('a', { href: p.href, rel: 'noopener noreferrer', target: '_blank', class: 'mono' }, p.text)))),
      ]),
    );
  }
  $('result-heading').focus();
}

async function check(text) {
  // The last receipt's verdict must not stand beside the new one while it is checked (a tampered receipt
  // pasted after a genuine one read "Genuine" until the keys came back).
  $('result').hidden = true;
  let receipt;
  try {
    receipt = parse(text);
  } catch {
    return show({ ok: false, verdict: 'Not a receipt: the text is not JSON.', checks: [{ id: 'format', title: 'It is a Hush disclosure receipt', outcome: 'failed', detail: 'The text could not be read as JSON.' }] });
  }
  let keys;
  let config;
  try {
    [config, keys] = await Promise.all([pageConfig(), publishedKeys()]);
  } catch (e) {
    return show({ ok: false, verdict: `Could not check: ${e.message}`, checks: [] });
  }
  let report;
  try {
    report = await checkReceipt(receipt, keys);
  } catch (e) {
    return show({ ok: false, verdict: `Could not check here: ${String(e.message).replace(/\.$/, '')}.`, checks: [] });
  }
  const failed = report.checks.find((c) => c.outcome === 'failed');
  const verdict = report.valid ? 'Genuine: Hush signed exactly this receipt.' : `Not genuine: the check “${failed.title}” failed. ${failed.detail}`;
  const doc = receipt && typeof receipt === 'object' && receipt.document && typeof receipt.document === 'object' ? receipt.document : null;
  show({ ok: report.valid, verdict, checks: report.checks, document: doc, config });
}

async function checkFile(file) {
  if (!file) return;
  const text = await file.text();
  $('receipt').value = text;
  await check(text);
}

$('check').addEventListener('click', () => check($('receipt').value));
$('file').addEventListener('change', (e) => checkFile(e.target.files[0]));
const drop = $('drop');
document.addEventListener('dragover', (e) => {
  e.preventDefault();
  drop.classList.add('over');
});
document.addEventListener('dragleave', () => drop.classList.remove('over'));
document.addEventListener('drop', (e) => {
  e.preventDefault();
  drop.classList.remove('over');
  void checkFile(e.dataTransfer?.files?.[0]);
});
// The script runs: the notice that says what to do when it does not goes, and the button works.
$('loading').hidden = true;
$('check').disabled = false;
if (!globalThis.crypto?.subtle) {
  $('check').disabled = true;
  $('verdict').textContent = 'This browser cannot check signatures on this connection: open the page over https.';
  $('result').hidden = false;
}
