// The holds resolved before (docs/compliance.md "The console"): GET /admin/v1/holds/history, newest first, a page at
// a time ("Older", "Newer"). Each says who resolved it, when, the decision and its note, who had claimed it, the
// comments, and what the queue's card said (console-hold-card.js). The page shown is read again with the rest of
// the console, and drawn again only when it changed, so a keyboard user's place on it stays.
import { $, api, el, td } from './console-kit.js';
import { STAGES, fundFacts, orderFacts, row, factsTable } from './console-hold-card.js';
import { whoWords } from './console-hold-notes.js';
import { sentences } from './console-words.js';
import { timeWords } from './receipt-words.js';

const PAGE = 10;
const DONE = { release: 'released', refund: 'refunded', freeze: 'frozen', cleared: 'cleared by screening' };

/** The cursors of the pages before the one shown (none: the newest), and the next page's. */
let before = [];
let next = null;
let drawn = '';

function title(h) {
  const what = h.kind === 'order' ? h.trackingId : h.kind === 'late' ? `Late funds to ${h.trackingId ?? 'an order'} (hold ${h.holdId})` : `A partner’s fee recipient (hold ${h.holdId})`;
  return `${what}: ${DONE[h.action] ?? h.action} by ${whoWords(h.resolvedBy)}${h.approvedBy ? `, approved by ${whoWords(h.approvedBy)}` : ''}`;
}

function itemCard(h) {
  const id = `history-${h.historyId}`;
  const facts = h.kind === 'order' ? orderFacts(h, h.status) : fundFacts(h, h.status);
  const resolution = factsTable(`How ${h.historyId} was resolved`, [
    row('Resolved', td(`${timeWords(h.resolvedAt)} by ${whoWords(h.resolvedBy)}`)),
    ...(h.approvedBy ? [row('Approved by', td(whoWords(h.approvedBy)))] : []),
    row('Decision', td(h.action)),
    row('Note', td(h.note)),
    row('Claimed by', td(h.claim ? `${whoWords(h.claim.by)}, since ${timeWords(h.claim.at)}` : 'nobody')),
  ]);
  const comments = h.comments.length
    ? el('ol', { class: 'comments', 'aria-label': `Comments on ${h.trackingId ?? `hold ${h.holdId}`}` }, ...h.comments.map((c) => el('li', {}, el('span', { class: 'who' }, `${whoWords(c.by)}, ${timeWords(c.at)}: `), c.text)))
    : el('p', { class: 'help' }, 'No comments.');
  return el('article', { class: 'card', 'data-history': h.historyId, 'data-kind': h.kind, 'aria-labelledby': id },
    el('h3', { id }, title(h)),
    el('p', { class: 'age' }, sentences(`Held ${STAGES[h.decision?.stage] ?? ''} since ${timeWords(h.heldAt)}`)),
    resolution,
    el('details', {}, el('summary', {}, 'What was held, and why'), facts),
    el('h4', {}, 'Comments'),
    comments,
  );
}

export async function refreshHistory() {
  const q = new URLSearchParams({ limit: String(PAGE) });
  const cursor = before[before.length - 1];
  if (cursor) q.set('before', cursor);
  const page = await api(`/admin/v1/holds/history?${q}`);
  next = page.next;
  $('history-older').disabled = next === null;
  $('history-newer').disabled = before.length === 0;
  const key = JSON.stringify(page.items);
  if (key === drawn) return;
  drawn = key;
  $('history').replaceChildren(...page.items.map(itemCard));
  $('history-empty').hidden = page.items.length > 0 || before.length > 0;
  $('history-page').textContent = before.length === 0 ? 'The newest resolutions.' : `Page ${before.length + 1}, older resolutions.`;
}

/** The page buttons: each reads its page at once, and the console's refresh keeps it current. */
export function historyPaging(refresh) {
  $('history-older').addEventListener('click', () => {
    if (next === null) return;
    before.push(next);
    void refresh();
  });
  $('history-newer').addEventListener('click', () => {
    before.pop();
    void refresh();
  });
}

export function clearHistory() {
  before = [];
  next = null;
  drawn = '';
  $('history').replaceChildren();
}
