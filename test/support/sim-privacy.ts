/**
 * USDC orders on a simulated Hush (test/support/sim-hush.ts) for the class release's tests: placed with a
 * partner's privacy choice, deposited one by one or together in one slot, and read back from the chain — the
 * slot each deposit and payout landed in, the blockhash it carried — as an outside reader sees them.
 */
import assert from 'node:assert/strict';
import type { Address } from '@solana/kit';
import { associatedTokenAddress } from '../../src/domain/associated-token-address.ts';
import { MINTS, TOKEN_PROGRAM } from '../../sim/chain-users.ts';
import { expectOk } from './api-responses.ts';
import { assertPaidOnce } from './settlement-landed.ts';
import { USDC, type SimAccount, type SimHush, type SimWallet } from './sim-hush.ts';

export interface SimOrder {
  trackingId: string;
  quote: any;
  order: any;
  amountOut: bigint;
  sender: SimWallet;
  recipient: Address;
}

export interface SimDeposit {
  signature: string;
  slot: bigint;
  blockhash: string;
  /** When Hush confirmed it (its history, on the simulated clock). */
  confirmedAt: number;
}

export type PrivacyChoice = { minAnonymitySet: number } | { maxDelaySeconds: number };

/** A sender holding 1 SOL and 100 USDC. */
export function usdcSender(h: SimHush): Promise<SimWallet> {
  return h.wallet({ sol: 1_000_000_000n, usdc: 100n * USDC });
}

/**
 * A USDC → USDC order of `amount` base units, placed (quote, order) and not paid, from `sender` (default: a new
 * one, funded first: a test that wants its orders created together funds its senders beforehand).
 */
export async function placeUsdc(h: SimHush, acct: SimAccount, amount: string, opts: { privacy?: PrivacyChoice; sender?: SimWallet } = {}): Promise<SimOrder> {
  const { privacy } = opts;
  const sender = opts.sender ?? (await usdcSender(h));
  const recipient = h.address();
  const req = { amount, sourceAssetId: 'usdc', destinationAssetId: 'usdc', senderAddress: sender.address, recipientAddress: recipient, ...(privacy ? { privacy } : {}) };
  const quote = expectOk(await acct.client.quote(req)).quote;
  const order = expectOk(await acct.client.order({ quote, senderAddress: sender.address, recipientAddress: recipient })).order;
  assert.equal(order.amountOut, quote.amountOut, 'the order keeps the quote amountOut');
  return { trackingId: order.trackingId, quote, order, amountOut: BigInt(order.amountOut), sender, recipient };
}

/** When the order reached `status`, from its history (simulated ms). */
export function at(rec: any, status: string): number {
  const entry = rec.history.find((e: any) => e.status === status);
  assert.ok(entry, `${rec.trackingId} never was ${status}: ${JSON.stringify(rec.history)}`);
  return Date.parse(entry.at);
}

/** The landed transaction at `confirmed` (waited for, in simulated time): its slot and blockhash. */
export async function landed(h: SimHush, signature: string): Promise<{ slot: bigint; blockhash: string }> {
  return h.until(`transaction ${signature} at confirmed`, async () => {
    const tx = await h.chain.call<{ slot: number; transaction: { message: { recentBlockhash: string } } } | null>('getTransaction', [signature, { commitment: 'confirmed', encoding: 'json', maxSupportedTransactionVersion: 0 }]);
    return tx ? { slot: BigInt(tx.slot), blockhash: tx.transaction.message.recentBlockhash } : null;
  }, 30_000);
}

/**
 * The orders' deposits, signed by their senders and sent in one go: the chain runs them in the slot it is in,
 * so Hush sees them arrive together (a crowd), never one by one with a release pass between. Each once Hush has
 * confirmed it.
 */
export async function depositTogether(h: SimHush, client: SimAccount['client'], orders: readonly SimOrder[]): Promise<SimDeposit[]> {
  const signed = orders.map((o) => o.sender.signWire(o.order.transaction));
  const sigs = await h.drive(Promise.all(signed.map((s) => h.chain.send(s.wire))));
  sigs.forEach((sig, i) => assert.equal(sig, signed[i]!.signature));
  const out: SimDeposit[] = [];
  for (const [i, o] of orders.entries()) {
    const tx = await landed(h, sigs[i]!);
    const rec = await h.waitForOrder(client, o.trackingId, ['deposit_confirmed', 'sending', 'completed'], 60_000);
    out.push({ signature: sigs[i]!, ...tx, confirmedAt: at(rec, 'deposit_confirmed') });
  }
  return out;
}

/** One order's deposit by itself. */
export async function depositOne(h: SimHush, client: SimAccount['client'], o: SimOrder): Promise<SimDeposit> {
  return (await depositTogether(h, client, [o]))[0]!;
}

/**
 * Completed, paid exactly once (store and chain), each payout landed two slots or more after its deposit (never
 * the deposit's slot or the next) and never with the blockhash the deposit carried. The status record.
 */
export async function completedOnce(h: SimHush, client: SimAccount['client'], o: SimOrder, d: SimDeposit, maxMs = 600_000): Promise<any> {
  const rec = await h.waitForOrder(client, o.trackingId, ['completed'], maxMs);
  await assertPaidOnce(h.db, o.trackingId, 'payout', o.amountOut);
  assert.equal(await h.drive(h.chain.tokens(associatedTokenAddress(o.recipient, MINTS.usdc as Address, TOKEN_PROGRAM))), o.amountOut, `${o.trackingId}: the recipient holds amountOut on chain`);
  for (const p of rec.payouts) {
    const tx = await landed(h, p.signature);
    assert.ok(tx.slot >= d.slot + 2n, `${o.trackingId}: payout in slot ${tx.slot}, its deposit in ${d.slot}: never the deposit's slot or the next`);
    assert.notEqual(tx.blockhash, d.blockhash, `${o.trackingId}: a payout never carries its deposit's blockhash`);
  }
  return rec;
}

/** The status record once the order is completed and its release counted where it landed. */
export async function releasedWith(h: SimHush, client: SimAccount['client'], o: SimOrder, maxMs = 600_000): Promise<any> {
  return h.until(`${o.trackingId} completed with releasedWith counted`, async () => {
    const rec = expectOk(await client.status(o.trackingId)).order;
    if (rec.final && rec.status !== 'completed') throw new Error(`${o.trackingId} ended ${rec.status}`);
    return rec.status === 'completed' && rec.privacy.releasedWith !== null ? rec : null;
  }, maxMs, 500);
}

/** The landed slot of each order's (single) payout, by tracking id. */
export async function payoutSlots(h: SimHush, recs: readonly any[]): Promise<Map<string, bigint>> {
  const slots = new Map<string, bigint>();
  for (const rec of recs) slots.set(rec.trackingId, (await landed(h, rec.payouts[0].signature)).slot);
  return slots;
}
