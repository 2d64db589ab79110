// The console's one queue of holds (docs/compliance.md "The console"): held orders and held funds (late funds,
// a partner's fee recipient) from GET /admin/v1/holds, oldest first, each with why, since when and how long ago,
// who claimed it and the comments on it (console-hold-notes.js), and its own decision form. A freeze is final, so
// it is confirmed on the page before it is posted. What a card says is console-hold-card.js's.
import { $, announce, api, el, td, units } from './console-kit.js';
import { ageWords, sentences } from './console-words.js';
import { ageLine, entryWords, fundFacts, orderFacts, STAGES } from './console-hold-card.js';
import { closeNotes, forgetNotes, notesSection, updateNotes } from './console-hold-notes.js';
import { showApproval } from './console-approvals.js';
import { queuePage, queueQuery, showQueuePaging } from './console-queue-filters.js';

/**
 * Holds resolved from this page, by card key, with the stamp of the hold they answered: listed again with
 * another stamp, it was held again (a new finding) and a new decision is due; with the same one, the listing
 * was read before the resolution landed.
 */
const resolvedHere = new Map();

function orderCard(h) {
  const d = h.decision;
  const id = h.trackingId;
  const card = el('article', { class: 'card', 'data-hold': id, 'data-key': id, 'data-held-at': h.heldAt, 'aria-labelledby': `h-${id}` });
  const base = `/admin/v1/orders/${encodeURIComponent(id)}`;
  card.append(
    el('h3', { id: `h-${id}` }, `${id}: held ${STAGES[d?.stage] ?? ''}`),
    ageLine(h.heldAt),
    orderFacts(h, 'held'),
    el('h4', {}, 'Screening entries'),
    el('ul', {}, ...(h.entries ?? []).map((e) => el('li', {}, entryWords(e)))),
    notesSection(id, base, h),
  );
  const what = { label: id, freeze: `the deposit of ${id}`, done: 'the order' };
  const post = (action, note) => api(`${base}/resolve`, { method: 'POST', body: { action, note } });
  return withDecision(card, id, [['release', 'Release'], ['refund', 'Refund'], ['freeze', 'Freeze']], what, post);
}

const FUND_ACTIONS = {
  // src/admin/fund-holds-service.ts: late funds go back to the order's sender on refund or release (a release
  // also covers the finding); a fee recipient's hold is only released.
  late: [['refund', 'Refund (to the order’s sender)'], ['release', 'Release (a false positive: refunded likewise)'], ['freeze', 'Freeze']],
  fee: [['release', 'Release (paid from the next period)']],
};

function fundCard(h) {
  const key = `hold-${h.holdId}`;
  const late = h.kind === 'late';
  const title = late ? `Late funds to ${h.trackingId ?? 'an order'}: held ${STAGES[h.decision?.stage] ?? ''}` : `A partner’s fee recipient: held ${STAGES[h.decision?.stage] ?? ''}`;
  const card = el('article', { class: 'card', 'data-fund-hold': h.holdId, 'data-kind': h.kind, 'data-key': key, 'data-held-at': h.heldAt, 'aria-labelledby': `h-${key}` });
  const base = `/admin/v1/holds/${encodeURIComponent(h.holdId)}`;
  card.append(el('h3', { id: `h-${key}` }, title), ageLine(h.heldAt), fundFacts(h, 'held'), notesSection(key, base, h));
  const label = late ? `late funds to ${h.trackingId ?? 'an order'} (hold ${h.holdId})` : `fee recipient of ${h.accountId ?? 'a partner'} (hold ${h.holdId})`;
  const what = { label, freeze: `these late funds (${units(h.amount, h.assetId)})`, done: 'the hold' };
  const post = (action, note) => api(`${base}/resolve`, { method: 'POST', body: { action, note } });
  return withDecision(card, key, FUND_ACTIONS[h.kind] ?? FUND_ACTIONS.fee, what, post);
}

