/**
 * bench:settlement's side of the Hush process (bench/support/settlement-bench-server.ts): its addresses,
 * the partner API as a partner calls it, and the side endpoint's CPU reading.
 */

export interface BenchInfo {
  hushUrl: string;
  sideUrl: string;
  apiKey: string;
  engine: string;
}

export interface StatusRecord {
  trackingId: string;
  status: string;
  payouts: { signature: string; amount: string; confirmedAt: string | null }[];
  history: { status: string; at: string }[];
}

export async function api<T>(info: BenchInfo, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<T> {
  const res = await fetch(`${info.hushUrl}/transfer/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${info.apiKey}`, ...(body ? { 'content-type': 'application/json' } : {}), ...headers },
    body: body ? JSON.stringify(body) : undefined,
  });
  const json = (await res.json()) as T & { success: boolean; error?: unknown };
  if (!json.success) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json.error)}`);
  return json;
}

export async function hushCpuMicros(info: BenchInfo): Promise<number> {
  return ((await (await fetch(`${info.sideUrl}/cpu`)).json()) as { micros: number }).micros;
}

/** `fn` for 0 … n-1, at most `concurrency` at a time; results in order. */
export async function pool<T>(n: number, concurrency: number, fn: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = new Array(n);
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) {
        const i = next++;
        out[i] = await fn(i);
      }
    }),
  );
  return out;
}
