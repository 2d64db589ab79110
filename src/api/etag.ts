/**
 * RFC 9110 §13.1.2 If-None-Match: `*`, or a list of entity tags compared weakly (a `W/` prefix ignored on
 * either side): a cache or a proxy in front (nginx weakens the tags of what it compresses) revalidates with
 * any of the tags it holds, not only the last one it was sent.
 */
export function noneMatch(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === '*') return true;
  const opaque = (t: string) => t.trim().replace(/^W\//, '');
  const mine = opaque(etag);
  return header.split(',').some((t) => opaque(t) === mine);
}
