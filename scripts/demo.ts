/**
 * npm run demo [-- --asset sol|usdc|both]
 *
 * A partner integration end to end against a running `npm start`, written with the partner SDK
 * (packages/sdk): fund a fresh sender from the local faucet, quote (fees printed), order, verify the
 * returned deposit transaction and sign it with @solana/kit, submit it, poll the status every 3 s (as the
 * interface's example loop does) printing each new state, then print the sender's and recipient's SOL and
 * USDC balances.
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
import { createHushClient, HushApiError, HushTransportError, signAndSend, statusDetail, type Token } from '../packages/sdk/src/index.ts';

const HUSH_URL = (process.env.HUSH_URL ?? 'http://127.0.0.1:8787').replace(/\/$/, '');
const RPC_URL = process.env.SOLANA_RPC_URL ?? 'http://127.0.0.1:8899';
const DATA_DIR = process.env.DATA_DIR ?? './data';
const GIVE_UP_MS = 10 * 60_000;

const { values: args } = parseArgs({ options: { asset: { type: 'string', default: 'both' }, help: { type: 'boolean', short: 'h' } } });
if (args.help || !['sol', 'usdc', 'both'].includes(args.asset!)) {
  console.log('usage: npm run demo [-- --asset sol|usdc|both]   (default both: one SOL send, then one USDC send)');
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

async function send(token: Token, usdc: Token, sol: Token): Promise<void> {
  const amount = token.native ? 500_000_000n : 25_000_000n; // 0.5 SOL or 25 USDC
  console.log(`\n== private send: ${units(amount, token.decimals)} ${token.symbol} ==`);

  // 1. A fresh sender, funded from the local faucet; a fresh recipient wallet.
  const sender: KeyPairSigner = await generateKeyPairSigner();
  const recipient: KeyPairSigner = await generateKeyPairSigner();
  const funding = [await rpc.requestAirdrop(sender.address, lamports(2_000_000_000n)).send()];
  if (!token.native) funding.push(await requestTokenAirdrop(sender.address, token.mint, 100_000_000n));
  await confirmed(funding);
  console.log(`sender     ${sender.address}  funded with 2 SOL${token.native ? '' : ' + 100 USDC'} from the faucet`);
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

  // 3. Order: the quote goes back unchanged; the answer carries the unsigned deposit transaction.
  const order = await hush.order(quote, terms);
  console.log(`order      ${order.trackingId}  (deposit transaction valid until slot ${order.blockhashExpiresAtSlot})`);

  // 4. The SDK checks the transaction is exactly the deposit docs/spec.md §4 allows, the sender signs it (the only
  //    signature in the flow), it goes to the chain, and Hush gets the deposit hint.
  const { signature } = await signAndSend(hush, order, sender, { rpc, asset: token });
  console.log(`deposit    verified, signed, submitted ${signature}`);

  // 5. Poll until final (every 3 s, as the interface's example loop does), printing each new state.
  const started = Date.now();
  const status = await hush.waitForFinal(order.trackingId, {
    signal: AbortSignal.timeout(GIVE_UP_MS),
    onStatus: (s) => {
      const detail = statusDetail(s);
      console.log(`  [${((Date.now() - started) / 1000).toFixed(0).padStart(3)} s] ${s.status}${detail ? `  ${detail}` : ''}`);
    },
  });

  // 6. Where the money is now.
  const [s, r] = await Promise.all([balances(sender.address, usdc), balances(recipient.address, usdc)]);
  console.log(`balances   ${'SOL'.padStart(14)} ${'USDC'.padStart(12)}`);
  console.log(`  sender   ${units(s.sol, sol.decimals).padStart(14)} ${units(s.usdc, usdc.decimals).padStart(12)}`);
  console.log(`  recipient${units(r.sol, sol.decimals).padStart(14)} ${units(r.usdc, usdc.decimals).padStart(12)}`);
  if (status.status !== 'completed') throw new DemoError(`order ended ${status.status}`);
}

try {
  const tokens = await hush.tokens();
  const sol = tokens.find((t) => t.assetId === 'sol');
  const usdc = tokens.find((t) => t.assetId === 'usdc');
  if (!sol || !usdc) throw new DemoError('this Hush does not offer both SOL and USDC');
  console.log(`Hush demo: API ${HUSH_URL}, chain ${RPC_URL}, partner ${account.accountId}`);
  if (args.asset !== 'usdc') await send(sol, usdc, sol);
  if (args.asset !== 'sol') await send(usdc, usdc, sol);
} catch (e) {
  const known = e instanceof DemoError || e instanceof HushApiError || e instanceof HushTransportError;
  console.error(`demo: ${known ? (e as Error).message : (e as Error).stack}`);
  process.exit(1);
}
