// The queue's filter form (docs/compliance.md "The console"): the holds a finding's stage or result, a partner, a
// time held or an address narrow the queue to, and which page of it is shown (the API's cursors: "Next holds"
// goes past the last shown, "First holds" back). console-holds.js asks it for the query of each refresh.
import { $ } from './console-kit.js';
import { prefixParam, timeParam } from './console-filter-fields.js';

/** The page shown: 1 and no cursors for the first; each "Next holds" keeps the cursors it went past. */
let page = { n: 1, after: null, fundsAfter: null };
let latestNext = { holds: null, fundHolds: null };

/** Which page of the queue is shown (1: the oldest holds). */
export const queuePage = () => page.n;

/** The query string of GET /admin/v1/holds for the form as it is now: '' when nothing narrows the queue. */
export function queueQuery() {
  const q = new URLSearchParams();
  if (page.after) q.set('after', page.after);
  if (page.fundsAfter) q.set('fundsAfter', page.fundsAfter);
  const set = (name, value) => value && q.set(name, value);
  set('stage', $('queue-stage').value);
  set('result', $('queue-result').value);
  set('accountId', $('queue-account').value.trim());
  set('addressPrefix', prefixParam($('queue-address'), $('queue-address-message')));
  set('from', timeParam($('queue-from')));
  set('to', timeParam($('queue-to')));
  const query = q.toString();
  $('queue-filtered').hidden = !['stage', 'result', 'accountId', 'addressPrefix', 'from', 'to'].some((k) => q.has(k));
  return query ? `?${query}` : '';
}

/** After each refresh: whether a next page exists (the API's `next`), and the buttons to move between pages. */
export function showQueuePaging(next) {
  latestNext = next ?? { holds: null, fundHolds: null };
  const more = Boolean(latestNext.holds || latestNext.fundHolds);
  $('queue-paging').hidden = !more && page.n === 1;
  $('queue-next').disabled = !more;
  $('queue-first').disabled = page.n === 1;
  $('queue-page').textContent = `Page ${page.n}${more ? '; more follow' : ''}.`;
}

/** Reads the queue again a moment after the form changes (`refresh`, from its first page), and empties the form on "Clear". */
export function initQueueFilters(refresh) {
  let timer;
  const form = $('queue-filters');
  const first = () => (page = { n: 1, after: null, fundsAfter: null });
  form.addEventListener('input', () => {
    clearTimeout(timer);
    first();
    timer = setTimeout(refresh, 250);
  });
  form.addEventListener('submit', (ev) => ev.preventDefault());
  form.addEventListener('reset', () => {
    first();
    setTimeout(refresh, 0);
  });
  // A listing that ended keeps its place: the other one's cursor moves on alone.
  $('queue-next').addEventListener('click', () => {
    page = { n: page.n + 1, after: latestNext.holds ?? page.after, fundsAfter: latestNext.fundHolds ?? page.fundsAfter };
    refresh();
  });
  $('queue-first').addEventListener('click', () => {
    first();
    refresh();
  });
}
