/**
 * The inventory's read of every open unfunded order is spaced out when there are many (on PGlite it stalls
 * the event loop for as long as it runs, ~1.5 µs an order): at most 1/400 of the time. Funded commitments
 * are still read at every refresh, and while the unfunded read waits, what it last saw errs on the side of
 * less promised. Unit level: the chain read is stubbed with fixed pool balances, the store with one answer
 * per statement, as many open orders as the test says.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { UnfundedReadPace } from '../../src/services/unfunded-read-pace.ts';
import { ManualClock } from '../support/manual-clock.ts';
import { stubbedInventory } from '../support/stubbed-inventory.ts';

const ACC = 'acc_paced';

describe('UnfundedReadPace', () => {
  it('reads at every refresh up to ~3,300 open orders; beyond, 0.6 ms per open order from the read\'s start', () => {
    const pace = new UnfundedReadPace(2_000);
    assert.ok(pace.due(0), 'the first read is due at once');
    pace.record(1_000, 3_333);
    assert.ok(pace.due(1_000), '3,333 open orders: a 2 s spacing, no more than the refresh period');
    pace.record(1_000, 20_000);
    assert.ok(!pace.due(12_999));
    assert.ok(pace.due(13_000), '20,000 open orders: 12 s later');
    pace.record(13_000, 10);
    assert.ok(pace.due(13_000), 'few again: back to every refresh');
  });
});

describe('Inventory: the unfunded read, paced', () => {
  async function setup() {
    const store = { unfundedReads: 0, open: 1, reserved: 0n, owed: 0n };
    const clock = new ManualClock();
    const stubbed = await stubbedInventory(
      async (sql) => {
        if (sql.includes('expiration > now()')) {
          store.unfundedReads++;
          const first_expiration = new Date(Date.now() + 600_000);
          return { rows: [{ asset: 'usdc', account: ACC, n: String(store.open), first_expiration, reserved: store.reserved > 0n ? store.reserved.toString() : null }] };
        }
        if (sql.includes('FROM orders')) return { rows: store.owed > 0n ? [{ side: 'owed', key: 'usdc', total: store.owed.toString() }] : [] };
        throw new Error(`unexpected query ${sql}`);
      },
      { everyMs: 2_000, clock },
    );
    return { ...stubbed, store, clock };
  }

  it('reads unfunded orders at every refresh while they are few', async () => {
    const { inv, store, clock } = await setup();
    for (let i = 0; i < 3; i++) {
      await inv.refresh();
      clock.advance(2_000);
    }
    assert.equal(store.unfundedReads, 3);
  });

  it('a refresh that fails after reading them does not space the next read: it reads them again', async () => {
    const { inv, store, clock, chain } = await setup();
    store.open = 20_000;
    chain.failing = true;
    await assert.rejects(inv.refresh());
    chain.failing = false;
    clock.advance(2_000);
    await inv.refresh();
    assert.equal(store.unfundedReads, 2, 'the failed refresh used nothing it read');
    assert.equal(inv.openOrders(ACC).count, 20_000);
    clock.advance(2_000);
    await inv.refresh();
    assert.equal(store.unfundedReads, 2, 'paced from the read that was used');
  });

  it('spaces the read out when they are many; funded orders are read every time, and an order funded meanwhile is counted twice, never missed', async () => {
    const { inv, store, clock, total } = await setup();
    store.open = 20_000; // the next read 12 s after this one began
    store.reserved = 100_000_000n;
    await inv.refresh();
    assert.equal(store.unfundedReads, 1);
    assert.equal(inv.available('usdc', ACC), total - 100_000_000n);
    // The order is funded: the store now says owed, not reserved. The unfunded read is not due yet.
    store.reserved = 0n;
    store.owed = 100_000_000n;
    clock.advance(2_000);
    await inv.refresh();
    assert.equal(store.unfundedReads, 1, 'not read again 2 s later');
    assert.equal(inv.available('usdc', ACC), total - 200_000_000n, 'owed (read now) and still reserved (the last unfunded read): twice, on the side of less promised');
    // This process's new orders count at once, whatever the pace.
    assert.ok(inv.reserve('usdc', 50_000_000n, ACC));
    assert.equal(inv.available('usdc', ACC), total - 250_000_000n);
    assert.equal(inv.openOrders(ACC).count, 20_001, 'its open order counted under the cap at once');
    clock.advance(9_999);
    await inv.refresh();
    assert.equal(store.unfundedReads, 1, 'not yet: 11.999 s after the read began');
    clock.advance(1);
    await inv.refresh();
    assert.equal(store.unfundedReads, 2, 'due again');
    assert.equal(inv.available('usdc', ACC), total - 150_000_000n, 'the funded order counted once; the reservation not yet stored still counted');
  });
});
