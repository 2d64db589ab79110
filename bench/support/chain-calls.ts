/**
 * The benches' own chain calls, straight to the local chain (never through a counting proxy): JSON-RPC
 * batches, plain status polls, and funding wallets from the local faucet.
 */
import { createSolanaRpc, type Signature } from '@solana/kit';
import type { Asset } from '../../src/config/assets.ts';
import { sleep } from './processes.ts';

export type Rpc = ReturnType<typeof createSolanaRpc>;

/**
 * JSON-RPC 2.0 batches (arrays of requests per POST), split to stay under the RPC body limit (50 KiB, as
 * Agave's) and posted concurrently; results in call order.
 */
export async function rpcBatch<T>(url: string, calls: { method: string; params: unknown[] }[]): Promise<{ result?: T; error?: { message: string } }[]> {
  const bodies: string[][] = [[]];
  let size = 0;
  calls.forEach((c, id) => {
    const one = JSON.stringify({ jsonrpc: '2.0', id, ...c });
    if (size + one.length > 45_000) (bodies.push([]), (size = 0));
    bodies[bodies.length - 1]!.push(one);
    size += one.length + 1;
  });
  const replies = await Promise.all(
    bodies.map(async (b) => {
      const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: `[${b.join(',')}]` });
      const body = (await res.json()) as { id: number; result?: T; error?: { message: string } }[];
      if (!Array.isArray(body)) throw new Error(`batch rejected: ${JSON.stringify(body)}`);
      return body;
    }),
  );
  return replies.flat().sort((a, b) => a.id - b.id);
}

export async function rawSignatureStatuses(url: string, sigs: string[]): Promise<({ slot: number; err: unknown; confirmationStatus: string } | null)[]> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getSignatureStatuses', params: [sigs] }) });
  const body = (await res.json()) as { result?: { value: ({ slot: number; err: unknown; confirmationStatus: string } | null)[] }; error?: { message: string } };
  if (!body.result) throw new Error(`getSignatureStatuses failed: ${body.error?.message}`);
  return body.result.value;
}

export async function waitConfirmed(rpc: Rpc, sigs: string[]): Promise<void> {
  for (let i = 0; i < 600; i++) {
    let done = true;
    for (let j = 0; j < sigs.length; j += 256) {
      const { value } = await rpc.getSignatureStatuses(sigs.slice(j, j + 256) as Signature[]).send();
      for (const s of value) {
        if (s?.err) throw new Error(`funding transaction failed: ${JSON.stringify(s.err)}`);
        if (!s || s.confirmationStatus === 'processed') done = false;
      }
    }
    if (done) return;
    await sleep(100);
  }
  throw new Error('funding did not confirm');
}

/** SOL for fees (and the amount, for SOL sends) plus tokens of `asset` from the local faucet, confirmed. */
export async function fund(chainUrl: string, rpc: Rpc, asset: Pick<Asset, 'native' | 'mint'>, wallets: { address: string; lamports: bigint; tokens: bigint }[]): Promise<void> {
  const calls = wallets.flatMap((w) => [
    ...(w.lamports > 0n ? [{ method: 'requestAirdrop', params: [w.address, Number(w.lamports)] }] : []),
    ...(w.tokens > 0n && !asset.native ? [{ method: 'localnet_requestTokenAirdrop', params: [w.address, asset.mint, w.tokens.toString()] }] : []),
  ]);
  const results = await rpcBatch<string>(chainUrl, calls);
  const sigs = results.map((r, i) => {
    if (!r.result) throw new Error(`${calls[i]!.method}: ${r.error?.message}`);
    return r.result;
  });
  await waitConfirmed(rpc, sigs);
}
