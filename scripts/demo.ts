/**
 * npm run demo [-- --asset sol|usdc|both]
 *
 * A partner integration end to end against a running `npm start`, written with the partner SDK
 * (packages/sdk): fund a fresh sender from the local faucet, quote a private amount (1 SOL, 100 USDC:
 * standard amounts of the default menu; fees and the quote's privacy printed), order, verify the returned
 * deposit transaction and sign it with @solana/kit, submit it, poll the status every 3 s printing each new
 * state (and, while a payout is held for its class, a line a minute), then print the balances.
 *
 * A private payout waits for its class: with the defaults on a fresh store, the full hold (about 14 min,
 * HUSH_PRIVACY_MAX_DELAY_S). With `both`, the two sends are placed one after the other and waited for
 * together, so the demo takes one hold, not two.
 *
 *   HUSH_URL        default http://127.0.0.1:8787
 *   SOLANA_RPC_URL  default http://127.0.0.1:8899 (the embedded chain; its faucet funds the sender)
 *   DATA_DIR        default ./data — the API key comes from $DATA_DIR/demo-account.json
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createSolanaRpc, generateKeyPairSigner, lamports, type Address, type KeyPairSigner, type Signature } from '@solana/kit';
import { findAssociatedTokenPda } from '@solana-program/token';
import { createHushClient, HushApiError, HushTransportError, signAndSend, statusDetail, type Quote, type StatusRecord, type Token } from '../packages/sdk/src/index.ts';

const HUSH_URL = (process.env.HUSH_URL ?? 'http://127.0.0.1:8787').replace(/\/$/, '');
const RPC_URL = process.env.SOLANA_RPC_URL ?? 'http://127.0.0.1:8899';
const DATA_DIR = process.env.DATA_DIR ?? './data';
/** Past the default hold (840 s) with room for a slow machine. */
const GIVE_UP_MS = 20 * 60_000;
const HELD_LINE_EVERY_MS = 60_000;

const { values: args } = parseArgs({ options: { asset: { type: 'string', default: 'both' }, help: { type: 'boolean', short: 'h' } } });
if (args.help || !['sol', 'usdc', 'both'].includes(args.asset!)) {
  console.log('usage: npm run demo [-- --asset sol|usdc|both]   (default both: a 1 SOL send and a 100 USDC send, waited for together)');
  process.exit(args.help ? 0 : 2);
}

class DemoError extends Error {}

