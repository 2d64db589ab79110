// The console's screening log (docs/compliance.md "The console"): GET /admin/v1/screening-log, newest first,
// filtered by the form above it, a page at a time ("Older" follows the answer's `next`, "Newer" goes back the way
// it came), "Decisions only" for the operators' own entries (a partner's refused quotes cannot push them out of
// view), and the same filters downloaded as CSV. The download is fetched with the admin token (a plain link could
// not carry it) and saved from a Blob's object URL: a download, not a request, so the page's CSP needs nothing new.
import { $, ApiError, announce, api, apiFile, el, td } from './console-kit.js';
import { prefixParam, timeParam } from './console-filter-fields.js';
import { sourceWords } from './console-words.js';
import { timeWords } from './receipt-words.js';

const PAGE = 100;
/** The `before` of each page shown since the newest (empty: the newest page), and the answer's `next`. */
let cursors = [];
let next = null;

/** The filters as the admin API's query parameters (no paging): for the page and for the download alike. */
function filterQuery() {
  const q = new URLSearchParams();
  const set = (name, value) => value && q.set(name, value);
  set('trackingId', $('filter-order').value.trim());
  set('addressPrefix', prefixParam($('filter-address'), $('filter-address-message')));
  set('accountId', $('filter-account').value.trim());
  const decisions = $('filter-decisions').checked;
  // "Decisions only" is the stage resolution: the stage chosen waits until it is unticked.
  $('filter-stage').disabled = decisions;
  if (decisions) q.set('decisions', 'true');
  else set('stage', $('filter-stage').value);
  set('result', $('filter-result').value);
  const actor = $('filter-actor').value.trim();
  if (actor.endsWith('*')) set('actorPrefix', actor.slice(0, -1));
  else set('actor', actor);
  set('from', timeParam($('filter-from')));
  set('to', timeParam($('filter-to')));
  return q;
}

export async function refreshLog() {
  const q = filterQuery();
  q.set('limit', String(PAGE));
  if (cursors.length) q.set('before', cursors.at(-1));
  let answer;
  try {
    answer = await api(`/admin/v1/screening-log?${q}`);
  } catch (e) {
    // A filter the API refuses is the operator's to fix, said beside the form, not a failed refresh.
    if (!(e instanceof ApiError) || e.status !== 400) throw e;
    $('log-message').textContent = e.message;
    $('log-message').hidden = false;
    $('log').replaceChildren();
    return;
  }
  $('log-message').hidden = true;
  next = answer.next;
  $('log').replaceChildren(
    ...answer.entries.map((e) =>
      el('tr', { 'data-log': e.id }, td(timeWords(e.at)), td(e.trackingId, 'mono'), td(e.stage), td(e.field), td(e.address, 'mono'), td(e.result), td(sourceWords(e.list, e.version)), td(`${e.actor}${e.approvedBy ? `, approved by ${e.approvedBy}` : ''}${e.note ? `: ${e.note}` : ''}`), td(e.accountId, 'mono')),
    ),
  );
  $('log-older').disabled = next === null;
  $('log-newer').disabled = cursors.length === 0;
  const page = cursors.length === 0 ? 'The newest entries' : `Older entries: page ${cursors.length + 1}`;
  $('log-page').textContent = `${page}, ${answer.entries.length} shown${next === null ? ', the oldest that match' : ''}.`;
}

async function download() {
  const status = $('log-csv-status');
  status.textContent = 'Preparing the CSV…';
  try {
    const { blob, name, next: rest } = await apiFile(`/admin/v1/screening-log.csv?${filterQuery()}`);
    const url = URL.createObjectURL(blob);
    const link = el('a', { href: url, download: name, hidden: true });
    document.body.append(link);
    link.click();
    link.remove();
    // Some browsers read the Blob after the click returns: the URL is let go of a while later.
    setTimeout(() => URL.revokeObjectURL(url), 60_000);
    status.textContent = rest === null ? `Downloaded ${name}.` : `Downloaded ${name}: cut at its limit; its last line says how to export the older entries (before=${rest}).`;
  } catch (e) {
    status.textContent = `The CSV could not be downloaded: ${e.message}${e.code ? ` (${e.code})` : ''}`;
  }
  announce(status.textContent);
}

/** Wires the form and buttons; `refresh` reads the log again through the page's refresh (its failures said at the top). */
export function initLog(refresh) {
  let timer;
  const form = $('log-filters');
  const again = () => {
    // Filters changed: back to the newest page.
    cursors = [];
    clearTimeout(timer);
    timer = setTimeout(refresh, 250);
  };
  form.addEventListener('input', again);
  form.addEventListener('reset', again);
  form.addEventListener('submit', (ev) => ev.preventDefault());
  $('log-older').addEventListener('click', () => {
    if (next === null) return;
    cursors.push(next);
    refresh();
  });
  $('log-newer').addEventListener('click', () => {
    cursors.pop();
    refresh();
  });
  $('log-csv').addEventListener('click', () => void download());
}

/** Signed out: the next session starts at the newest page. */
export function clearLog() {
  cursors = [];
  next = null;
  $('log').replaceChildren();
}
