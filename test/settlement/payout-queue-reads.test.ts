/**
 * The reads a payout batch plans against (src/settlement/payout-queue.ts, `batchReads`): a batch that starts within a
 * slot of the last read, with no other plan-and-record section between, plans against that read plus what the
 * batches since took; a section of someone else's between (a refund, a partner payout), or a slot gone, reads again.
 * The pools and the store are stand-ins here: what is under test is which reads a plan is given, not the plan.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Address } from '@solana/kit';
import type { OrderRecord } from '../../src/store/orders-store.ts';
import type { PlanReads, PlannedTransfer } from '../../src/settlement/pools.ts';
import { PayoutQueue, type PayoutQueuePort } from '../../src/settlement/payout-queue.ts';
import { ManualClock } from '../support/manual-clock.ts';

const SLOT_MS = 400;
const POOL = 'pool-holding-1';

/** Pools that count their reads and record, per plan, how much of the pool the reads it was given had taken. */
class StandInPools {
  sections = 0;
  reads = 0;
  private lock: Promise<unknown> = Promise.resolve();
  /** Per plan: the pool's `taken` before it took its own amount. */
  readonly takenSeen: bigint[] = [];

  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const enter = () => (this.sections++, fn());
    const run = this.lock.then(enter, enter);
    this.lock = run.catch(() => {});
    return run;
  }

  readsOf = async (): Promise<PlanReads> => {
    this.reads++;
    return { pending: new Map([[POOL, 5n]]), balances: new Map([[POOL, { exists: true, lamports: 0n, tokenAmount: 1_000n }]]), taken: new Map() };
  };

  plan = async (o: { id: string | null }, _kind: string, assetId: string, destination: Address, amount: bigint, _meta: unknown, _q: unknown, shared?: PlanReads): Promise<PlannedTransfer> => {
    const taken = shared!.taken.get(POOL) ?? 0n;
    this.takenSeen.push(taken);
    shared!.taken.set(POOL, taken + amount);
    return { kind: 'payout', orderId: o.id, assetId, amount, source: POOL, destination, signature: `sig-${o.id}`, wire: `wire-${o.id}`, lastValidBlockHeight: 1000n, meta: {} } as PlannedTransfer;
  };
}

function queueWith(clock: ManualClock) {
  const pools = new StandInPools();
  const sent: string[] = [];
  const port: PayoutQueuePort = {
    pools: {
      exclusive: (fn) => pools.exclusive(fn),
      reads: () => pools.readsOf(),
      plan: pools.plan as unknown as PayoutQueuePort['pools']['plan'],
      reusable: async () => 'use',
      get sections() {
        return pools.sections;
      },
    },
    // startPayouts' one statement: every order of the batch moved.
    db: { query: async (_sql: string, params?: unknown[]) => ({ rows: (params![0] as string[]).map((id) => ({ id })), rowCount: (params![0] as string[]).length }) } as unknown as PayoutQueuePort['db'],
    workerId: 'w_test',
    slotMs: SLOT_MS,
    outbox: { sendBatch: async (txs) => void sent.push(...txs.map((t) => t.signature)) },
    faults: { reach() {} },
    clock,
  };
  return { queue: new PayoutQueue(port), pools, sent };
}

const order = (id: string, amountOut = 10n) => ({ id, trackingId: `t-${id}`, destinationAssetId: 'usdc', recipient: `r-${id}` as Address, amountOut }) as unknown as OrderRecord;

test('a batch within a slot of the last read, nothing planned between, plans against it and what was taken since', async () => {
  const clock = new ManualClock(1_000_000);
  const { queue, pools, sent } = queueWith(clock);
  assert.equal((await queue.record(order('1', 10n), 'deposit_confirmed')).ok, true);
  clock.advance(SLOT_MS - 1);
  assert.equal((await queue.record(order('2', 20n), 'deposit_confirmed')).ok, true);
  assert.equal(pools.reads, 1, 'the second batch did not read again');
  assert.deepEqual(pools.takenSeen, [0n, 10n], 'the second plan counted what the first took');
  assert.deepEqual(sent, ['sig-1', 'sig-2']);
});

test('a slot gone reads again, with nothing taken', async () => {
  const clock = new ManualClock(1_000_000);
  const { queue, pools } = queueWith(clock);
  await queue.record(order('1', 10n), 'deposit_confirmed');
  clock.advance(SLOT_MS + 1);
  await queue.record(order('2', 20n), 'deposit_confirmed');
  assert.equal(pools.reads, 2);
  assert.deepEqual(pools.takenSeen, [0n, 0n]);
});

test('a section of someone else\'s between (a refund planned with its own reads) reads again', async () => {
  const clock = new ManualClock(1_000_000);
  const { queue, pools } = queueWith(clock);
  await queue.record(order('1', 10n), 'deposit_confirmed');
  await pools.exclusive(async () => {});
  await queue.record(order('2', 20n), 'deposit_confirmed');
  assert.equal(pools.reads, 2, 'what the refund took is not in the first read nor in its taken');
  assert.deepEqual(pools.takenSeen, [0n, 0n]);
});

test('the orders that ask to record in one turn go as one batch', async () => {
  const clock = new ManualClock(1_000_000);
  const { queue, pools } = queueWith(clock);
  const results = await Promise.all(['1', '2', '3'].map((id) => queue.record(order(id), 'deposit_confirmed')));
  assert.deepEqual(results.map((r) => r.ok), [true, true, true]);
  assert.equal(pools.sections, 1, 'one plan-and-record section for the three');
  assert.equal(pools.reads, 1);
});