/** The decision form under a card: one choice of `actions`, a note, Resolve; freeze asks first. */
function withDecision(card, key, actions, what, post) {
  const form = el('form', { class: 'resolve', 'data-resolve': key });
  const fs = el('fieldset', {}, el('legend', {}, 'Decision'));
  for (const [value, text] of actions) {
    const rid = `${value}-${key}`;
    fs.append(el('label', { for: rid }, el('input', { type: 'radio', name: `action-${key}`, id: rid, value, required: true }), text));
  }
  const noteId = `note-${key}`;
  form.append(
    el('div', {}, fs, el('label', { for: noteId }, 'Note (why)'), el('input', { type: 'text', id: noteId, name: 'note', maxlength: '500', required: true })),
    el('button', { type: 'submit' }, 'Resolve'),
  );
  const message = el('p', { class: 'message', role: 'status', hidden: true, 'data-message': '' });
  let confirm = null;
  const dropConfirm = () => {
    confirm?.remove();
    confirm = null;
  };
  // A confirmation answers the choice and note it was shown for: changing either asks again.
  form.addEventListener('input', dropConfirm);
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const action = form.querySelector(`input[name="action-${key}"]:checked`)?.value;
    const note = form.querySelector('input[name="note"]').value;
    if (action !== 'freeze') return void decide(action, note);
    dropConfirm();
    confirm = freezeConfirmation(key, what.freeze, () => {
      dropConfirm();
      void decide(action, note);
    }, () => {
      dropConfirm();
      form.querySelector('button[type="submit"]').focus();
    });
    form.after(confirm);
    confirm.querySelector('[data-confirm-question]').focus();
  });
  card.append(form, message);

  async function decide(action, note) {
    const button = form.querySelector('button[type="submit"]');
    button.disabled = true;
    try {
      const out = await post(action, note);
      if (out.status === 'awaiting_approval') {
        // Four eyes: nothing moved; the card stays in the queue with the proposal on it until another operator decides.
        form.reset();
        message.hidden = false;
        message.className = 'message ok';
        message.textContent = sentences(`Proposed (${action}): awaiting a second operator’s approval (proposal ${out.approvalId})`, 'Nothing moves until an approver other than you approves it');
        announce(message.textContent);
        return;
      }
      resolvedHere.set(key, card.getAttribute('data-stamp'));
      card.querySelector('[data-status]').textContent = out.status;
      // Decided: the form goes, so nothing on the card can be posted again (nor claimed or commented on).
      form.remove();
      closeNotes(key);
      message.hidden = false;
      message.className = 'message ok';
      message.textContent = sentences(`Resolved (${action}): ${what.done} is now ${out.status}`);
      $('resolved').prepend(el('tr', { 'data-resolved': key }, td(what.label, what.label === key ? 'mono' : undefined), td(action), td(out.status), td(note)));
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
  return card;
}

/** The in-page question before a freeze: its buttons reached by Tab, Escape cancels; nothing is posted until "Freeze". */
function freezeConfirmation(key, what, yes, no) {
  const qid = `confirm-${key}`;
  const box = el('div', { class: 'confirm', role: 'group', 'aria-labelledby': qid, 'data-confirm': '' },
    el('p', { id: qid, tabindex: '-1', 'data-confirm-question': '' }, sentences(`Freeze ${what}?`, 'A freeze is final: the funds are kept apart for good, and no later decision can release or refund them')),
    el('button', { type: 'button', class: 'danger', 'data-confirm-yes': '' }, 'Freeze for good'),
    el('button', { type: 'button', class: 'secondary', 'data-confirm-no': '' }, 'Cancel'),
  );
  box.querySelector('[data-confirm-yes]').addEventListener('click', yes);
  box.querySelector('[data-confirm-no]').addEventListener('click', no);
  box.addEventListener('keydown', (ev) => {
    if (ev.key === 'Escape') {
      ev.preventDefault();
      no();
    }
  });
  return box;
}

/** Held orders and fund holds as one list of cards, oldest first, each with the stamp that tells a new hold apart. */
function queueOf(holds, fundHolds) {
  return [
    ...holds.map((h) => ({ key: h.trackingId, name: h.trackingId, heldAt: h.heldAt, stamp: h.heldAt, approval: h.approval, hold: h, make: () => orderCard(h) })),
    // A late hold held again keeps its id and time: its finding tells it apart.
    ...fundHolds.map((h) => ({ key: `hold-${h.holdId}`, name: `Hold ${h.holdId} (${h.kind === 'late' ? 'late funds' : 'a fee recipient'})`, heldAt: h.heldAt, stamp: `${h.heldAt} ${JSON.stringify(h.decision)}`, approval: h.approval, hold: h, make: () => fundCard(h) })),
  ].sort((a, b) => (a.heldAt < b.heldAt ? -1 : a.heldAt > b.heldAt ? 1 : 0));
}

export async function refreshHolds() {
  const { holds, fundHolds = [], counts, next } = await api(`/admin/v1/holds${queueQuery()}`);
  const box = $('holds');
  const queue = queueOf(holds, fundHolds);
  const now = new Set(queue.map((q) => q.key));
  for (const card of box.querySelectorAll('[data-key]')) {
    const key = card.getAttribute('data-key');
    // Resolved elsewhere (the CLI, another operator): it leaves the queue. Resolved here: kept, showing its new status.
    if (!now.has(key) && !resolvedHere.has(key)) card.remove();
  }
  for (const q of queue) {
    const shown = box.querySelector(`[data-key="${q.key}"]`);
    const make = () => {
      const card = q.make();
      card.setAttribute('data-stamp', q.stamp);
      return card;
    };
    if (shown && resolvedHere.has(q.key) && resolvedHere.get(q.key) !== q.stamp) {
      resolvedHere.delete(q.key);
      shown.replaceWith(make());
      announce(`${q.name} is held again.`);
    } else if (!shown) box.append(make());
    else updateNotes(q.key, q.hold); // a colleague's claim or comment since
  }
  for (const q of queue) showApproval(box.querySelector(`[data-key="${q.key}"]`), q.approval);
  for (const age of box.querySelectorAll('[data-age]')) age.textContent = `held ${ageWords(age.getAttribute('data-held-at'))}`;
  $('holds-empty').hidden = box.children.length > 0;
  showCounts(counts ?? { holds: holds.length, fundHolds: fundHolds.length }, holds.length, fundHolds.length);
  showQueuePaging(next);
}

/**
 * The heading counts every open hold (and, filtered, how many match); on the first page a listing cut at the API's
 * limit says how much it left out ("Next holds" shows the rest).
 */
function showCounts(counts, ordersShown, fundsShown) {
  const m = counts.matching;
  $('holds-count').textContent = `(${counts.holds + counts.fundHolds} open${m ? `, ${m.holds + m.fundHolds} match` : ''})`;
  const cut = [];
  if (queuePage() > 1) {
    $('holds-more').hidden = true;
    return;
  }
  counts = m ?? counts;
  if (counts.holds > ordersShown) cut.push(`the oldest ${ordersShown} of ${counts.holds} held orders`);
  if (counts.fundHolds > fundsShown) cut.push(`the oldest ${fundsShown} of ${counts.fundHolds} held funds`);
  $('holds-more').hidden = cut.length === 0;
  $('holds-more').textContent = cut.length ? sentences(`More holds exist than this page shows: showing ${cut.join(' and ')}`, 'Resolve these, or go to the next holds') : '';
}

export function clearHolds() {
  $('holds').replaceChildren();
  resolvedHere.clear();
  forgetNotes();
}
