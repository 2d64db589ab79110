// Four eyes on the console (docs/compliance.md "Four eyes"): a hold whose freeze, or release of a sanctions-list
// finding, was proposed shows "Awaiting approval" with who proposed what and why. An approver other than the
// proposer approves (it is carried out) or rejects it; the proposer may withdraw it. Nobody approves their own.
import { announce, api, el, signedIn } from './console-kit.js';
import { sentences } from './console-words.js';
import { timeWords } from './receipt-words.js';

/** Shows (or removes) the proposal awaiting on a hold's card; redrawn only when the proposal changes. */
export function showApproval(card, approval) {
  if (!card) return;
  const slot = card.querySelector('[data-approval]');
  const id = approval?.approvalId ?? '';
  if ((slot?.getAttribute('data-approval') ?? '') === id && (slot || !approval)) return;
  slot?.remove();
  if (!approval) return;
  const box = approvalBox(approval);
  const form = card.querySelector('form.resolve');
  if (form) form.before(box);
  else card.append(box);
}

function approvalBox(a) {
  const me = signedIn();
  const mine = me && (a.proposedByOperator === me.operatorId || a.proposedBy === me.logsAs);
  const heading = `awaiting-${a.approvalId}`;
  const box = el('div', { class: 'approval', role: 'group', 'aria-labelledby': heading, 'data-approval': a.approvalId },
    el('p', { id: heading }, el('strong', {}, 'Awaiting approval: '), sentences(`${a.action} proposed by ${nameOf(a.proposedBy)} ${timeWords(a.proposedAt)}, note “${a.note}”`)),
  );
  const message = el('p', { class: 'message', role: 'status', hidden: true, 'data-approval-message': '' });
  const noteId = `approval-note-${a.approvalId}`;
  const note = el('input', { type: 'text', id: noteId, maxlength: '500' });
  const button = (text, cls, path, done) => {
    const b = el('button', { type: 'button', class: cls }, text);
    b.addEventListener('click', async () => {
      b.disabled = true;
      try {
        const out = await api(`/admin/v1/approvals/${encodeURIComponent(a.approvalId)}/${path}`, { method: 'POST', body: note.value.trim() ? { note: note.value.trim() } : {} });
        message.className = 'message ok';
        message.textContent = done(out);
        box.querySelectorAll('button, input').forEach((x) => x.remove());
      } catch (e) {
        message.className = 'message bad';
        message.textContent = `Refused: ${e.message}${e.code ? ` (${e.code})` : ''}`;
        b.disabled = false;
      }
      message.hidden = false;
      announce(message.textContent);
    });
    return b;
  };
  if (mine) {
    box.append(el('p', { class: 'help' }, 'Your proposal: another operator, an approver, approves it.'), el('label', { for: noteId }, 'Note (optional)'), note,
      button('Withdraw', 'secondary', 'reject', () => 'Withdrawn: the hold stays as it is.'));
  } else if (me?.role === 'approver') {
    box.append(el('label', { for: noteId }, 'Note (optional)'), note,
      button(`Approve the ${a.action}`, a.action === 'freeze' ? 'danger' : '', 'approve', (out) => sentences(`Approved: ${a.action} carried out, the hold is now ${out.status}`)),
      button('Reject', 'secondary', 'reject', () => 'Rejected: the hold stays as it is.'));
  } else {
    box.append(el('p', { class: 'help' }, 'An approver decides it.'));
  }
  box.append(message);
  return box;
}

/** `operator:Ana Lima (op_…)` → `Ana Lima`; the automation's label as it is. */
const nameOf = (label) => /^operator:(.*) \(op_[a-z2-9]{12}\)$/.exec(label)?.[1] ?? label;
