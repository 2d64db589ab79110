/**
 * A background refresh every `everyMs`, unref'd so it never holds the process open; a failed pass is
 * dropped (the caller keeps its last good state). Returns the stop function.
 */
export function every(everyMs: number, pass: () => Promise<unknown>): () => void {
  const timer = setInterval(() => void pass().catch(() => {}), everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
