/**
 * Key custody (docs/spec.md §10): deposit identities a worker derived into the store, claimed by APIs.
 * Two pools (two API processes) taking at once never get the same identity; each identity is the seed's
 * for its trackingId; an empty pool refuses with 503 SERVICE_UNAVAILABLE and Retry-After 1, never by
 * deriving one; publishing the treasury's wallets is compare-and-set, and another seed's set drops the
 * identities derived from the old one.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { it } from 'node:test';
import type { Address } from '@solana/kit';
import { loadAssets } from '../../src/config/assets.ts';
import { HushError } from '../../src/domain/errors.ts';
import { DepositIdentityPool } from '../../src/services/deposit-identity-pool.ts';
import { claimDepositIdentities, countDepositIdentities, depositIdentitySpans, insertDepositIdentities } from '../../src/store/deposit-identities-store.ts';
import { publishDepositRecordKey, publishTreasuryWallets, readRetiredWallets, readTreasuryWallets } from '../../src/store/treasury-wallets-store.ts';
import { DepositIdentityMint } from '../../src/treasury/deposit-identity-mint.ts';
import { Treasury } from '../../src/treasury/treasury.ts';
import { TreasuryKeys } from '../../src/treasury/treasury-keys.ts';
import { publishedWalletsOf, PublishedTreasuryWallets, WalletsNotPublishedError } from '../../src/treasury/treasury-wallets.ts';
import { forEachEngine } from '../support/databases.ts';
import { systemClock } from '../../src/support/clock.ts';
import { systemRandom } from '../../src/support/random.ts';

const assets = loadAssets(undefined);
const sol = assets.get('sol')!;
const [MINT, PROGRAM] = [sol.mint as Address, sol.tokenProgram as Address];

forEachEngine('deposit identity pool', (ctx) => {
  it('two APIs claiming at once share no identity; every one is the seed’s; the empty pool refuses 503', async () => {
    const { db } = await ctx.fresh();
    const keys = new TreasuryKeys(new Uint8Array(randomBytes(32)));
    const mint = new DepositIdentityMint(db, keys.depositMasterKey, assets, systemClock, systemRandom, { target: 40 }).start();
    try {
      await mint.filled(40);
    } finally {
      await mint.stop();
    }
    const stored = (await countDepositIdentities(db)).get(`${MINT}:${PROGRAM}`)!;
    assert.ok(stored >= 40, `the mint filled the pool (${stored})`);
    const exact = async () => Object.fromEntries(await countDepositIdentities(db));
    assert.deepEqual(Object.fromEntries(await depositIdentitySpans(db, assets.list)), { ...Object.fromEntries(assets.list.map((a) => [`${a.mint}:${a.tokenProgram}`, 0])), ...(await exact()) }, 'what the mint reads is the count');
    // Batches of 8: several claims each, racing.
    const apis = [new DepositIdentityPool(db, 8), new DepositIdentityPool(db, 8)];
    const results = await Promise.allSettled(Array.from({ length: stored + 10 }, (_, i) => apis[i % 2]!.take(MINT, PROGRAM)));
    const got = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    const refused = results.flatMap((r) => (r.status === 'rejected' ? [r.reason] : []));
    assert.equal(new Set(got.map((g) => g.trackingId)).size, got.length, 'no identity handed out twice');
    assert.equal(new Set(got.map((g) => g.depositOwner)).size, got.length);
    // What a pool claimed and did not hand out stays in its hand (another process's would never see it).
    assert.ok(got.length <= stored && got.length >= stored / 2, `most of the pool handed out: ${got.length} of ${stored}`);
    for (const g of got) assert.equal(g.depositOwner, keys.depositOwnerAddress(g.trackingId), 'derived from the seed, so a worker can sweep it');
    assert.ok(refused.length >= 10);
    for (const e of refused) {
      assert.ok(e instanceof HushError && e.code === 'SERVICE_UNAVAILABLE', String(e));
      assert.equal(e.retryAfterSeconds, 1);
    }
    assert.equal((await countDepositIdentities(db)).get(`${MINT}:${PROGRAM}`) ?? 0, 0, 'claimed identities leave the store');
    assert.equal((await depositIdentitySpans(db, [{ mint: MINT, tokenProgram: PROGRAM }])).get(`${MINT}:${PROGRAM}`), 0);
  });

  it('the refill reads what is left from the sequence: the count after claims, high by a gap only until claims pass it', async () => {
    const { db } = await ctx.fresh();
    const master = new TreasuryKeys(new Uint8Array(randomBytes(32))).depositMasterKey;
    // Two refills, each a batch per asset one after another: every asset's numbering stays its own.
    for (const target of [12, 24]) {
      const mint = new DepositIdentityMint(db, master, assets, systemClock, systemRandom, { target }).start();
      await mint.filled(target).finally(() => mint.stop());
    }
    assert.deepEqual(Object.fromEntries(await depositIdentitySpans(db, assets.list)), Object.fromEntries(await countDepositIdentities(db)), 'spans are counts, asset by asset');
    const key = `${MINT}:${PROGRAM}`;
    const span = async () => (await depositIdentitySpans(db, [{ mint: MINT, tokenProgram: PROGRAM }])).get(key)!;
    const count = async () => (await countDepositIdentities(db)).get(key)!;
    for (const n of [4, 2]) await claimDepositIdentities(db, MINT, PROGRAM, n);
    assert.equal(await span(), await count(), 'claims take the lowest first: no gap');
    // A claim that rolled back after another took the rows above it leaves a gap: here the tenth lowest is gone.
    await db.query(`DELETE FROM deposit_identities WHERE tracking_id = (SELECT tracking_id FROM deposit_identities WHERE mint = $1 AND token_program = $2 ORDER BY seq OFFSET 9 LIMIT 1)`, [MINT, PROGRAM]);
    assert.equal(await span(), (await count()) + 1, 'high by the gap: a later refill, never a missing identity');
    await claimDepositIdentities(db, MINT, PROGRAM, 12);
    assert.equal(await span(), await count(), 'the claims passed the gap');
    assert.ok((await count()) > 0);
  });

  it('a refill stores each identity as given, numbered on in the order given, whatever the batch size', async () => {
    const { db } = await ctx.fresh();
    const made = (n: number) =>
      Array.from({ length: n }, (_, i) => ({
        trackingId: `trk_${randomBytes(8).toString('hex')}`,
        depositOwner: `owner${i}${randomBytes(4).toString('hex')}` as Address,
        depositAccount: `account${i}${randomBytes(4).toString('hex')}` as Address,
        extraBumpTries: (i * 37) % 256,
      }));
    const first = made(3);
    const second = made(5);
    await insertDepositIdentities(db, MINT, PROGRAM, first);
    await insertDepositIdentities(db, MINT, PROGRAM, second);
    await insertDepositIdentities(db, MINT, PROGRAM, first.slice(0, 1)); // already stored: skipped, not renumbered
    const { rows } = await db.query<{ tracking_id: string; deposit_owner: string; deposit_account: string; extra_bump_tries: number; seq: string | number }>(
      'SELECT tracking_id, deposit_owner, deposit_account, extra_bump_tries, seq FROM deposit_identities WHERE mint = $1 AND token_program = $2 ORDER BY seq',
      [MINT, PROGRAM],
    );
    assert.deepEqual(
      rows.map((r) => [r.tracking_id, r.deposit_owner, r.deposit_account, Number(r.extra_bump_tries), Number(r.seq)]),
      [...first, ...second].map((id, i) => [id.trackingId, id.depositOwner, id.depositAccount, id.extraBumpTries, i + 1]),
    );
    const claimed = await claimDepositIdentities(db, MINT, PROGRAM, 4);
    assert.deepEqual(claimed.map((c) => c.trackingId).sort(), [...first, ...second].slice(0, 4).map((id) => id.trackingId).sort(), 'the oldest four claimed');
  });

  it('wallets: published compare-and-set, read by the API view; another seed is refused unless it retires this one, which moves the old wallets to retired and drops the old identities', async () => {
    const { db } = await ctx.fresh();
    const view = new PublishedTreasuryWallets(db);
    await assert.rejects(view.loaded(), WalletsNotPublishedError);
    assert.throws(() => view.feePayer, WalletsNotPublishedError);
    const a = await Treasury.load(new TreasuryKeys(new Uint8Array(randomBytes(32))), assets);
    assert.deepEqual(await publishTreasuryWallets(db, publishedWalletsOf(a)), { changed: true, rotated: false });
    await assert.rejects(view.loaded(), WalletsNotPublishedError, 'not until the key deposits are sealed to is published too');
    await publishDepositRecordKey(db, a.depositRecordKey);
    assert.deepEqual(await publishTreasuryWallets(db, publishedWalletsOf(a)), { changed: false, rotated: false }, 'the same set writes nothing');
    await view.loaded();
    assert.equal(view.feePayer.address, a.feePayer.address);
    assert.deepEqual(view.allPools().map((p) => p.holding).sort(), a.allPools().map((p) => p.holding).sort());
    assert.equal(view.poolByHolding(a.pools('usdc')[1]!.holding)?.address, a.pools('usdc')[1]!.address);

    const keysB = new TreasuryKeys(new Uint8Array(randomBytes(32)));
    const mint = new DepositIdentityMint(db, keysB.depositMasterKey, assets, systemClock, systemRandom, { target: 8 }).start();
    await mint.filled(8).finally(() => mint.stop());
    const b = await Treasury.load(new TreasuryKeys(new Uint8Array(randomBytes(32))), assets);
    const refused = await publishTreasuryWallets(db, publishedWalletsOf(b));
    assert.ok('refused' in refused && refused.refused.includes(a.feePayer.address) && refused.refused.includes('TREASURY_RETIRED_SEEDS'), 'a seed that does not hold the old one would strand its funds');
    assert.equal((await readTreasuryWallets(db)).find((w) => w.role === 'feepayer')?.address, a.feePayer.address, 'refused: nothing written');
    assert.deepEqual(await publishTreasuryWallets(db, publishedWalletsOf(b), new Set([a.feePayer.address])), { changed: true, rotated: true });
    assert.equal((await readTreasuryWallets(db)).find((w) => w.role === 'feepayer')?.address, b.feePayer.address);
    assert.equal((await countDepositIdentities(db)).size, 0, 'unclaimed identities of the retired seed are dropped: new orders take the new seed\'s');
    const retired = await readRetiredWallets(db);
    assert.deepEqual(retired.map((r) => r.holding).sort(), publishedWalletsOf(a).map((w) => w.holding).sort(), 'every wallet of the old seed is kept, as retired');
    assert.ok(retired.every((r) => r.feePayer === a.feePayer.address && r.drainedAt === null));
    const back = await publishTreasuryWallets(db, publishedWalletsOf(a));
    assert.ok('refused' in back && back.refused.includes('was retired'), 'a worker still on the retired seed is refused');
    const c = await Treasury.load(new TreasuryKeys(new Uint8Array(randomBytes(32))), assets);
    const orphan = await publishTreasuryWallets(db, publishedWalletsOf(c), new Set([b.feePayer.address]));
    assert.ok('refused' in orphan && orphan.refused.includes(a.feePayer.address), 'undrained wallets of a retired seed this worker does not hold are refused');
  });
});
