/**
 * Helpers for the settlement tests (test/settlement/*): funded wallets on a real chain, orders placed
 * through the real HTTP API, deposits signed by the sender's own key with @solana/kit, reads of what
 * landed on chain, and checks shared by every scenario (the status history, the shape of every Hush
 * transaction, "paid exactly once" in the store and on chain).
 *
 * Nothing here talks to Hush's internals: the API is reached over HTTP, the chain over JSON-RPC, and the
 * store only through SQL on its tables (chain_txs, orders), read after the fact.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  decompileTransactionMessage, getBase64Encoder, getCompiledTransactionMessageDecoder, getTransactionDecoder,
  type Address, type Base64EncodedWireTransaction, type KeyPairSigner, type Signature,
} from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import {
  ASSOCIATED_TOKEN_PROGRAM_ADDRESS, getCreateAssociatedTokenInstruction, getSyncNativeInstruction,
  getTransferCheckedInstruction,
} from '@solana-program/token';
import { expectOk, HushClient, signDeposit } from './hush-server.ts';
import {
  ataOf, ISO_MS, TOKEN_PROGRAM, type AssetInfo, type Chain, type PlacedOrder, type QuoteReq,
} from './settlement-chain.ts';
import { buildSignedTransaction, latestBlockhash, pollUntil } from './localnet.ts';

export * from './settlement-chain.ts';
export * from './settlement-landed.ts';

/** The deposit account and its owner, read from the order's own transaction (its create-ATA instruction). */
export function depositOf(base64: string): { depositAccount: Address; depositOwner: Address; blockhash: string } {
  const tx = getTransactionDecoder().decode(getBase64Encoder().encode(base64));
  const compiled = getCompiledTransactionMessageDecoder().decode(tx.messageBytes);
  const msg = decompileTransactionMessage(compiled as Parameters<typeof decompileTransactionMessage>[0]);
  const create = msg.instructions.find((ix) => ix.programAddress === ASSOCIATED_TOKEN_PROGRAM_ADDRESS);
  assert.ok(create?.accounts, 'the order transaction creates the deposit token account');
  // CreateAssociatedToken accounts: payer, ata, owner, mint, system program, token program.
  return { depositAccount: create.accounts[1]!.address, depositOwner: create.accounts[2]!.address, blockhash: compiled.lifetimeToken };
}

/** POST /quote then POST /order with the quote unchanged. */
export async function placeOrder(client: HushClient, req: QuoteReq): Promise<PlacedOrder> {
  const quote = expectOk(await client.quote(req)).quote;
  const { amount: _a, sourceAssetId: _s, destinationAssetId: _d, mode: _m, privacy: _p, ...terms } = req;
  const order = expectOk(await client.order({ quote, ...terms })).order;
  assert.equal(order.amountIn, quote.amountIn, 'the order keeps the quote amountIn');
  assert.equal(order.amountOut, quote.amountOut, 'the order keeps the quote amountOut');
  const d = depositOf(order.transaction);
  return {
    req,
    quote,
    order,
    trackingId: order.trackingId,
    amountIn: BigInt(quote.amountIn),
    amountOut: BigInt(quote.amountOut),
    networkFee: BigInt(quote.networkFee),
    depositAccount: d.depositAccount,
    depositOwner: d.depositOwner,
  };
}

/** Signs an order's transaction with the sender's key and submits it. */
export async function signAndSend(chain: Chain, base64: string, sender: KeyPairSigner, opts: { skipPreflight?: boolean } = {}): Promise<Signature> {
  const { wire, signature } = await signDeposit(base64, sender);
  const sent = await chain.rpc
    .sendTransaction(wire as Base64EncodedWireTransaction, { encoding: 'base64', skipPreflight: opts.skipPreflight ?? false, preflightCommitment: 'processed' })
    .send()
    .catch(explainSendError);
  assert.equal(sent, signature);
  return signature;
}

