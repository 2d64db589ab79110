// What the console's filter forms share (the log's, console-log.js; the queue's, console-queue-filters.js): a
// time field read as the ISO time the admin API takes, and an address's start checked as base58 before it is sent.

/** A `datetime-local` field's value (the operator's own time) as an ISO 8601 time in UTC, or null when empty. */
export function timeParam(input) {
  if (!input.value) return null;
  const at = new Date(input.value);
  return Number.isNaN(at.getTime()) ? null : at.toISOString();
}

const BASE58 = /^[1-9A-HJ-NP-Za-km-z]{1,44}$/;

/**
 * An address field's value when it is the start of an address (base58), else null; a value that cannot be one
 * is marked invalid with `message` saying why and that it is left out (the admin API would refuse it).
 */
export function prefixParam(input, message) {
  const value = input.value.trim();
  const ok = value === '' || BASE58.test(value);
  input.setAttribute('aria-invalid', ok ? 'false' : 'true');
  message.hidden = ok;
  message.textContent = ok ? '' : 'Not the start of an address: only base58 characters (no 0, O, I or l), at most 44. Left out of the filter.';
  return ok && value ? value : null;
}
