/**
 * A URL as it may appear in logs: scheme, host and port only. RPC providers put API keys in the path or
 * the query (`/v2/<key>`, `?api-key=`) and connection strings carry passwords; what was cut is marked.
 */
export function logSafeUrl(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return '(unparsable URL)';
  }
  const cut = u.username !== '' || u.password !== '' || (u.pathname !== '/' && u.pathname !== '') || u.search !== '' || u.hash !== '';
  return `${u.protocol}//${u.host}${cut ? '/…' : ''}`;
}
