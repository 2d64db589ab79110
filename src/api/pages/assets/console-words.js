// The console's sentences about holds: what screening found and by whom, how long ago, and messages put
// together from parts (the API's words among them) with their sentences spaced. Pure functions.

/** A risk API's findings carry `http:<host>` as their list (src/screening/http-provider.ts): the host, or null. */
export function providerHost(list) {
  return typeof list === 'string' && list.startsWith('http:') ? list.slice('http:'.length) : null;
}

const RESULT = { blocked: 'blocked', error: 'could not be screened' };

/**
 * Why something is held, as `{ text, fine }`: a list finding names the list and its listing ("blocked on list
 * sdn.csv (listed (SDN entry 36216))") with the list's version in `fine` (small print: it identifies the file, the
 * operator rarely needs it); a risk API's names the provider and its category, since its list and version are
 * only its address.
 */
export function findingWords(d) {
  if (!d) return { text: 'no decision recorded', fine: null };
  const what = RESULT[d.result] ?? d.result;
  const host = providerHost(d.list);
  if (host) return { text: `${what} by the risk provider ${host}${d.reason ? `: ${d.reason}` : ''}`, fine: null };
  if (d.list) return { text: `${what} on list ${d.list}${d.reason ? ` (${d.reason})` : ''}`, fine: d.version ? `list version ${d.version}` : null };
  return { text: `${what}${d.reason ? ` (${d.reason})` : ''}`, fine: null };
}

/** Who answered, for a log line: "the risk provider <host>" or "list <name>, version <v>"; null when neither. */
export function sourceWords(list, version) {
  const host = providerHost(list);
  if (host) return `the risk provider ${host}`;
  return list ? `list ${list}${version ? `, version ${version}` : ''}` : null;
}

/** "12 s ago", "3 min ago", "2 h ago", "4 days ago": how long before `nowMs` the time `iso` was. */
export function ageWords(iso, nowMs = Date.now()) {
  const s = Math.floor((nowMs - new Date(iso).getTime()) / 1000);
  if (!Number.isFinite(s)) return 'some time ago';
  if (s < 5) return 'just now';
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ago`;
  const d = Math.floor(s / 86400);
  return `${d} day${d === 1 ? '' : 's'} ago`;
}

/** `text` ending as a sentence does (the API's messages end with or without a full stop). */
export const sentence = (text) => {
  const t = String(text).trim();
  return /[.!?…]$/.test(t) ? t : `${t}.`;
};

/** Sentences one after the other, each ended and a space between: never "…status.Next". */
export const sentences = (...parts) => parts.filter((p) => p !== null && p !== undefined && p !== '').map(sentence).join(' ');
