import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  getBase64Encoder,
  getCompiledTransactionMessageDecoder,
  getSignatureFromTransaction,
  getTransactionDecoder,
  type SignatureBytes,
  verifySignature,
} from '@solana/kit';
import { loadAssets } from '../../src/config/assets.ts';
import { parsePrice } from '../../src/domain/price.ts';
import { convertForSwap } from '../../src/domain/swap-conversion.ts';
import { JUPITER_AGGREGATOR_V6, JupiterSwapRebalancer, decodeAndCheckSwapTransaction } from '../../src/rebalance/jupiter-swap.ts';
import { RebalanceError, type RebalanceRequest } from '../../src/rebalance/rebalancer.ts';
import { FIXTURE_SEED, OTHER_SEED, RECORDED_AMOUNT_IN, buildSwapFixtures, signerFromSeed } from '../fixtures/jupiter-swap/generate.ts';
import { type Recorded, fixture, recordedFetch } from '../fixtures/recorded-fetch.ts';

const BASE = 'https://jup.example.test';
const MINTS = new Map(loadAssets().list.map((a) => [a.assetId, a.mint]));
const SOL = { price: parsePrice('150'), decimals: 9 };
const USDC = { price: parsePrice('1'), decimals: 6 };
/** The plan the recordings answer: 10 lots of $1000 of SOL into USDC, 1 % worst case. */
const PLAN: RebalanceRequest = { fromAssetId: 'sol', toAssetId: 'usdc', amountIn: BigInt(RECORDED_AMOUNT_IN), minAmountOut: convertForSwap(BigInt(RECORDED_AMOUNT_IN), SOL, USDC, 100) };

function jupiter(quoteFile: string, swapFile: string, quoteStatus = 200) {
  return recordedFetch((call) => {
    const url = new URL(call.url);
    if (call.method === 'GET' && url.origin === BASE && url.pathname === '/swap/v1/quote') return { status: quoteStatus, body: fixture(`jupiter-swap/${quoteFile}`) } satisfies Recorded;
    if (call.method === 'POST' && call.url === `${BASE}/swap/v1/swap`) return { body: fixture(`jupiter-swap/${swapFile}`) };
    return null;
  });
}

async function rebalancerWith(quoteFile: string, swapFile: string, quoteStatus = 200) {
  const signer = await signerFromSeed(FIXTURE_SEED);
  const f = jupiter(quoteFile, swapFile, quoteStatus);
  const sent: string[] = [];
  const stored: string[] = [];
  const r = new JupiterSwapRebalancer({
    baseUrl: BASE,
    apiKey: 'jup-key',
    fetch: f,
    mints: MINTS,
    signer,
    slippageBps: 100,
    beforeSend: async ({ signature }) => void stored.push(signature),
    sendTransaction: async (wire) => {
      sent.push(wire);
      return getSignatureFromTransaction(getTransactionDecoder().decode(getBase64Encoder().encode(wire)));
    },
  });
  return { r, f, sent, stored, signer };
}

async function rejectsWith(p: Promise<unknown>, code: string) {
  await assert.rejects(p, (e) => {
    assert.ok(e instanceof RebalanceError, String(e));
    assert.equal(e.code, code, e.message);
    return true;
  });
}

