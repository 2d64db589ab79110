/**
 * The deposit watch's balances (src/settlement/fast-path/watched-balances.ts), on their own: what the
 * socket being up saves, and what catches a notification the server lost without a gap in the socket.
 * A unit test: the chain here is a counted stand-in whose accounts change without notifying (a lost
 * notification); the end-to-end figures are test/settlement/unfunded-orders-idle.test.ts's.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, mock, test } from 'node:test';
import type { AccountBalance } from '../../src/chain/chain-view.ts';
import type { SettlementContext } from '../../src/settlement/context.ts';
import { SAFETY_READ_MS, WatchedBalances } from '../../src/settlement/fast-path/watched-balances.ts';
import { systemClock } from '../../src/support/clock.ts';

const SLOT_MS = 100;
const A = 'DepositAccount1111111111111111111111111111111';

function standIn() {
  const chain = new Map<string, AccountBalance>([[A, { exists: false, lamports: 0n, tokenAmount: null }]]);
  const reads: string[][] = [];
  const mentions = new Map<string, (tx: { signature: string; err: unknown }) => void>();
  const slots = { live: true };
  const ctx = {
    slotMs: SLOT_MS,
    slots,
    subscriptions: {
      watchAccount: () => () => {},
      watchMentions: (a: string, l: (tx: { signature: string; err: unknown }) => void) => (mentions.set(a, l), () => mentions.delete(a)),
    },
    foreign: { origins: { saw: () => {}, forget: () => {} } },
    clock: systemClock,
    wake: () => {},
    view: {
      balances: async (accounts: string[]) => {
        reads.push(accounts);
        return new Map(accounts.map((a) => [a, chain.get(a)!]));
      },
    },
  } as unknown as SettlementContext;
  return { chain, reads, mentions, slots, balances: new WatchedBalances(ctx) };
}

beforeEach(() => mock.timers.enable({ apis: ['Date'], now: 1_000_000 }));
afterEach(() => mock.timers.reset());

test('socket up: a watched account is read over HTTP on its first slots, then costs nothing, except one read every SAFETY_READ_MS that finds a deposit whose notification was lost', async () => {
  const s = standIn();
  for (let i = 0; i < 2; i++) await s.balances.read([A]);
  assert.equal(s.reads.length, 2, 'read over HTTP while its subscription may not be live yet');
  assert.equal(s.balances.current(A)?.tokenAmount, null, 'then known without a request');
  // The deposit lands; its notification is lost (the socket stayed up).
  s.chain.set(A, { exists: true, lamports: 2_039_280n, tokenAmount: 5_000_000n });
  mock.timers.tick(SAFETY_READ_MS - 1);
  for (let i = 0; i < 50; i++) assert.equal((await s.balances.read([A])).get(A)?.tokenAmount, null);
  assert.equal(s.reads.length, 2, 'no request per slot while notifications keep it');
  mock.timers.tick(1);
  assert.equal((await s.balances.read([A])).get(A)?.tokenAmount, 5_000_000n, 'the safety read finds it');
  assert.equal(s.reads.length, 3, 'one request');
  assert.equal(s.balances.current(A)?.tokenAmount, 5_000_000n, 'and the order loop sees it too');
});

test('a transaction mentioning the account makes it worth a read at processed for 16 slots; socket down: nothing is taken from notifications', async () => {
  const s = standIn();
  for (let i = 0; i < 3; i++) await s.balances.read([A]);
  assert.equal(s.balances.mentioned(A), false);
  s.mentions.get(A)!({ signature: 'sig', err: { InstructionError: [0, 'Custom'] } });
  assert.equal(s.balances.mentioned(A), false, 'a failed transaction changes nothing');
  s.mentions.get(A)!({ signature: 'sig', err: null });
  assert.equal(s.balances.mentioned(A), true);
  mock.timers.tick(16 * SLOT_MS);
  assert.equal(s.balances.mentioned(A), false, 'after 16 slots its notification at confirmed has long come');
  s.slots.live = false;
  assert.equal(s.balances.current(A), undefined, 'socket down: the order loop reads it');
  const before = s.reads.length;
  await s.balances.read([A]);
  assert.equal(s.reads.length, before + 1, 'socket down: the watch reads it');
});