/** Rethrows a sendTransaction failure with the RPC's error details (kit keeps them in `context`). */
export function explainSendError(e: unknown): never {
  const err = e as { message?: string; context?: unknown; cause?: { message?: string; context?: unknown } };
  throw new Error(`sendTransaction failed: ${err.message} ${jsonish(err.context ?? {})}; cause: ${err.cause?.message ?? '-'} ${jsonish(err.cause?.context ?? {})}`, { cause: e });
}

/**
 * Signs and submits the order's transaction the way a careful wallet does: if its blockhash died before
 * it was sent (a loaded machine), ask Hush for a refreshed transaction (POST /order/{id}/refresh) and
 * send that instead. Returns the signature that was accepted.
 */
export async function depositWithRefresh(client: HushClient, chain: Chain, placed: PlacedOrder, sender: KeyPairSigner, attempts = 3): Promise<Signature> {
  let tx = placed.order.transaction as string;
  for (let i = 1; ; i++) {
    try {
      return await signAndSend(chain, tx, sender);
    } catch (e) {
      if (i >= attempts || !/Blockhash not found/i.test((e as Error).message)) throw e;
      const previous = tx;
      tx = await pollUntil(
        async () => {
          const r = await client.refresh(placed.trackingId);
          assert.equal(r.status, 200, `refresh: ${r.text}`);
          return r.body.order.transaction !== previous ? (r.body.order.transaction as string) : null;
        },
        { timeoutMs: 20_000, intervalMs: 250, what: 'a refreshed transaction' },
      );
    }
  }
}

/**
 * Several senders' deposits sent in one JSON-RPC batch: the local chain runs a batch in one turn of its
 * event loop, so they land in one slot and Hush sees them arrive together (a crowd), never one by one
 * with a release pass between. A deposit whose blockhash died before it went (a loaded machine) is sent
 * again through depositWithRefresh, by itself. Returns the signatures, in order.
 */