describe('Jupiter Swap v1 rebalancer (recorded answers)', () => {
  it('the checked-in recordings are exactly what the generator builds (honest fixtures)', async () => {
    const built = await buildSwapFixtures();
    for (const [name, text] of Object.entries(built)) assert.equal(fixture(`jupiter-swap/${name}`), text, name);
  });

  it('quotes, builds, decodes, signs with the pool key and submits through the injected RPC', async () => {
    const { r, f, sent, stored, signer } = await rebalancerWith('quote-sol-usdc.json', 'swap-sol-usdc.json');
    const result = await r.rebalance(PLAN);
    // 1. the quote request
    const quoteUrl = new URL(f.calls[0]!.url);
    assert.equal(quoteUrl.searchParams.get('inputMint'), MINTS.get('sol'));
    assert.equal(quoteUrl.searchParams.get('outputMint'), MINTS.get('usdc'));
    assert.equal(quoteUrl.searchParams.get('amount'), RECORDED_AMOUNT_IN);
    assert.equal(quoteUrl.searchParams.get('slippageBps'), '100');
    assert.equal(f.calls[0]!.headers['x-api-key'], 'jup-key');
    // 2. the swap request carries the quote untouched and our wallet
    const body = JSON.parse(f.calls[1]!.body!);
    assert.deepEqual(body.quoteResponse, JSON.parse(fixture('jupiter-swap/quote-sol-usdc.json')));
    assert.equal(body.userPublicKey, signer.address);
    // 3./4. one transaction sent, signed by our key over the exact message Jupiter returned
    assert.equal(sent.length, 1);
    const tx = getTransactionDecoder().decode(getBase64Encoder().encode(sent[0]!));
    const original = getTransactionDecoder().decode(getBase64Encoder().encode(JSON.parse(fixture('jupiter-swap/swap-sol-usdc.json')).swapTransaction));
    assert.deepEqual(tx.messageBytes, original.messageBytes);
    const sig = tx.signatures[signer.address] as SignatureBytes;
    assert.ok(sig && sig.some((b) => b !== 0));
    assert.ok(await verifySignature(signer.keyPair.publicKey, sig, tx.messageBytes));
    assert.equal(result.signature, getSignatureFromTransaction(tx));
    assert.deepEqual(stored, [result.signature], 'the signature is handed over before sending');
    assert.equal(result.amountIn, BigInt(RECORDED_AMOUNT_IN));
    assert.equal(result.amountOut, 10_004_567_890n);
    assert.ok(result.amountOut >= PLAN.minAmountOut);
  });

  it('the recorded transaction is a real v0 transaction invoking Jupiter, paid by the pool key', async () => {
    const signer = await signerFromSeed(FIXTURE_SEED);
    const b64 = JSON.parse(fixture('jupiter-swap/swap-sol-usdc.json')).swapTransaction as string;
    const tx = decodeAndCheckSwapTransaction(b64, signer.address);
    const msg = getCompiledTransactionMessageDecoder().decode(tx.messageBytes);
    assert.equal(msg.version, 0);
    assert.equal(msg.staticAccounts[0], signer.address);
    assert.ok(msg.staticAccounts.includes(JUPITER_AGGREGATOR_V6 as (typeof msg.staticAccounts)[number]));
    assert.equal(tx.signatures[signer.address], null, 'Jupiter returns it unsigned');
  });

  it('refuses a quote whose worst case is below the plan minimum: nothing is signed or sent', async () => {
    const { r, f, sent } = await rebalancerWith('quote-too-low.json', 'swap-sol-usdc.json');
    await rejectsWith(r.rebalance(PLAN), 'JUPITER_QUOTE_TOO_LOW');
    assert.equal(f.calls.length, 1, 'no swap request after a refused quote');
    assert.equal(sent.length, 0);
  });

  it('a quote for another amount is refused', async () => {
    const { r, sent } = await rebalancerWith('quote-sol-usdc.json', 'swap-sol-usdc.json');
    await rejectsWith(r.rebalance({ ...PLAN, amountIn: PLAN.amountIn + 1n }), 'JUPITER_QUOTE_MISMATCH');
    assert.equal(sent.length, 0);
  });

  it('surfaces Jupiter’s errorCode when it finds no route (HTTP 400)', async () => {
    const { r, sent } = await rebalancerWith('quote-no-route.json', 'swap-sol-usdc.json', 400);
    await rejectsWith(r.rebalance(PLAN), 'COULD_NOT_FIND_ANY_ROUTE');
    assert.equal(sent.length, 0);
  });

  for (const [file, code] of [
    ['swap-foreign-payer.json', 'JUPITER_UNSAFE_TX'],
    ['swap-stranger-program.json', 'JUPITER_UNSAFE_TX'],
    ['swap-simulation-error.json', 'JUPITER_SIMULATION_ERROR'],
    ['swap-garbage.json', 'JUPITER_MALFORMED'],
  ] as const) {
    it(`refuses to sign ${file}`, async () => {
      const { r, sent } = await rebalancerWith('quote-sol-usdc.json', file);
      await rejectsWith(r.rebalance(PLAN), code);
      assert.equal(sent.length, 0);
    });
  }

  it('a transaction paid by someone else is refused even though it decodes', async () => {
    const other = await signerFromSeed(OTHER_SEED);
    const b64 = JSON.parse(fixture('jupiter-swap/swap-foreign-payer.json')).swapTransaction as string;
    decodeAndCheckSwapTransaction(b64, other.address); // fine for its own payer
    const ours = await signerFromSeed(FIXTURE_SEED);
    assert.throws(() => decodeAndCheckSwapTransaction(b64, ours.address), /not paid by our signer/);
  });

  it('an RPC that returns a different signature is caught', async () => {
    const signer = await signerFromSeed(FIXTURE_SEED);
    const r = new JupiterSwapRebalancer({ baseUrl: BASE, fetch: jupiter('quote-sol-usdc.json', 'swap-sol-usdc.json'), mints: MINTS, signer, sendTransaction: async () => '1111111111111111111111111111111111111111111111111111111111111111' });
    await rejectsWith(r.rebalance(PLAN), 'SEND_MISMATCH');
  });

  it('a send failure names the signature that may still land', async () => {
    const signer = await signerFromSeed(FIXTURE_SEED);
    const r = new JupiterSwapRebalancer({
      baseUrl: BASE,
      fetch: jupiter('quote-sol-usdc.json', 'swap-sol-usdc.json'),
      mints: MINTS,
      signer,
      sendTransaction: async () => {
        throw new Error('connection reset');
      },
    });
    await assert.rejects(r.rebalance(PLAN), (e) => e instanceof RebalanceError && e.code === 'SEND_FAILED' && /[1-9A-HJ-NP-Za-km-z]{64,88}/.test(e.message));
  });
});
