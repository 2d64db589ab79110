import { getCompiledTransactionMessageDecoder, getTransactionDecoder } from '@solana/kit';
import { ASSOCIATED_TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import type { Random } from '../src/support/random.ts';
import { ChainRefused, type ChainUsers } from './chain-users.ts';
import type { EventLog } from './event-log.ts';
import { Unreachable, type Answer, type PartnerApi } from './partner-api.ts';
import type { Session } from './traffic.ts';
import type { VirtualClock } from './virtual-clock.ts';
import { SimWallet } from './wallets.ts';

/** What the simulation knows of one order from the user's side: the truth the invariants hold Hush to. */
export interface OrderTruth {
  session: Session;
  sender: SimWallet;
  recipient: string;
  trackingId: string | null;
  quote: any;
  order: any;
  depositAccount: string | null;
  depositOwner: string | null;
  /** What the user put in the deposit account (0n: nothing). */
  deposited: bigint;
  /** The sender's holding of the source asset right after its deposit landed (for the refund check). */
  senderAfterDeposit: bigint | null;
  /** Late funds another wallet sent to the deposit account after the order ended. */
  lateFunds: bigint;
  /** The last status record read. */
  last: any;
  /** When the deposit's signature was confirmed, simulated ms. */
  depositAt: number | null;
  /** Requests the user could not complete (Hush down, 503), with why. */
  gaveUp: string | null;
  /** The visit is over: the order ended (or never was), and late funds, if any, were sent. */
  done: boolean;
  /** The money checks found it final and right: read again only at the end. */
  settled?: boolean;
  /** When Hush answered the order (simulated ms): a store restored to a backup older than this may have forgotten it. */
  placedAt?: number;
}

export interface UserWorld {
  clock: VirtualClock;
  log: EventLog;
  chain: ChainUsers;
  partner(index: number): { api: PartnerApi; feeRecipient: string };
  blockSender(address: string): void;
  /** The run is ending: users stop polling. */
  ending(): boolean;
  /** The store went back to a backup taken before this order was placed (a `store` fault). */
  forgotten?(t: OrderTruth): boolean;
}

/** A partner's retry policy: a request that reached no process, or got 429/503, is sent again a few times. */
async function withRetries(w: UserWorld, what: string, send: () => Promise<Answer>, tries = 8): Promise<Answer | null> {
  for (let i = 0; i < tries; i++) {
    try {
      const a = await send();
      if (a.status !== 503 && a.status !== 429 && !(a.status === 409 && a.body?.error?.code === 'ORDER_IN_PROGRESS')) return a;
    } catch (e) {
      if (!(e instanceof Unreachable)) throw e;
    }
    await w.clock.sleep(1_000 * 2 ** Math.min(i, 4));
  }
  w.log.add(`${what}: gave up after ${tries} tries`);
  return null;
}

const FINAL = new Set(['completed', 'refunded', 'expired', 'failed', 'frozen']);

/**
 * One user's visit: quote, order (a retry of it, with or without an idempotency key), the deposit (Hush's own
 * transaction signed, or the user's own of the wrong amount, or none), a hint, and polling until the order
 * ends; late funds from another wallet after. Every step is logged with its answer.
 */
export async function runSession(w: UserWorld, s: Session, random: Random, truths: OrderTruth[]): Promise<void> {
  const t = newTruth(s, random);
  truths.push(t);
  try {
    await visit(w, t, random);
  } finally {
    t.done = true;
  }
}

function newTruth(s: Session, random: Random): OrderTruth {
  // A shared wallet is the same keys in every session that names it (and in every run: each run's chain is new).
  const sender = s.wallet === undefined ? SimWallet.draw(random) : new SimWallet(new Uint8Array(32).fill(0x70 + s.wallet));
  const recipient = SimWallet.draw(random).address;
  return { session: s, sender, recipient, trackingId: null, quote: null, order: null, depositAccount: null, depositOwner: null, deposited: 0n, senderAfterDeposit: null, lateFunds: 0n, last: null, depositAt: null, gaveUp: null, done: false };
}

async function visit(w: UserWorld, t: OrderTruth, random: Random): Promise<void> {
  const { session: s, sender, recipient } = t;
  const tag = `#${s.id}`;
  if (s.sanctioned) w.blockSender(sender.address);
  // Funding: SOL for fees and rent, and the asset sent (and then some, for an over-deposit).
  await w.chain.airdrop(sender.address, s.source === 'sol' ? s.amount * 2n + 50_000_000n : 50_000_000n);
  if (s.source === 'usdc') await w.chain.tokenAirdrop(sender.address, 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v', s.amount * 2n);
  const { api, feeRecipient } = w.partner(s.partner);
  const request = {
    amount: s.amount.toString(),
    sourceAssetId: s.source,
    destinationAssetId: s.destination,
    senderAddress: sender.address,
    recipientAddress: recipient,
    ...(s.feeBps > 0 ? { feeBps: s.feeBps, feeRecipientAddress: feeRecipient } : {}),
    ...(s.privacy ? { privacy: s.privacy } : {}),
  };
  const q = await withRetries(w, `${tag} quote`, () => api.quote(request));
  if (!q) return void (t.gaveUp = 'quote');
  w.log.add(`${tag} quote ${q.status}${q.status === 200 ? '' : ` ${q.body?.error?.code}`}`);
  if (q.status !== 200) return;
  t.quote = q.body.quote;
  const orderBody = { quote: t.quote, senderAddress: sender.address, recipientAddress: recipient, ...(s.feeBps > 0 ? { feeBps: s.feeBps, feeRecipientAddress: feeRecipient } : {}) };
  const key = s.idempotencyKey ? `k-${s.id}-${random.int(1e9)}` : undefined;
  const o = await withRetries(w, `${tag} order`, () => api.order(orderBody, key));
  if (!o) return void (t.gaveUp = 'order');
  w.log.add(`${tag} order ${o.status}${o.status === 200 ? ` ${o.body.order.trackingId}` : ` ${o.body?.error?.code}`}`);
  if (o.status !== 200) return;
  t.order = o.body.order;
  t.trackingId = t.order.trackingId;
  t.placedAt = w.clock.now();
  if (s.retryOrder) {
    const again = await withRetries(w, `${tag} order again`, () => api.order(orderBody, key));
    const same = again?.status === 200 && again.body.order.trackingId === t.trackingId;
    w.log.add(`${tag} order again ${again?.status ?? 'none'}${same ? ' same order' : ` ${JSON.stringify(again?.body?.error ?? again?.body?.order?.trackingId)}`}`);
    if (again && !same) throw new InvariantBroken('idempotent order', `${t.trackingId}: a retry of its order request answered ${again.status} ${JSON.stringify(again.body).slice(0, 200)}`);
  }
  const deposit = depositOf(t.order.transaction);
  t.depositAccount = deposit.account;
  t.depositOwner = deposit.owner;
  await w.clock.sleep(s.signDelayMs);
  const signature = await sendDeposit(w, s, t, api);
  if (signature && s.hint) {
    const h = await withRetries(w, `${tag} hint`, () => api.hint(t.trackingId!, signature));
    w.log.add(`${tag} hint ${h?.status ?? 'none'}`);
  }
  await follow(w, t, api);
  if (s.lateFunds && t.last?.final && !w.ending()) {
    const late = SimWallet.draw(random);
    await w.chain.airdrop(late.address, 50_000_000n + (s.source === 'sol' ? 20_000_000n : 0n));
    if (s.source === 'usdc') await w.chain.tokenAirdrop(late.address, 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v', 2_000_000n);
    const amount = s.source === 'sol' ? 20_000_000n : 2_000_000n;
    try {
      await w.chain.transferToDeposit(late, { account: t.depositAccount!, owner: t.depositOwner! }, s.source, amount, false);
      t.lateFunds += amount;
      w.log.add(`${tag} late funds ${amount}`);
    } catch (e) {
      w.log.add(`${tag} late funds refused: ${(e as Error).message.slice(0, 80)}`);
    }
  }
}

/** Sends the deposit the session calls for; a blockhash that died meanwhile is refreshed once. Returns its signature. */
async function sendDeposit(w: UserWorld, s: Session, t: OrderTruth, api: PartnerApi): Promise<string | null> {
  const tag = `#${s.id}`;
  if (s.deposit === 'none') return null;
  const amountIn = BigInt(t.order.amountIn);
  const amount = s.deposit === 'exact' ? amountIn : s.deposit === 'short' ? amountIn - amountIn / 10n : amountIn + amountIn / 10n;
  let tx: string = t.order.transaction;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const signature =
        s.deposit === 'exact'
          ? await w.chain.send(t.sender.signWire(tx).wire)
          : await w.chain.transferToDeposit(t.sender, { account: t.depositAccount!, owner: t.depositOwner! }, s.source, amount, true);
      t.deposited = amount;
      t.depositAt = w.clock.now();
      // The deposit's own post balance: a reading once it is confirmed may already hold a refund of it (an over
      // or short deposit is refunded in the next slots).
      await w.chain.confirmed(signature, w.clock);
      // A shared wallet's balance mixes its sessions' airdrops and refunds: no one session's refund can be read
      // from it, so those are held to the ledger's reconciliation against the chain instead.
      if (s.wallet === undefined) t.senderAfterDeposit = await w.chain.holdingAfter(signature, t.sender.address, s.source);
      w.log.add(`${tag} deposit ${s.deposit} ${amount}`);
      return signature;
    } catch (e) {
      if (!(e instanceof ChainRefused) || !/blockhash not found/i.test(e.message) || s.deposit !== 'exact') {
        w.log.add(`${tag} deposit refused: ${(e as Error).message.slice(0, 100)}`);
        return null;
      }
      const r = await withRetries(w, `${tag} refresh`, () => api.refresh(t.trackingId!));
      w.log.add(`${tag} refresh ${r?.status ?? 'none'}${r && r.status !== 200 ? ` ${r.body?.error?.code}` : ''}`);
      if (!r || r.status !== 200) return null;
      tx = r.body.order.transaction;
    }
  }
  return null;
}

/** Polls the order's status until it ends (or is held, or the run ends), as a partner's backend does. */
async function follow(w: UserWorld, t: OrderTruth, api: PartnerApi): Promise<void> {
  let wait = 5_000;
  for (;;) {
    await w.clock.sleep(wait);
    wait = Math.min(60_000, wait * 1.5);
    let a: Answer;
    try {
      a = await api.status(t.trackingId!);
    } catch (e) {
      if (e instanceof Unreachable) continue;
      throw e;
    }
    // The store went back to before the order (docs/operations.md "Restore"): it is forgotten, and so is its status.
    if (a.status === 404 && w.forgotten?.(t)) return;
    if (a.status !== 200) continue;
    const rec = a.body.order;
    if (rec.status !== t.last?.status) w.log.add(`#${t.session.id} status ${rec.status}`);
    t.last = rec;
    if (FINAL.has(rec.status) || w.ending()) return;
  }
}

/** The deposit account and its owner, from the order's transaction: the create-ATA instruction's accounts 1 and 2. */
export function depositOf(base64: string): { account: string; owner: string } {
  // kit's decoders read the wire as a validator does (lengths are compact-u16: the deposit record's memo needs two bytes).
  const tx = getTransactionDecoder().decode(Buffer.from(base64, 'base64'));
  const msg = getCompiledTransactionMessageDecoder().decode(tx.messageBytes) as unknown as {
    staticAccounts: readonly string[];
    instructions: readonly { programAddressIndex: number; accountIndices?: readonly number[] }[];
  };
  const keys = msg.staticAccounts.map(String);
  for (const ix of msg.instructions) {
    if (keys[ix.programAddressIndex] !== ASSOCIATED_TOKEN_PROGRAM_ADDRESS) continue;
    return { account: keys[ix.accountIndices![1]!]!, owner: keys[ix.accountIndices![2]!]! };
  }
  throw new Error('the order transaction creates no deposit account');
}

/** An invariant the simulation checks broke: the run stops and reports it with its seed. */
export class InvariantBroken extends Error {
  constructor(
    readonly invariant: string,
    detail: string,
  ) {
    super(`${invariant}: ${detail}`);
  }
}
