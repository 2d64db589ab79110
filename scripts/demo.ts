/**
 * npm run demo [-- --crowd 12 --min-set 12 --asset sol|usdc]
 *
 * A partner integration end to end against a running `npm start`, written with the partner SDK
 * (packages/sdk), showing privacy at work on a fresh Hush: a small crowd of private sends of one amount
 * (1 SOL, or 100 USDC: standard amounts of the default menu), each from a fresh sender funded by the local
 * faucet to a fresh recipient, each quoted with the user's choice `privacy: { minAnonymitySet: 12 }` (the crowd).
 * For each: quote (fees and privacy printed), order, verify the deposit transaction and sign it with
 * @solana/kit, submit it. Then it follows them all (SDK waitForFinal, a poll every 3 s each), printing the
 * class forming as deposits arrive and are held, and each order's receipt once its class is released:
 * the set it went with (`releasedWith`), how long it was held, its payout.
 *
 * Nobody else uses a fresh Hush, so without the choice each send would go out alone within seconds (the
 * quote says `basis: no_traffic`); with it the crowd waits for itself and goes together, within a
 * minute or two with the defaults.
 *
 *   HUSH_URL        default http://127.0.0.1:8787
 *   SOLANA_RPC_URL  default http://127.0.0.1:8899 (the embedded chain; its faucet funds the senders)
 *   DATA_DIR        default ./data — the API key comes from $DATA_DIR/demo-account.json
 *   HUSH_API_KEY    another account's key instead (no partner fee: its fee recipient is not known here)
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createSolanaRpc, generateKeyPairSigner, lamports, type Address, type KeyPairSigner, type Signature } from '@solana/kit';
import { findAssociatedTokenPda } from '@solana-program/token';
import { checkReceipt, createHushClient, HushApiError, HushTransportError, signAndSend, type Quote, type StatusRecord, type Token } from '../packages/sdk/src/index.ts';

const HUSH_URL = (process.env.HUSH_URL ?? 'http://127.0.0.1:8787').replace(/\/$/, '');
const RPC_URL = process.env.SOLANA_RPC_URL ?? 'http://127.0.0.1:8899';
const DATA_DIR = process.env.DATA_DIR ?? './data';
/** A crowd that asked for a set waits at most the operator's ceiling (6 h by default); the demo gives up sooner. */
const GIVE_UP_MS = 15 * 60_000;
/** 1 SOL or 100 USDC: standard amounts of the default menu. */
const AMOUNT = (token: Token): bigint => (token.native ? 1_000_000_000n : 100_000_000n);
/** Placed a few at a time: the demo account's order rate (5 a second) is shared by the crowd. */
const PLACE_AT_ONCE = 3;

const { values: args } = parseArgs({
  options: { asset: { type: 'string', default: 'sol' }, crowd: { type: 'string', default: '12' }, 'min-set': { type: 'string' }, help: { type: 'boolean', short: 'h' } },
});
const CROWD = Number(args.crowd);
// The whole crowd by default: a class goes once every member has the set it asked for, so a smaller set would
// release the first arrivals without the last, who would then wait (up to the ceiling) for company that never comes.
const MIN_SET = Number(args['min-set'] ?? CROWD);
if (args.help || !['sol', 'usdc'].includes(args.asset!) || !(Number.isInteger(CROWD) && CROWD >= 1 && CROWD <= 50) || !(Number.isInteger(MIN_SET) && MIN_SET >= 1 && MIN_SET <= CROWD)) {
  console.log('usage: npm run demo [-- --crowd 12 --min-set 12 --asset sol|usdc]   (a crowd of 1..50 private sends of 1 SOL or 100 USDC, each asking to be released with at least --min-set ≤ --crowd of its class; default: the whole crowd)');
  process.exit(args.help ? 0 : 2);
}

class DemoError extends Error {}

function demoAccount(): { accountId: string; apiKey: string; feeRecipientAddress?: string } {
  // Another account's key (a test's, or your own against your Hush): no partner fee then, no fee recipient being known.
  if (process.env.HUSH_API_KEY) return { accountId: 'of HUSH_API_KEY', apiKey: process.env.HUSH_API_KEY };
  const path = join(DATA_DIR, 'demo-account.json');
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new DemoError(`cannot read ${path} (${(e as Error).message}); start Hush first with \`npm start\` (same DATA_DIR)`);
  }
}

const account = demoAccount();
const rpc = createSolanaRpc(RPC_URL);
const hush = createHushClient({ baseUrl: HUSH_URL, apiKey: account.apiKey });

