/**
 * Inventory.reserve — the order-time liquidity re-check takes an order's amountOut from the free
 * inventory at once, so the next order (or quote) sees it before the background refresh reads the order
 * from the store; a reservation made while a refresh is reading the store, or whose order is not stored
 * yet when a refresh reads it, is not lost when that refresh replaces the snapshot. Unit level: the chain read is stubbed with fixed pool balances, the store with
 * one answer per statement (no pending outflows, nothing owed, and what unfunded orders reserve as the test says, when it says).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { stubbedInventory, USDC_PER_POOL } from '../support/stubbed-inventory.ts';

/** The account whose orders reserve (its own view counts them in full). */
const ACC = 'acc_reserving';

async function setup() {
  let reserved: { asset: string; account: string; n: string; first_expiration: Date; reserved: string }[] = [];
  let gate: Promise<void> | null = null;
  const { inv } = await stubbedInventory(async (sql) => {
    if (sql.includes('expiration > now()')) {
      const answer = reserved; // what the store holds when the read starts
      if (gate) await gate;
      return { rows: answer };
    }
    if (sql.includes('FROM orders')) return { rows: [] }; // no pending outflows, nothing owed
    throw new Error(`unexpected query ${sql}`);
  });
  return {
    inv,
    setReserved(total: bigint) {
      reserved = total > 0n ? [{ asset: 'usdc', account: ACC, n: '1', first_expiration: new Date(Date.now() + 600_000), reserved: total.toString() }] : [];
    },
    hold() {
      let release!: () => void;
      gate = new Promise<void>((r) => (release = r));
      return () => {
        gate = null;
        release();
      };
    },
  };
}

describe('Inventory.reserve (order-time liquidity)', () => {
  it('takes the amount at once; what is not free is refused and nothing is taken', async () => {
    const { inv } = await setup();
    await inv.refresh();
    const total = 4n * USDC_PER_POOL;
    assert.equal(inv.available('usdc', ACC), total);
    assert.ok(inv.reserve('usdc', 300_000_000n, ACC));
    assert.equal(inv.available('usdc', ACC), total - 300_000_000n, 'the next order sees the reservation before any refresh');
    assert.equal(inv.bounds('usdc', ACC).max, total - 300_000_000n, 'and so do quotes');
    assert.equal(inv.reserve('usdc', 100_000_001n, ACC), null);
    assert.equal(inv.available('usdc', ACC), 100_000_000n, 'a refused reservation takes nothing');
    assert.ok(inv.reserve('usdc', 100_000_000n, ACC));
    assert.equal(inv.reserve('usdc', 1n, ACC), null);
    assert.equal(inv.reserve('sol', 1n, ACC), null, 'an asset with no pools funded has nothing free');
  });

  it('a reservation made while a refresh reads the store survives that refresh', async () => {
    const { inv, setReserved, hold } = await setup();
    await inv.refresh();
    const total = 4n * USDC_PER_POOL;
    const release = hold();
    const refreshing = inv.refresh(); // reads the store before the order below is inserted
    await new Promise((r) => setImmediate(r));
    const r = inv.reserve('usdc', 250_000_000n, ACC)!;
    setReserved(250_000_000n); // the order is in the store now, after the refresh's read began
    r.stored();
    release();
    await refreshing;
    assert.equal(inv.available('usdc', ACC), total - 250_000_000n, 'the in-flight refresh must not hand the reserved inventory back');
    assert.equal(inv.reserve('usdc', 200_000_000n, ACC), null, 'so a second order cannot oversell it');
    // The next refresh reads the order from the store: same answer, no double count left.
    await inv.refresh();
    assert.equal(inv.available('usdc', ACC), total - 250_000_000n);
  });

  it('a released reservation gives its amount back exactly once, whatever refreshes ran in between', async () => {
    const { inv, hold } = await setup();
    await inv.refresh();
    const total = 4n * USDC_PER_POOL;
    // Released at once.
    const a = inv.reserve('usdc', 100_000_000n, ACC)!;
    a.release();
    a.release();
    assert.equal(inv.available('usdc', ACC), total);
    // A refresh while the reservation's order is on its way to the store keeps counting it; the release
    // then gives it back once.
    const b = inv.reserve('usdc', 100_000_000n, ACC)!;
    await inv.refresh();
    assert.equal(inv.available('usdc', ACC), total - 100_000_000n, 'not stored yet: still counted');
    b.release();
    b.release();
    assert.equal(inv.available('usdc', ACC), total, 'no double give-back');
    await inv.refresh();
    assert.equal(inv.available('usdc', ACC), total);
    // Reserved while a refresh reads the store, released before that refresh lands.
    const release = hold();
    const refreshing = inv.refresh();
    await new Promise((r) => setImmediate(r));
    const c = inv.reserve('usdc', 150_000_000n, ACC)!;
    c.release();
    release();
    await refreshing;
    assert.equal(inv.available('usdc', ACC), total);
  });

  it('a refresh between an order\'s reservation and its store write does not hand the reservation back (no oversell)', async () => {
    const { inv, setReserved } = await setup();
    await inv.refresh();
    const total = 4n * USDC_PER_POOL;
    const a = inv.reserve('usdc', 300_000_000n, ACC)!; // order A reserved; its insert is still on its way
    await inv.refresh(); // reads the store without A
    assert.equal(inv.available('usdc', ACC), total - 300_000_000n, 'A is still counted');
    assert.equal(inv.reserve('usdc', 300_000_000n, ACC), null, 'so a second order cannot take the same inventory');
    setReserved(300_000_000n); // A is in the store now
    a.stored();
    await inv.refresh();
    assert.equal(inv.available('usdc', ACC), total - 300_000_000n, 'counted once, from the store');
    a.release(); // resolved already: nothing more to give back
    assert.equal(inv.available('usdc', ACC), total - 300_000_000n);
  });

  it('unfunded orders hold in full against their own account, and at most the share against any other', async () => {
    const { inv } = await setup();
    await inv.refresh();
    const total = 4n * USDC_PER_POOL;
    const share = (total * 2_000n) / 10_000n; // HUSH_UNFUNDED_SHARE_BPS default
    assert.ok(inv.reserve('usdc', 150_000_000n, ACC));
    assert.ok(inv.reserve('usdc', 150_000_000n, ACC));
    assert.equal(inv.available('usdc', ACC), total - 300_000_000n, 'its own promises count in full for the account');
    assert.equal(inv.available('usdc', 'acc_other'), total - share, 'another account loses at most the share');
    assert.equal(inv.available('usdc'), total - share);
    assert.equal(inv.openOrders(ACC).count, 2);
    assert.equal(inv.openOrders('acc_other').count, 0);
    // The other account may take what the first only promised: its order is refused only past what is free to it.
    assert.equal(inv.reserve('usdc', total - share + 1n, 'acc_other'), null);
    assert.ok(inv.reserve('usdc', 250_000_000n, 'acc_other'));
    // The published max is rounded down to two significant digits; the order-time check uses the exact figure.
    const r = inv.reserve('usdc', 1_234_567n, 'acc_third')!;
    const exact = inv.available('usdc', 'acc_third');
    assert.equal(exact, total - share - share - 1_234_567n);
    assert.equal(inv.bounds('usdc', 'acc_third').max, 230_000_000n, `coarse(${exact})`);
    r.release();
    assert.equal(inv.openOrders('acc_third').count, 0, 'a released reservation frees its slot');
  });
});
