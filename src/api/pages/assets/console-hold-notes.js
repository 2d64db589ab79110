// A hold's claim and comments on its card (docs/compliance.md "The console"): who is on it (the signed-in operator
// is "you"), with Claim, Unclaim or Take over; the comments, oldest first, and a box to add one without resolving. The queue's refresh brings in what
// colleagues claimed and wrote (updateNotes). A claim is advisory: the decision form stays for everyone.
import { announce, api, el, signedIn } from './console-kit.js';
import { ageWords, sentences } from './console-words.js';
import { timeWords } from './receipt-words.js';

/** Who is signed in, as the log names them (GET /admin/v1/me's `logsAs`: `operator:<name> (<id>)`). */
const me = () => signedIn()?.logsAs ?? null;

/** An actor as a person reads it: "you", a name without the log's `operator:` and `(op_…)`, or as logged. */
export function whoWords(by) {
  if (by === me()) return 'you';
  const named = /^operator:(.*) \((op_[^)]*)\)$/.exec(String(by));
  return named ? named[1] : String(by);
}

/** Every card's notes by its key: what to draw again when the queue's listing changes them. */
const shownNotes = new Map();

/**
 * The notes part of a card for the hold `hold` (its `claim`, `claims`, `comments`), posted to `base`
 * (`/admin/v1/orders/<trackingId>` or `/admin/v1/holds/<holdId>`).
 */
export function notesSection(key, base, hold) {
  const state = { claim: hold.claim ?? null, claims: hold.claims ?? [], comments: hold.comments ?? [] };
  const claimLine = el('p', { class: 'claim', 'data-claim': '' });
  const claimButtons = el('div', { class: 'claim-actions' });
  const list = el('ol', { class: 'comments', 'data-comments': '' });
  const inputId = `comment-${key}`;
  const input = el('input', { type: 'text', id: inputId, name: 'comment', maxlength: '500', required: true, autocomplete: 'off' });
  const form = el('form', { class: 'comment', 'data-comment-form': '' }, el('label', { for: inputId }, 'Comment (without resolving)'), el('div', { class: 'comment-row' }, input, el('button', { type: 'submit', class: 'secondary' }, 'Add comment')));
  const message = el('p', { class: 'message', role: 'status', hidden: true, 'data-notes-message': '' });
  const headingId = `comments-${key}`;
  const section = el('div', { class: 'notes', 'data-notes': key }, claimLine, claimButtons, el('h4', { id: headingId }, 'Comments'), list, form, message);
  list.setAttribute('aria-labelledby', headingId);

  const say = (ok, text) => {
    message.hidden = false;
    message.className = `message ${ok ? 'ok' : 'bad'}`;
    message.textContent = text;
    announce(text);
  };
  const refused = (e) => say(false, `Refused: ${e.message}${e.code ? ` (${e.code})` : ''}`);

  function drawClaim(focus) {
    const c = state.claim;
    const last = state.claims[state.claims.length - 1];
    const taken = c && last?.kind === 'take_over' && last.by === c.by && last.of ? `, taken over from ${whoWords(last.of)}` : '';
    claimLine.textContent = c ? `Claimed by ${whoWords(c.by)} ${ageWords(c.at)}${taken}.` : 'Nobody has claimed this hold.';
    claimLine.setAttribute('data-claimed-by', c?.by ?? '');
    const button = !c
      ? el('button', { type: 'button', class: 'secondary', 'data-claim-action': 'claim' }, 'Claim')
      : c.by === me()
        ? el('button', { type: 'button', class: 'secondary', 'data-claim-action': 'unclaim' }, 'Unclaim')
        : el('button', { type: 'button', class: 'secondary', 'data-claim-action': 'take-over' }, `Take over from ${whoWords(c.by)}`);
    button.addEventListener('click', () => void claimAction(button.getAttribute('data-claim-action')));
    claimButtons.replaceChildren(button);
    if (focus) button.focus();
  }

  function drawComments() {
    list.replaceChildren(...state.comments.map((c) => el('li', { 'data-comment': c.id }, el('span', { class: 'who' }, `${whoWords(c.by)}, ${timeWords(c.at)}: `), c.text)));
    list.hidden = state.comments.length === 0;
  }

  async function claimAction(action) {
    const takeOver = action === 'take-over';
    try {
      const out = await api(`${base}/${action === 'unclaim' ? 'unclaim' : 'claim'}`, { method: 'POST', body: { takeOver } });
      // The trail as the server wrote it, until the next listing brings its own.
      const kind = action === 'unclaim' ? 'unclaim' : takeOver ? 'take_over' : 'claim';
      state.claims = [...state.claims, { kind, by: me(), at: out.claim?.at ?? null, of: kind === 'claim' ? null : state.claim?.by ?? null }];
      state.claim = out.claim;
      say(true, out.claim ? sentences(`You claimed this hold${takeOver ? ' (taken over)' : ''}`) : 'You no longer claim this hold.');
    } catch (e) {
      // Claimed meanwhile by someone else: shown as it is now, with the API's words.
      if (e.code === 'HOLD_CLAIMED' && e.details) state.claim = { by: e.details.claimedBy, operatorId: null, at: e.details.claimedAt };
      refused(e);
    }
    drawClaim(true);
  }

  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const button = form.querySelector('button');
    button.disabled = true;
    try {
      const { comment } = await api(`${base}/comments`, { method: 'POST', body: { text: input.value } });
      state.comments = [...state.comments, comment];
      drawComments();
      input.value = '';
      say(true, 'Comment added.');
    } catch (e) {
      refused(e);
    } finally {
      button.disabled = false;
    }
  });

  drawClaim(false);
  drawComments();
  shownNotes.set(key, (next) => {
    const before = JSON.stringify([state.claim, state.claims, state.comments]);
    const after = JSON.stringify([next.claim ?? null, next.claims ?? [], next.comments ?? []]);
    if (before === after) return void drawClaimAge();
    const focused = claimButtons.contains(document.activeElement);
    Object.assign(state, { claim: next.claim ?? null, claims: next.claims ?? [], comments: next.comments ?? [] });
    drawClaim(focused);
    drawComments();
  });
  // "claimed 3 min ago" kept current, like the hold's own age.
  const drawClaimAge = () => state.claim && (claimLine.textContent = claimLine.textContent.replace(/ (just now|\d+ (s|min|h|days?) ago)/, ` ${ageWords(state.claim.at)}`));
  return section;
}

/** A card resolved here: its claim and comments stay as they were, with nothing left to post. */
export function closeNotes(key) {
  shownNotes.delete(key);
  const notes = document.querySelector(`[data-notes="${key}"]`);
  notes?.querySelectorAll('.claim-actions, [data-comment-form]').forEach((e) => e.remove());
}

/** Draws a shown card's notes as the listing has them now (a colleague's claim or comment); nothing when unchanged. */
export function updateNotes(key, hold) {
  shownNotes.get(key)?.(hold);
}

export function forgetNotes() {
  shownNotes.clear();
}
