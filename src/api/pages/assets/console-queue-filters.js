// The queue's filter form (docs/compliance.md "The console"): the holds a finding's stage or result, a partner, a
// time held or an address narrow the queue to. console-holds.js asks it for the query of each refresh.
import { $ } from './console-kit.js';
import { prefixParam, timeParam } from './console-filter-fields.js';

/** The query string of GET /admin/v1/holds for the form as it is now: '' when nothing narrows the queue. */
export function queueQuery() {
  const q = new URLSearchParams();
  const set = (name, value) => value && q.set(name, value);
  set('stage', $('queue-stage').value);
  set('result', $('queue-result').value);
  set('accountId', $('queue-account').value.trim());
  set('addressPrefix', prefixParam($('queue-address'), $('queue-address-message')));
  set('from', timeParam($('queue-from')));
  set('to', timeParam($('queue-to')));
  const query = q.toString();
  $('queue-filtered').hidden = query === '';
  return query ? `?${query}` : '';
}

/** Reads the queue again a moment after the form changes (`refresh`), and empties the form on "Clear". */
export function initQueueFilters(refresh) {
  let timer;
  const form = $('queue-filters');
  form.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(refresh, 250);
  });
  form.addEventListener('submit', (ev) => ev.preventDefault());
  form.addEventListener('reset', () => setTimeout(refresh, 0));
}
