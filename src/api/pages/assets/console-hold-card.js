// What a hold's card says (docs/compliance.md "The console"), for the live queue (console-holds.js) and the history
// (console-history.js): the facts of a held order or of held funds, why screening held it, how long ago, its
// screening entries; addresses, tracking ids and signatures linked to the explorer and copyable (console-links.js).
import { el, td, units } from './console-kit.js';
import { copyable } from './console-links.js';
import { ageWords, findingWords, sourceWords } from './console-words.js';
import { timeWords } from './receipt-words.js';

export const STAGES = { deposit: 'at deposit', payout: 'before payout', quote: 'at quote', resolution: 'resolution', refund: 'before refund', late: 'on late funds', fee: 'before a fee payout' };

export const row = (name, ...cells) => el('tr', {}, el('th', { scope: 'row' }, name), ...cells);
/** A fact whose value is an address (`kind` address), a signature (tx) or a tracking id (null): linked and copyable. */
export const idRow = (name, kind, id, what) => row(name, el('td', {}, copyable(kind, id, what)));

function whyCell(d) {
  const { text, fine } = findingWords(d);
  return el('td', {}, text, fine ? el('br') : null, fine ? el('small', { class: 'fine' }, fine) : null);
}

export const ageLine = (heldAt) => el('p', { class: 'age', 'data-age': '', 'data-held-at': heldAt }, `held ${ageWords(heldAt)}`);

export function factsTable(caption, rows) {
  return el('table', { class: 'facts' }, el('caption', { class: 'visually-hidden' }, caption), el('tbody', {}, ...rows));
}

/** The finding's stage and field, then its address as a link of its own. */
function findingRows(d) {
  return [
    row('Stage and field', td(`${d?.stage ?? '—'}, ${d?.field ?? '—'}`)),
    ...(d?.address ? [idRow('Address found', 'address', d.address, `the address screening found (${d.field ?? 'address'})`)] : []),
    row('Why', whyCell(d)),
  ];
}

/** A held order's facts (the queue's and the history's), `status` its pill. */
export function orderFacts(h, status) {
  const d = h.decision;
  return factsTable(`Hold ${h.trackingId}`, [
    row('Status', el('td', {}, el('span', { class: 'status-pill', 'data-status': '' }, status))),
    idRow('Order', null, h.trackingId, 'the tracking id'),
    ...findingRows(d),
    row('Held since', td(timeWords(h.heldAt))),
    row('Partner account', td(h.accountId, 'mono')),
    row('Amounts', td(`${units(h.amountIn, h.sourceAssetId)} in, ${units(h.amountOut, h.destinationAssetId)} out`)),
    idRow('Sender', 'address', h.senderAddress, 'the sender address'),
    idRow('Recipient', 'address', h.recipientAddress, 'the recipient address'),
    ...(h.depositSignature ? [idRow('Deposit transaction', 'tx', h.depositSignature, 'the deposit transaction signature')] : []),
  ]);
}

/** The sweep that took late funds into a pool: the first part of the hold's subject (`<signature>:<order id>`). */
const sweepOf = (h) => (h.kind === 'late' && typeof h.subject === 'string' && h.subject.includes(':') ? h.subject.slice(0, h.subject.lastIndexOf(':')) : null);

/** Held funds' facts (late funds, a fee recipient), `status` its pill. */
export function fundFacts(h, status) {
  const late = h.kind === 'late';
  const sweep = sweepOf(h);
  return factsTable(`Hold ${h.holdId}`, [
    row('Status', el('td', {}, el('span', { class: 'status-pill', 'data-status': '' }, status))),
    row('What', td(late
      ? `Funds that reached the deposit account of ${h.trackingId ?? 'an order'} outside its order, kept instead of refunded (hold ${h.holdId})`
      : `Fees owed to this recipient, unpaid; they keep accruing until it is released or screens clear (hold ${h.holdId})`)),
    ...(late && h.trackingId ? [idRow('Order', null, h.trackingId, 'the tracking id')] : []),
    ...findingRows(h.decision),
    row('Held since', td(timeWords(h.heldAt))),
    row('Partner account', td(h.accountId, 'mono')),
    row(late ? 'Amount held' : 'Fees owed', td(units(h.amount, h.assetId))),
    ...(sweep ? [idRow('Sweep transaction', 'tx', sweep, 'the sweep transaction signature')] : []),
  ]);
}

export function entryWords(e) {
  const source = sourceWords(e.list, e.version);
  const found = `${e.stage}${e.field ? ` ${e.field}` : ''} ${e.result}${source ? `, ${source}` : ''}${e.reason ? ` (${e.reason})` : ''}`;
  return `${timeWords(e.at)}: ${found}${e.note ? `, note “${e.note}”` : ''}`;
}