export async function depositTogether(client: HushClient, chain: Chain, deposits: readonly { placed: PlacedOrder; sender: KeyPairSigner }[]): Promise<Signature[]> {
  const signed = await Promise.all(deposits.map((d) => signDeposit(d.placed.order.transaction as string, d.sender)));
  const body = signed.map((s, id) => ({ jsonrpc: '2.0', id, method: 'sendTransaction', params: [s.wire, { encoding: 'base64', preflightCommitment: 'processed' }] }));
  const answers = (await (await fetch(chain.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).json()) as { id: number; result?: string; error?: { message: string } }[];
  return Promise.all(
    deposits.map(async (d, i) => {
      const answer = answers.find((a) => a.id === i);
      if (answer?.result !== undefined) {
        assert.equal(answer.result, signed[i]!.signature);
        return signed[i]!.signature;
      }
      if (!/Blockhash not found/i.test(answer?.error?.message ?? '')) throw new Error(`sendTransaction failed: ${JSON.stringify(answer)}`);
      return depositWithRefresh(client, chain, d.placed, d.sender);
    }),
  );
}

/**
 * The sender's own transaction into the order's deposit account, carrying `amount` (less than amountIn):
 * the deposit account created with the NON-idempotent associated-token-account instruction exactly like
 * Hush's transaction, then a transfer of `amount` (SOL: system transfer + SyncNative unless told not to;
 * SPL: TransferChecked).
 */
export async function sendOwnDeposit(chain: Chain, placed: PlacedOrder, sender: KeyPairSigner, asset: AssetInfo, amount: bigint, opts: { syncNative?: boolean } = {}): Promise<Signature> {
  const create = getCreateAssociatedTokenInstruction({ payer: sender, ata: placed.depositAccount, owner: placed.depositOwner, mint: asset.mint, tokenProgram: TOKEN_PROGRAM });
  const sync = opts.syncNative === false ? [] : [getSyncNativeInstruction({ account: placed.depositAccount })];
  const transfer = asset.native
    ? [getTransferSolInstruction({ source: sender, destination: placed.depositAccount, amount }), ...sync]
    : [
        getTransferCheckedInstruction({
          source: await ataOf(sender.address, asset.mint),
          mint: asset.mint,
          destination: placed.depositAccount,
          authority: sender,
          amount,
          decimals: asset.decimals,
        }),
      ];
  const { wire, signature } = await buildSignedTransaction(sender, [create, ...transfer], await latestBlockhash(chain.rpc));
  await chain.rpc.sendTransaction(wire, { encoding: 'base64', preflightCommitment: 'processed' }).send().catch(explainSendError);
  return signature;
}

/**
 * Polls GET /status until the order reaches one of `statuses`. Fails at once if it ends in another final
 * status, and at the deadline with the last record seen.
 */
export async function waitForOrder(client: HushClient, trackingId: string, statuses: string[], timeoutMs: number): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  let last: any = null;
  let lastError: unknown = null;
  for (;;) {
    try {
      const res = await client.status(trackingId);
      if (res.status === 200) last = res.body.order;
    } catch (e) {
      lastError = e; // the server may be restarting
    }
    if (last && statuses.includes(last.status)) return last;
    if (last?.final) throw new Error(`order ${trackingId} ended ${last.status} (${last.failureReason ?? 'no reason'}), expected ${statuses.join('|')}: ${JSON.stringify(last)}`);
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${trackingId} to reach ${statuses.join('|')}; last record ${JSON.stringify(last)}${lastError ? `; last error ${String(lastError)}` : ''}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Polls GET /status until the order is completed and its privacy.releasedWith counted (issue 54: once every
 * payout of its release is final, the burst its payout landed in).
 */
export async function waitForReleasedWith(client: HushClient, trackingId: string, timeoutMs: number): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const rec = await waitForOrder(client, trackingId, ['completed'], Math.max(1, deadline - Date.now()));
    if (rec.privacy.releasedWith !== null) return rec;
    if (Date.now() > deadline) throw new Error(`${trackingId}: completed, releasedWith never counted: ${JSON.stringify(rec.privacy)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** docs/spec.md §5: history lists every transition in order, each with an ISO-8601 millisecond timestamp. */
export function assertHistory(rec: any, expected: string[]): void {
  assert.deepEqual(
    rec.history.map((h: any) => h.status),
    expected,
    `history of ${rec.trackingId}: ${JSON.stringify(rec.history)}`,
  );
  let prev = 0;
  for (const h of rec.history) {
    assert.match(h.at, ISO_MS, 'history timestamps are ISO 8601 UTC with milliseconds');
    const t = Date.parse(h.at);
    assert.ok(t >= prev, `history is in time order: ${JSON.stringify(rec.history)}`);
    prev = t;
  }
  assert.equal(rec.history[0].at, rec.createdAt, 'the first entry is the creation');
  assert.equal(rec.history.at(-1).at, rec.updatedAt, 'the last entry is the latest update');
  assert.equal(rec.status, expected.at(-1));
}


/** GET /admin/v1/reconcile until it is clean (ok) with nothing pending; fails at the deadline with the last report. */
export async function waitForCleanReconcile(baseUrl: string, adminToken: string, timeoutMs: number): Promise<any> {
  let last: any = null;
  try {
    return await pollUntil(
      async () => {
        const res = await fetch(`${baseUrl}/admin/v1/reconcile`, { headers: { authorization: `Bearer ${adminToken}` } });
        last = await res.json();
        return res.status === 200 && last.ok === true && last.pendingTransactions === 0 ? last : null;
      },
      { timeoutMs, intervalMs: 250, what: 'a clean reconcile' },
    );
  } catch (e) {
    throw new Error(`${(e as Error).message}; last report: ${JSON.stringify(last)}`);
  }
}

export function readDemoAccount(dataDir: string): { accountId: string; apiKey: string; feeRecipientAddress: string } {
  return JSON.parse(readFileSync(join(dataDir, 'demo-account.json'), 'utf8'));
}

export function jsonish(v: unknown): string {
  return JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? x.toString() : x));
}

