/**
 * docs/spec.md §12, the queue of holds narrowed and paged (`GET /admin/v1/holds`), on a simulated Hush: one
 * partner's order held at deposit by a list, another's held at deposit because the risk API did not answer, and
 * held funds beside them (a fee recipient and late funds, put in the store by the worker's own functions). Each
 * filter — the finding's stage and result, the partner, held since and until, an address prefix — narrows both
 * listings; `counts` keeps every open hold and says under `matching` how many the filter leaves; `next` pages
 * each listing; the answer without parameters keeps its shape; bad parameters are 400 in words.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Address } from '@solana/kit';
import { holdFeeRecipient, holdLateFunds } from '../../src/store/holds/fund-holds.ts';
import { expectError, expectOk } from '../support/api-responses.ts';
import { closeSim } from '../support/sim-close.ts';
import { startSimHush, type SimAccount, type SimHush } from '../support/sim-hush.ts';
import { RiskStandIn, ScreeningList, place } from '../support/sim-screening.ts';

interface Queue {
  holds: { trackingId: string; accountId: string; heldAt: string; senderAddress: string }[];
  fundHolds: { holdId: string; kind: string; accountId: string }[];
  counts: { holds: number; fundHolds: number; matching?: { holds: number; fundHolds: number } };
  next: { holds: string | null; fundHolds: string | null };
}

describe('the queue of holds: filters, counts of what matches, paging', () => {
  const list = new ScreeningList('blocked.txt', '# blocked during the test\n');
  let h: SimHush;
  let a: SimAccount, b: SimAccount;
  /** A's order held by the list (blocked), B's held by the risk API's silence (error). */
  let listed: { trackingId: string; sender: string }, silent: { trackingId: string; sender: string };
  let feeHold: string, lateHold: string;

  const queue = async (query = ''): Promise<Queue> => expectOk(await h.ops.get(`/admin/v1/holds${query}`)) as unknown as Queue;
  const orders = (q: Queue) => q.holds.map((x) => x.trackingId);
  const funds = (q: Queue) => q.fundHolds.map((x) => x.holdId);

  before(async () => {
    h = await startSimHush({ seed: 71, env: { ...list.env(1_000), HUSH_SCREENING_TIMEOUT_MS: '300', HUSH_SCREENING_CACHE_TTL_S: '0' } });
    const risk = new RiskStandIn(h);
    [a, b] = [await h.createAccount(), await h.createAccount()];
    const funded = () => h.wallet({ sol: 100_000_000n, usdc: 50_000_000n });
    const [s1, s2] = [await funded(), await funded()];
    const order = (acct: SimAccount, s: typeof s1) => place(h, acct.client, { amount: '12000000', sourceAssetId: 'usdc', destinationAssetId: 'usdc', senderAddress: s.address as Address, recipientAddress: h.address() });
    const p1 = await order(a, s1);
    await list.block(h, s1.address);
    await h.deposit(p1.order, s1);
    await h.waitForOrder(a.client, p1.trackingId, ['held'], 30_000);
    // A minute later: the time filters tell the two apart.
    await h.advance(60_000);
    const p2 = await order(b, s2);
    risk.failing.add(s2.address);
    await h.deposit(p2.order, s2);
    await h.waitForOrder(b.client, p2.trackingId, ['held'], 30_000);
    [listed, silent] = [{ trackingId: p1.trackingId, sender: s1.address }, { trackingId: p2.trackingId, sender: s2.address }];

    const finding = { result: 'blocked' as const, field: 'feeRecipientAddress', address: h.address(), list: 'sdn.csv', version: '0123456789abcdef', reason: 'listed' };
    await h.drive(holdFeeRecipient(h.db, `payable:partner:${a.id}:${finding.address}`, 'usdc', 1_000_000n, { ...finding, stage: 'fee' }));
    // Late funds that reached another order of A's, still open (a finding on the held one would be its latest decision).
    const open = await order(a, await funded());
    const { rows } = await h.drive(h.db.query<{ id: string }>(`SELECT id::text AS id FROM orders WHERE tracking_id = $1`, [open.trackingId]));
    await h.drive(holdLateFunds(h.db, `late-test-${open.trackingId}`, { id: rows[0]!.id, trackingId: open.trackingId, sourceAssetId: 'usdc' }, 2_000_000n, { stage: 'late', result: 'error', field: 'lateFundsPayer', address: h.address(), list: 'http:risk', version: null, reason: 'timeout' }));
    const all = await queue();
    feeHold = all.fundHolds.find((x) => x.kind === 'fee')!.holdId;
    lateHold = all.fundHolds.find((x) => x.kind === 'late')!.holdId;
  });
  after(async () => {
    await closeSim(h);
    list.remove();
  });

  test('without parameters: every open hold, oldest first, in the shape the console reads, with what matches and no next page', async () => {
    const q = await queue();
    assert.deepEqual(orders(q), [listed.trackingId, silent.trackingId]);
    assert.deepEqual(funds(q), [feeHold, lateHold]);
    assert.deepEqual(q.counts, { holds: 2, fundHolds: 2 }, 'no filter, so nothing to say of what matches');
    assert.deepEqual(q.next, { holds: null, fundHolds: null });
  });

  test("each filter narrows both listings; counts keep every open hold and say how many match", async () => {
    const byStage = await queue('?stage=deposit');
    assert.deepEqual([orders(byStage), funds(byStage)], [[listed.trackingId, silent.trackingId], []]);
    assert.deepEqual(byStage.counts, { holds: 2, fundHolds: 2, matching: { holds: 2, fundHolds: 0 } });
    const fee = await queue('?stage=fee');
    assert.deepEqual([orders(fee), funds(fee)], [[], [feeHold]]);

    const errors = await queue('?result=error');
    assert.deepEqual([orders(errors), funds(errors)], [[silent.trackingId], [lateHold]]);
    assert.deepEqual(errors.counts, { holds: 2, fundHolds: 2, matching: { holds: 1, fundHolds: 1 } });
    const blocked = await queue('?stage=deposit&result=blocked');
    assert.deepEqual(orders(blocked), [listed.trackingId]);

    const ofA = await queue(`?accountId=${a.id}`);
    assert.deepEqual([orders(ofA), funds(ofA)], [[listed.trackingId], [feeHold, lateHold]], "A's order, its fee recipient, and the late funds that reached A's order");
    const ofB = await queue(`?accountId=${b.id}`);
    assert.deepEqual([orders(ofB), funds(ofB)], [[silent.trackingId], []]);

    const later = (await queue()).holds[1]!.heldAt;
    const since = await queue(`?from=${later}`);
    assert.deepEqual(orders(since), [silent.trackingId], 'held since: inclusive');
    const until = await queue(`?to=${later}`);
    assert.deepEqual(orders(until), [listed.trackingId], 'held until: exclusive');
    assert.deepEqual(funds(until), [], 'the fund holds were made after both');

    const bySender = await queue(`?addressPrefix=${listed.sender.slice(0, 8)}`);
    assert.deepEqual([orders(bySender), funds(bySender)], [[listed.trackingId], []], "a held order's sender");
    assert.deepEqual((await queue('?addressPrefix=1111111111111111111111111111')).counts.matching, { holds: 0, fundHolds: 0 });
  });

  test('paging: next starts where the page stopped, for held orders and held funds alike', async () => {
    const first = await queue('?limit=1');
    assert.deepEqual([orders(first), funds(first)], [[listed.trackingId], [feeHold]]);
    assert.match(first.next.holds ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z~trk_\w{22}$/);
    assert.equal(first.next.fundHolds, feeHold);
    assert.deepEqual(first.counts, { holds: 2, fundHolds: 2 }, 'counts are of the queue, not the page');
    const second = await queue(`?limit=1&after=${first.next.holds}&fundsAfter=${first.next.fundHolds}`);
    assert.deepEqual([orders(second), funds(second)], [[silent.trackingId], [lateHold]]);
    assert.deepEqual(second.next, { holds: null, fundHolds: null });
    const filtered = await queue(`?limit=1&accountId=${a.id}&fundsAfter=${feeHold}`);
    assert.deepEqual(funds(filtered), [lateHold], 'a page of a filter');
  });

  test('bad parameters are 400 INVALID_REQUEST in words', async () => {
    const bad: [string, RegExp][] = [
      ['stage=quote', /stage must be one of: "deposit", "payout", "refund", "late", "fee"/],
      ['stage=resolution', /stage must be one of/],
      ['result=clear', /result must be one of: "blocked", "error"/],
      ['limit=1001', /limit must be a whole number from 1 to 1000/],
      ['after=12', /after must be the `next.holds` of the page before/],
      ['fundsAfter=x', /fundsAfter must be the `next.fundHolds` of the page before/],
      ['from=2026-02-30', /from is not a time on the calendar/],
      ['from=2026-11-25&to=2026-11-24', /to must be after from/],
      ['addressPrefix=0', /addressPrefix must be 1–44 base58 characters/],
      ['kind=late', /kind unknown field/],
    ];
    for (const [query, words] of bad) assert.match(expectError(await h.ops.get(`/admin/v1/holds?${query}`), 400, 'INVALID_REQUEST').message, words, query);
  });
});
