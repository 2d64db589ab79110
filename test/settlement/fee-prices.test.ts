/**
 * The fee port (src/settlement/fee-prices.ts): each purpose's price from the fee market's last answer and Hush's
 * own landings, read synchronously by a signing; the market asked only when something is signed, at most once a
 * second, waited for only after an idle spell; a re-sign after expiry escalated up to the cap; static pricing.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { generateKeyPairSigner } from '@solana/kit';
import bs58 from 'bs58';
import { randomBytes } from 'node:crypto';
import { loadConfig } from '../../src/config/config.ts';
import { buildPayout } from '../../src/chain/hush-transactions.ts';
import { LEVEL_RULES, type MarketFees } from '../../src/domain/fee-estimate.ts';
import { FeePrices, IDLE_READ_MS } from '../../src/settlement/fee-prices.ts';
import { ManualClock } from '../support/manual-clock.ts';

const SLOT_MS = 400;
const config = loadConfig({ HUSH_FEE_CAP_LAMPORTS: 'payout=20000' });

function prices(opts: { fee?: bigint; static?: boolean; down?: boolean } = {}) {
  const clock = new ManualClock(1_000_000);
  const asked: string[][] = [];
  let fee = opts.fee ?? 40_000n;
  const market = {
    async recentFees(accounts: readonly string[]): Promise<MarketFees> {
      asked.push([...accounts]);
      if (opts.down) throw new Error('unreachable');
      const tip = BigInt(Math.floor(clock.now() / SLOT_MS));
      return { slots: Array.from({ length: 20 }, (_, i) => ({ slot: tip - BigInt(i), fee })), percentileBps: 300 };
    },
  };
  const p = new FeePrices({
    market: opts.static ? null : market,
    accounts: () => ['feepayer', 'pool'],
    knownSlot: () => ({ slot: BigInt(Math.floor(clock.now() / SLOT_MS)), at: clock.now() }),
    slotMs: SLOT_MS,
    clock,
    settings: { ...config, feePricing: opts.static ? 'static' : 'market' },
    log: () => {},
  });
  return { p, clock, asked, setFee: (f: bigint) => (fee = f) };
}

async function payoutAt(price: bigint) {
  const feePayer = await generateKeyPairSigner();
  const pool = await generateKeyPairSigner();
  const shape = { feePayer, computeUnitLimit: 100_000, computeUnitPriceMicroLamports: price, blockhash: { blockhash: bs58.encode(randomBytes(32)), lastValidBlockHeight: 9n }, signing: 'event-loop' as const };
  return buildPayout(shape, { asset: config.assets.get('sol')!, sources: [{ pool, poolHolding: pool.address, amount: 1n }], recipient: (await generateKeyPairSigner()).address });
}

describe('the fee port', () => {
  test('an idle port asks nothing; a signing asks once, with the accounts Hush writes, and not again within the slot', async () => {
    const { p, clock, asked } = prices();
    clock.advance(60_000);
    assert.equal(asked.length, 0, 'no call while nothing is signed');
    await p.ready();
    assert.deepEqual(asked, [['feepayer', 'pool']]);
    for (let i = 0; i < 3; i++) (p.warm(), clock.advance(120));
    await p.ready();
    assert.equal(asked.length, 1, 'within a slot of the last answer: no call');
    clock.advance(400);
    p.warm();
    await p.ready();
    assert.equal(asked.length, 2, 'a slot later, while signing: one more');
  });

  test('an idle worker reads the market once per 30 s, for the quote grid; none while signing reads it anyway', async () => {
    const { p, clock, asked } = prices({ fee: 40_000n });
    const readings: bigint[] = [];
    p.onFastReading = (price) => readings.push(price);
    // The worker's loop checks twice per period (runner.ts): an idle hour costs one call per IDLE_READ_MS.
    for (let t = 0; t < 3_600_000; t += IDLE_READ_MS / 2) {
      await p.readIdle();
      clock.advance(IDLE_READ_MS / 2);
    }
    assert.equal(asked.length, 3_600_000 / IDLE_READ_MS, 'one getRecentPrioritizationFees per 30 s idle');
    assert.equal(readings.length, asked.length, 'each answer goes to the grid');
    assert.equal(readings.at(-1), 40_000n);
    // A signing just read the market: the idle reading asks nothing until IDLE_READ_MS after it.
    p.warm();
    await p.ready();
    const signed = asked.length;
    for (let t = 0; t < IDLE_READ_MS - 1_000; t += 1_000) {
      await p.readIdle();
      clock.advance(1_000);
    }
    assert.equal(asked.length, signed, 'no idle call within 30 s of a signing (which reads the market once a slot anyway)');
    clock.advance(1_000);
    await p.readIdle();
    assert.equal(asked.length, signed + 1, 'then one');
    const idle = prices({ static: true });
    await idle.p.readIdle();
    assert.equal(idle.asked.length, 0, 'static pricing reads nothing');
  });

  test('each purpose at its level; the market above a level floor sets it, a calm one leaves the floor', async () => {
    const busy = prices({ fee: 40_000n });
    await busy.p.ready();
    assert.equal(busy.p.price('payout').microLamportsPerCu, 40_000n);
    assert.equal(busy.p.price('payout').basis, 'market');
    const calm = prices({ fee: 0n });
    await calm.p.ready();
    assert.equal(calm.p.price('payout').microLamportsPerCu, LEVEL_RULES.fast.floor);
    assert.equal(calm.p.price('sweep').microLamportsPerCu, LEVEL_RULES.cheap.floor);
    assert.equal(calm.p.price('partnerPayout').microLamportsPerCu, LEVEL_RULES.medium.floor);
  });

  test('a signing after an idle spell waits for a fresh answer; a recent one does not', async () => {
    const { p, clock, setFee } = prices({ fee: 10_000n });
    await p.ready();
    setFee(30_000n);
    clock.advance(SLOT_MS * 31);
    await p.ready();
    assert.equal(p.price('payout').microLamportsPerCu, 30_000n, 'stale: waited for the market');
    setFee(50_000n);
    clock.advance(1_000);
    await p.ready();
    // The call went out but was not waited for: the synchronous read still has the last answer until it lands.
    assert.ok([30_000n, 50_000n].includes(p.price('payout').microLamportsPerCu));
  });

  test('a re-sign after expiry offers 1.5× the expired price, up to the cap (then capped)', async () => {
    const { p } = prices({ fee: 40_000n });
    await p.ready();
    assert.equal(p.price('payout', 40_000n).microLamportsPerCu, 60_000n);
    assert.equal(p.price('payout', 40_000n).basis, 'escalated');
    // Cap 20,000 lamports at 100,000 CU less 10,000 base: 100,000 micro-lamports per CU at most.
    const capped = p.price('payout', 90_000n);
    assert.equal(capped.microLamportsPerCu, 100_000n);
    assert.equal(capped.capped, true);
  });

  test('an expired attempt escalates the next signing of its purpose until one of them lands', async () => {
    const { p, clock } = prices({ fee: 40_000n });
    await p.ready();
    const dead = await payoutAt(50_000n);
    p.expired(dead, 'payout');
    assert.equal(p.price('payout').microLamportsPerCu, 75_000n, 'the next payout escalates from the expired one');
    assert.equal(p.price('refund').microLamportsPerCu, 40_000n, 'another purpose does not');
    const ok = await payoutAt(75_000n);
    p.sent([ok.signature]);
    clock.advance(SLOT_MS * 3);
    p.landed(ok, 'payout', BigInt(Math.floor(clock.now() / SLOT_MS)));
    assert.equal(p.price('payout').microLamportsPerCu, 40_000n, 'landed: the market again');
  });

  test('slow landings sent once lift a floor over the market; the same waits after a rebroadcast do not', async () => {
    for (const rebroadcast of [false, true]) {
      const { p, clock } = prices({ fee: 40_000n });
      await p.ready();
      for (let i = 0; i < 3; i++) {
        const t = await payoutAt(40_000n);
        p.sent([t.signature]);
        if (rebroadcast) p.resent(t.signature);
        clock.advance(SLOT_MS * 4);
        p.landed(t, 'payout', BigInt(Math.floor(clock.now() / SLOT_MS)));
      }
      await p.ready();
      const answer = p.price('payout');
      if (rebroadcast) assert.deepEqual([answer.microLamportsPerCu, answer.basis], [40_000n, 'market'], 'a lost send’s wait, not the market’s');
      else assert.deepEqual([answer.microLamportsPerCu, answer.basis], [50_000n, 'own'], 'the market ran above what the endpoint says');
    }
  });

  test('with the market unreadable, Hush prices from its own prompt landings, else the configured price', async () => {
    const { p, clock } = prices({ down: true });
    await p.ready();
    assert.equal(p.price('payout').microLamportsPerCu, config.computeUnitPriceMicroLamports, 'nothing known: the static price');
    for (let i = 0; i < 3; i++) {
      const t = await payoutAt(7_000n);
      p.sent([t.signature]);
      clock.advance(SLOT_MS);
      p.landed(t, 'payout', BigInt(Math.floor(clock.now() / SLOT_MS)));
    }
    assert.equal(p.price('payout').microLamportsPerCu, 7_000n);
    assert.equal(p.price('payout').basis, 'own');
  });

  test('a market that failed to answer holds no signing up: the next ones sign at once while a call hangs', async () => {
    const { p, clock } = prices({ down: true });
    await p.ready();
    const hanging = { recentFees: () => new Promise<MarketFees>(() => {}) };
    (p as unknown as { port: { market: typeof hanging } }).port.market = hanging;
    clock.advance(1_000);
    const outcome = await Promise.race([p.ready().then(() => 'signed'), new Promise((ok) => setImmediate(() => ok('held up')))]);
    assert.equal(outcome, 'signed');
  });

  test('static pricing: the configured price for every purpose, no call, no escalation', async () => {
    const { p, asked } = prices({ static: true });
    await p.ready();
    assert.equal(asked.length, 0);
    for (const purpose of ['payout', 'sweep', 'refund'] as const) assert.equal(p.price(purpose, 5_000n).microLamportsPerCu, config.computeUnitPriceMicroLamports);
  });
});