/** The local-only faucet for SPL tokens (not part of kit's typed API). */
async function requestTokenAirdrop(owner: Address, mint: string, amount: bigint): Promise<Signature> {
  const res = await fetch(RPC_URL, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'localnet_requestTokenAirdrop', params: [owner, mint, amount.toString()] }),
  });
  const body = (await res.json()) as { result?: Signature; error?: { message: string } };
  if (!body.result) throw new DemoError(`localnet_requestTokenAirdrop: ${body.error?.message}`);
  return body.result;
}

async function confirmed(signatures: Signature[]): Promise<void> {
  for (let i = 0; i < 150; i++) {
    const { value } = await rpc.getSignatureStatuses(signatures).send();
    if (value.some((s) => s?.err)) throw new DemoError(`transaction failed: ${JSON.stringify(value.map((s) => s?.err))}`);
    if (value.every((s) => s && s.confirmationStatus !== 'processed')) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new DemoError('transactions did not confirm within 30 s');
}

/** Base units → a decimal string ("1.5"), for display only. */
function units(amount: bigint | string, decimals: number): string {
  const v = BigInt(amount);
  const s = v.toString().padStart(decimals + 1, '0');
  const frac = s.slice(s.length - decimals).replace(/0+$/, '');
  return `${s.slice(0, s.length - decimals)}${frac ? `.${frac}` : ''}`;
}

/** What the quote says about privacy, for a person: the one line a wallet would show beside the amount. */
function privacyLine(quote: Quote): string {
  const p = quote.privacy;
  if (!p.standard) return 'privacy    NOT standard: not private (its amount alone links it), delivered in seconds';
  const asked = p.requested && 'minAnonymitySet' in p.requested ? `asked to be released with at least ${p.requested.minAnonymitySet}` : 'no choice made';
  const expect = p.basis === 'no_traffic' ? 'no traffic measured yet, so no company promised' : `expected anonymity set ${p.anonymitySet} in ~${p.delaySeconds} s (measured)`;
  return `privacy    standard; ${asked}; ${expect}`;
}

async function balances(owner: Address, usdc: Token): Promise<{ sol: bigint; usdc: bigint }> {
  const { value: sol } = await rpc.getBalance(owner, { commitment: 'confirmed' }).send();
  const [ata] = await findAssociatedTokenPda({ owner, mint: usdc.mint as Address, tokenProgram: usdc.tokenProgram as Address });
  const token = await rpc
    .getTokenAccountBalance(ata, { commitment: 'confirmed' })
    .send()
    .then((r) => BigInt(r.value.amount))
    .catch(() => 0n); // no token account yet
  return { sol: BigInt(sol), usdc: token };
}

interface Placed {
  n: number;
  trackingId: string;
  sender: KeyPairSigner;
  recipient: KeyPairSigner;
}

/** Steps 1–4 of one send: fund, quote (with the user's privacy choice), order, verify + sign + submit the deposit. */
async function place(n: number, token: Token): Promise<Placed> {
  const amount = AMOUNT(token);
  const u = (x: string | bigint) => `${units(x, token.decimals)} ${token.symbol}`;
  // 1. A fresh sender, funded from the local faucet; a fresh recipient wallet.
  const sender = await generateKeyPairSigner();
  const recipient = await generateKeyPairSigner();
  const funding = [await rpc.requestAirdrop(sender.address, lamports(2_000_000_000n)).send()];
  if (!token.native) funding.push(await requestTokenAirdrop(sender.address, token.mint, 200_000_000n));
  await confirmed(funding);

  // 2. Quote, with the user's choice. A partner fee of 0.25 % goes to the demo account's registered fee recipient.
  const terms = {
    senderAddress: sender.address,
    recipientAddress: recipient.address,
    ...(account.feeRecipientAddress ? { feeBps: 25, feeRecipientAddress: account.feeRecipientAddress } : {}),
  };
  const quote = await hush.quote({ amount: amount.toString(), sourceAssetId: token.assetId, destinationAssetId: token.assetId, ...terms, privacy: { minAnonymitySet: MIN_SET } });
  if (n === 1) {
    console.log(`quote      sender pays ${u(quote.amountIn)}, recipient gets ${u(quote.amountOut)} (valid until ${quote.expiresAt})`);
    console.log(`  fees     ${u(quote.fee)} = service ${u(quote.feeBreakdown.serviceFee)} + partner ${u(quote.feeBreakdown.partnerFee)} + network ${u(quote.feeBreakdown.networkFee)}`);
    console.log(privacyLine(quote));
  }

  // 3. Order: the quote goes back unchanged; the answer carries the unsigned deposit transaction.
  const order = await hush.order(quote, terms);
  // 4. The SDK checks the transaction is exactly the deposit docs/spec.md §4 allows, the sender signs it (the only
  //    signature in the flow), it goes to the chain, and Hush gets the deposit hint.
  const { signature } = await signAndSend(hush, order, sender, { rpc, asset: token });
  console.log(`#${String(n).padStart(2)}  ${order.trackingId}  ${sender.address.slice(0, 6)}… → ${recipient.address.slice(0, 6)}…  deposit ${signature.slice(0, 8)}…`);
  return { n, trackingId: order.trackingId, sender, recipient };
}

/**
 * Step 5: follow each order from the moment it is placed until final, saying what a person watching would ask. While
 * deposits arrive: how many of the class are in and why the sends wait (each asked to go with MIN_SET). Once the class
 * is complete and released: when its payouts are due, counted down (each goes at its own moment of the release's spread,
 * so payout times do not pair with deposit times). As each completes: the set it was released with.
 */
function classWatch(token: Token, started: number) {
  const line = (s: string) => console.log(`[${((Date.now() - started) / 1000).toFixed(0).padStart(4)} s] ${s}`);
  const klass = `${units(AMOUNT(token), token.decimals)} ${token.symbol}`;
  const inClass = new Set<string>();
  /** Each released order's payout due moment (ms): its deposit's confirmation plus the hold its release gave it. */
  const due = new Map<string, number>();
  const done = new Set<string>();
  let placedCount = 0;
  let announced = false;
  const dueIn = () => Math.max(0, Math.ceil((Math.max(...due.values()) - Date.now()) / 1000));
  const onStatus = (p: Placed, s: StatusRecord) => {
    if (s.deposit?.confirmedAt && s.privacy.standard && !inClass.has(p.trackingId)) {
      inClass.add(p.trackingId);
      if (inClass.size === 1) line(`#${p.n} held: each send asked to go out with at least ${MIN_SET} of its class (${klass}), so its payout waits for the class to have ${MIN_SET}`);
      line(inClass.size < MIN_SET ? `${inClass.size} of ${MIN_SET} in the class; waiting for ${MIN_SET - inClass.size} more` : `${inClass.size} of ${MIN_SET} in the class: the set is complete, so the class is released`);
    }
    const confirmedAt = Date.parse(s.deposit?.confirmedAt ?? '');
    if (s.privacy.heldSeconds !== null && Number.isFinite(confirmedAt) && !due.has(p.trackingId)) due.set(p.trackingId, confirmedAt + s.privacy.heldSeconds * 1000);
    // Said once every member of the complete class has its due moment: a countdown from a partial view would jump.
    if (!announced && inClass.size >= MIN_SET && due.size >= inClass.size) {
      announced = true;
      line(`released together: ${due.size} payouts, each at its own moment of the release's spread (so their times do not pair them with the deposits); the last due in ~${dueIn()} s`);
    }
  };
  // While payouts are due, a countdown to the last one every 5 s.
  const ticker = setInterval(() => {
    if (announced && done.size < placedCount) line(`${done.size} of ${placedCount} completed; ${dueIn() > 0 ? `the last payout due in ~${dueIn()} s` : 'the last payouts landing'}`);
  }, 5000);
  return {
    follow(p: Placed): Promise<StatusRecord> {
      placedCount++;
      return hush
        .waitForFinal(p.trackingId, { intervalMs: 1000, signal: AbortSignal.timeout(GIVE_UP_MS), onStatus: (s) => onStatus(p, s) })
        .then((final) => {
          done.add(p.trackingId);
          const pay = final.payouts[0]?.signature ?? '—';
          // The chain's own count (releasedWith) comes once the whole release has landed; until then, the orders this
          // demo saw released with it.
          const how = final.status !== 'completed' ? final.status : `completed, released together with ${due.size}`;
          line(`#${String(p.n).padStart(2)} ${how}: held ${final.privacy.heldSeconds ?? '—'} s, payout ${pay.slice(0, 8)}…`);
          return final;
        });
    },
    stop: () => clearInterval(ticker),
  };
}

/** A completed private order's releasedWith is counted once its whole release has landed: read it until then (a minute at most). */
async function counted(s: StatusRecord): Promise<StatusRecord> {
  for (let i = 0; s.status === 'completed' && s.privacy.standard && s.privacy.releasedWith === null && i < 60; i++) {
    await new Promise((r) => setTimeout(r, 1000));
    const res = await hush.status(s.trackingId);
    if (!res.notModified) s = res.order;
  }
  return s;
}

/**
 * Step 7: the signed disclosure receipt a user hands a bank or an auditor, checked as they would check it: against the
 * receipt keys this Hush publishes (docs/spec.md §12), every check named.
 */
async function showReceipt(p: Placed, token: Token): Promise<void> {
  const receipt = await hush.receipt(p.trackingId);
  const report = await checkReceipt(receipt, (await hush.receiptKeys()).map((k) => k.keyId));
  const d = receipt.document;
  const u = (x: string) => `${units(x, token.decimals)} ${token.symbol}`;
  console.log(`\n== the disclosure receipt of #${p.n}, as its sender would hand it on ==`);
  console.log(`states     ${d.trackingId} ${d.status}: ${u(d.amountIn)} from ${d.sender.slice(0, 6)}… (deposit ${d.deposit?.signature.slice(0, 8)}…), ${u(d.amountOut)} to ${d.recipient.slice(0, 6)}… (payout ${d.payouts[0]?.signature.slice(0, 8)}…)${d.releasedWith ? `, released with ${d.releasedWith}` : ''}`);
  for (const c of report.checks) console.log(`  ${c.outcome === 'passed' ? 'ok  ' : 'FAIL'}     ${c.title}`);
  if (!report.valid) throw new DemoError(`the receipt of ${d.trackingId} does not verify: ${report.failed}`);
  console.log(`verified   signed by receipt key ${report.keyId?.slice(0, 8)}…, published at GET /transfer/v1/receipt-keys (or drop it on ${HUSH_URL}/receipt-check)`);
}

try {
  const tokens = await hush.tokens();
  const token = tokens.find((t) => t.assetId === args.asset);
  const usdc = tokens.find((t) => t.assetId === 'usdc');
  const sol = tokens.find((t) => t.assetId === 'sol');
  if (!token || !usdc || !sol) throw new DemoError('this Hush does not offer both SOL and USDC');
  console.log(`Hush demo: API ${HUSH_URL}, chain ${RPC_URL}, partner ${account.accountId}`);
  console.log(`\n== a crowd of ${CROWD} private sends of ${units(AMOUNT(token), token.decimals)} ${token.symbol}, each asking for a set of at least ${MIN_SET} ==`);
  const started = Date.now();
  const watch = classWatch(token, started);
  const placed: Placed[] = [];
  const following: Promise<StatusRecord>[] = [];
  try {
    for (let i = 0; i < CROWD; i += PLACE_AT_ONCE) {
      const batch = await Promise.all(Array.from({ length: Math.min(PLACE_AT_ONCE, CROWD - i) }, (_, j) => place(i + j + 1, token)));
      placed.push(...batch);
      following.push(...batch.map((p) => watch.follow(p)));
    }
    // Every order is followed from its placing; their releasedWith, the chain's count, comes once the release has landed.
    await Promise.all(following);
  } finally {
    watch.stop();
  }
  const finals = await Promise.all((await Promise.all(following)).map(counted));

  // 6. Where the money is now, for the first of the crowd.
  const first = placed[0]!;
  const [s, r] = await Promise.all([balances(first.sender.address, usdc), balances(first.recipient.address, usdc)]);
  console.log(`\nbalances (#1) ${'SOL'.padStart(14)} ${'USDC'.padStart(12)}`);
  console.log(`  sender      ${units(s.sol, sol.decimals).padStart(14)} ${units(s.usdc, usdc.decimals).padStart(12)}`);
  console.log(`  recipient   ${units(r.sol, sol.decimals).padStart(14)} ${units(r.usdc, usdc.decimals).padStart(12)}`);
  const sets = [...new Set(finals.map((f) => f.privacy.releasedWith ?? 'not counted yet'))].join(', ');
  console.log(`\n${finals.filter((f) => f.status === 'completed').length} of ${finals.length} completed in ${((Date.now() - started) / 1000).toFixed(0)} s; the chain counts each released with ${sets} (privacy.releasedWith)`);
  const failed = finals.filter((f) => f.status !== 'completed');
  if (failed.length > 0) throw new DemoError(`order ${failed.map((f) => `${f.trackingId} ended ${f.status}`).join(', ')}`);
  await showReceipt(first, token);
} catch (e) {
  const known = e instanceof DemoError || e instanceof HushApiError || e instanceof HushTransportError;
  console.error(`demo: ${known ? (e as Error).message : (e as Error).stack}`);
  process.exit(1);
}
