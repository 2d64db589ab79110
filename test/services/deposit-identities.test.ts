/**
 * Deposit identities derived ahead on a worker thread (one per process, shared) are exactly what the
 * treasury keys derive for the same trackingId, unique, and still served (inline) when the pool is empty or
 * there is no worker.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import type { Address } from '@solana/kit';
import { associatedTokenAddressSync } from '../../src/domain/program-derived-address.ts';
import { DepositIdentities } from '../../src/treasury/deposit-identities.ts';
import { TreasuryKeys } from '../../src/treasury/treasury-keys.ts';
import { systemRandom } from '../../src/support/random.ts';

const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v' as Address;
const WSOL = 'So11111111111111111111111111111111111111112' as Address;
const TOKEN = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA' as Address;

async function until(f: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!f()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('deposit identities', () => {
  it('the worker fills each asset’s pool with identities the treasury keys agree with', async () => {
    const keys = new TreasuryKeys(new Uint8Array(randomBytes(32)));
    const pool = new DepositIdentities(keys.depositMasterKey, systemRandom, { target: 128 });
    try {
      pool.prime(USDC, TOKEN);
      pool.prime(WSOL, TOKEN);
      // Primed with one batch each; the full target only for assets orders take from.
      await until(() => pool.available(USDC, TOKEN) >= 64 && pool.available(WSOL, TOKEN) >= 64);
      const seen = new Set<string>();
      // More than the pool holds: the rest is derived inline or by the refill.
      for (let i = 0; i < 300; i++) {
        const mint = i % 2 ? USDC : WSOL;
        const id = pool.take(mint, TOKEN);
        assert.equal(id.depositOwner, keys.depositOwnerAddress(id.trackingId));
        assert.equal(id.depositAccount, associatedTokenAddressSync(id.depositOwner, mint, TOKEN));
        assert.match(id.trackingId, /^trk_[1-9A-HJ-NP-Za-km-z]{22}$/);
        assert.ok(!seen.has(id.trackingId), 'trackingIds are unique');
        seen.add(id.trackingId);
      }
    } finally {
      await pool.close();
    }
  });

  it('two pools of one process share its thread, each with its own master: each gets its own identities, and one closing leaves the other filling', async () => {
    const keysA = new TreasuryKeys(new Uint8Array(randomBytes(32)));
    const keysB = new TreasuryKeys(new Uint8Array(randomBytes(32)));
    const a = new DepositIdentities(keysA.depositMasterKey, systemRandom, { target: 128 });
    const b = new DepositIdentities(keysB.depositMasterKey, systemRandom, { target: 128 });
    try {
      a.prime(USDC, TOKEN);
      b.prime(USDC, TOKEN);
      await until(() => a.available(USDC, TOKEN) >= 64 && b.available(USDC, TOKEN) >= 64);
      await a.close();
      // b takes past its first batch: the refill it asks for comes from the thread a no longer uses.
      for (let i = 0; i < 64; i++) {
        const id = b.take(USDC, TOKEN);
        assert.equal(id.depositOwner, keysB.depositOwnerAddress(id.trackingId), "b's identities are b's master's");
        assert.notEqual(id.depositOwner, keysA.depositOwnerAddress(id.trackingId));
      }
      await until(() => b.available(USDC, TOKEN) >= 64);
      const refilled = b.take(USDC, TOKEN);
      assert.equal(refilled.depositOwner, keysB.depositOwnerAddress(refilled.trackingId));
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('without a thread nothing is derived ahead: a take and a drain derive what they ask for, and agree with the treasury keys', async () => {
    const keys = new TreasuryKeys(new Uint8Array(randomBytes(32)));
    const pool = new DepositIdentities(keys.depositMasterKey, systemRandom, { threaded: false });
    pool.prime(USDC, TOKEN);
    assert.equal(pool.available(USDC, TOKEN), 0);
    const taken = [pool.take(USDC, TOKEN), ...pool.drain(USDC, TOKEN, 70)];
    // A drain is one batch at most: the mint's next pass asks again.
    assert.equal(taken.length, 1 + 64);
    assert.equal(pool.available(USDC, TOKEN), 0);
    const seen = new Set<string>();
    for (const id of taken) {
      assert.equal(id.depositOwner, keys.depositOwnerAddress(id.trackingId));
      assert.equal(id.depositAccount, associatedTokenAddressSync(id.depositOwner, USDC, TOKEN));
      assert.ok(!seen.has(id.trackingId), 'trackingIds are unique');
      seen.add(id.trackingId);
    }
    await pool.close();
  });
});