function demoAccount(): { accountId: string; apiKey: string; feeRecipientAddress?: string } {
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
function privacyLine(quote: Quote, token: Token): string {
  const p = quote.privacy;
  const nearby = p.suggestedAmounts.map((a) => units(a, token.decimals)).join(', ');
  const what = p.standard
    ? `standard: a private amount, expected anonymity set ${p.anonymitySet}, expected release in ~${p.delaySeconds} s`
    : 'NOT standard: not private (its amount alone links it), delivered in seconds';
  return `privacy    ${what}; private amounts nearby: ${nearby} ${token.symbol}`;
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
  token: Token;
  trackingId: string;
  sender: KeyPairSigner;
  recipient: KeyPairSigner;
}

/** Steps 1–4 of one send: fund, quote, order, verify + sign + submit the deposit. */
async function place(token: Token): Promise<Placed> {
  const amount = token.native ? 1_000_000_000n : 100_000_000n; // 1 SOL or 100 USDC: standard amounts of the default menu
  console.log(`\n== private send: ${units(amount, token.decimals)} ${token.symbol} ==`);

  // 1. A fresh sender, funded from the local faucet; a fresh recipient wallet.
  const sender = await generateKeyPairSigner();
  const recipient = await generateKeyPairSigner();
  const funding = [await rpc.requestAirdrop(sender.address, lamports(2_000_000_000n)).send()];
  if (!token.native) funding.push(await requestTokenAirdrop(sender.address, token.mint, 200_000_000n));
  await confirmed(funding);
  console.log(`sender     ${sender.address}  funded with 2 SOL${token.native ? '' : ' + 200 USDC'} from the faucet`);
  console.log(`recipient  ${recipient.address}  (a fresh wallet)`);

  // 2. Quote. A partner fee of 0.25 % goes to the demo account's registered fee recipient.
  const terms = {
    senderAddress: sender.address,
    recipientAddress: recipient.address,
    ...(account.feeRecipientAddress ? { feeBps: 25, feeRecipientAddress: account.feeRecipientAddress } : {}),
  };
  const quote = await hush.quote({ amount: amount.toString(), sourceAssetId: token.assetId, destinationAssetId: token.assetId, ...terms });
  const u = (x: string) => `${units(x, token.decimals)} ${token.symbol}`;
  console.log(`quote      sender pays ${u(quote.amountIn)}, recipient gets ${u(quote.amountOut)}, ETA ~${quote.duration} s (valid until ${quote.expiresAt})`);
  console.log(
    `  fees     ${u(quote.fee)} = service ${u(quote.feeBreakdown.serviceFee)} + partner ${u(quote.feeBreakdown.partnerFee)} + network ${u(quote.feeBreakdown.networkFee)}`,
  );
  console.log(privacyLine(quote, token));

  // 3. Order: the quote goes back unchanged; the answer carries the unsigned deposit transaction.
  const order = await hush.order(quote, terms);
  console.log(`order      ${order.trackingId}  (deposit transaction valid until slot ${order.blockhashExpiresAtSlot})`);

  // 4. The SDK checks the transaction is exactly the deposit docs/spec.md §4 allows, the sender signs it (the only
  //    signature in the flow), it goes to the chain, and Hush gets the deposit hint.
  const { signature } = await signAndSend(hush, order, sender, { rpc, asset: token });
  console.log(`deposit    verified, signed, submitted ${signature}`);
  return { token, trackingId: order.trackingId, sender, recipient };
}

/** Step 5: poll until final (every 3 s), printing each new state and, while held, a line a minute. */
async function follow(p: Placed, started: number): Promise<StatusRecord> {
  const line = (what: string) => console.log(`  [${((Date.now() - started) / 1000).toFixed(0).padStart(4)} s] ${p.token.symbol.padEnd(4)} ${what}`);
  let lastLineMs = 0;
  return hush.waitForFinal(p.trackingId, {
    signal: AbortSignal.timeout(GIVE_UP_MS),
    onStatus: (s) => {
      const detail = statusDetail(s);
      line(`${s.status}${detail ? `  ${detail}` : ''}`);
    },
    // Every answered poll, unchanged ones too: the countdown while held needs no requests of its own.
    onProgress: ({ changed, held, order, elapsedMs }) => {
      if (changed || !held) lastLineMs = elapsedMs;
      else if (elapsedMs - lastLineMs >= HELD_LINE_EVERY_MS) {
        lastLineMs = elapsedMs;
        line(`${order.status}  ${statusDetail(order)}`);
      }
    },
  });
}

try {
  const tokens = await hush.tokens();
  const sol = tokens.find((t) => t.assetId === 'sol');
  const usdc = tokens.find((t) => t.assetId === 'usdc');
  if (!sol || !usdc) throw new DemoError('this Hush does not offer both SOL and USDC');
  console.log(`Hush demo: API ${HUSH_URL}, chain ${RPC_URL}, partner ${account.accountId}`);
  const legs = args.asset === 'both' ? [sol, usdc] : args.asset === 'sol' ? [sol] : [usdc];
  const placed: Placed[] = [];
  for (const token of legs) placed.push(await place(token));

  console.log(`\n== waiting for ${placed.map((p) => p.trackingId).join(' and ')} ==`);
  const started = Date.now();
  const finals = await Promise.all(placed.map((p) => follow(p, started)));

  // 6. Where the money is now.
  for (const p of placed) {
    const [s, r] = await Promise.all([balances(p.sender.address, usdc), balances(p.recipient.address, usdc)]);
    console.log(`\nbalances (${p.token.symbol} send) ${'SOL'.padStart(14)} ${'USDC'.padStart(12)}`);
    console.log(`  sender             ${units(s.sol, sol.decimals).padStart(14)} ${units(s.usdc, usdc.decimals).padStart(12)}`);
    console.log(`  recipient          ${units(r.sol, sol.decimals).padStart(14)} ${units(r.usdc, usdc.decimals).padStart(12)}`);
  }
  const failed = finals.filter((f) => f.status !== 'completed');
  if (failed.length > 0) throw new DemoError(`order ${failed.map((f) => `${f.trackingId} ended ${f.status}`).join(', ')}`);
} catch (e) {
  const known = e instanceof DemoError || e instanceof HushApiError || e instanceof HushTransportError;
  console.error(`demo: ${known ? (e as Error).message : (e as Error).stack}`);
  process.exit(1);
}
