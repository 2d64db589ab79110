/**
 * docs/spec.md §12 "Four eyes", attacked (issue 70): a resolver alone must not release a held order past a
 * sanctions listing by answering something else of the same order first — late funds held at its deposit account
 * (their resolution is logged under the order's tracking id) — nor send an order held on its way to a refund on to
 * its payout; nor release, as one operator's answer to a hold that needed none, the order held again meanwhile on a
 * listing (the answer is weighed on the hold it was given for). On a simulated Hush, its ops listener by inject.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ApprovalsService } from '../../src/admin/approvals-service.ts';
import { HoldsService } from '../../src/admin/holds-service.ts';
import type { ResolveOptions } from '../../src/admin/hold-answer.ts';
import { SCREENING_OFF } from '../../src/screening/screening-port.ts';
import { holdFeeRecipient, holdLateFunds, reholdLateFunds } from '../../src/store/holds/fund-holds.ts';
import type { HoldAction } from '../../src/store/holds/resolve-hold.ts';
import { holdForScreening, type HoldVerdict } from '../../src/store/settlement/hold-for-screening.ts';
import { expectError, expectOk } from '../support/api-responses.ts';
import type { HushClient } from '../support/hush-client.ts';
import { namedOperator } from '../support/operators.ts';
import { orderIn } from '../support/settlement-fixtures.ts';
import { startApiSim } from '../support/sim-api.ts';
import { closeSim } from '../support/sim-close.ts';
import type { SimHush } from '../support/sim-hush.ts';

let h: SimHush;
let admin: HushClient;
let rui: Awaited<ReturnType<typeof namedOperator>>;

before(async () => {
  h = await startApiSim({ seed: 71 });
  admin = h.ops;
  rui = await namedOperator(admin, 'Rui', 'resolver');
});
after(() => closeSim(h));

const listedRecipient: HoldVerdict = { stage: 'deposit', result: 'blocked', field: 'recipientAddress', address: 'Recipient1111', list: 'sdn.csv', version: 'v1', reason: 'listed (SDN entry 36216)' };
const mixerPayer = { stage: 'late' as const, result: 'blocked' as const, field: 'lateFundsPayer', address: 'Payer1111', list: 'http:risk.example:8443', version: 'http:risk.example:8443', reason: 'mixer' };

/** An order held by `verdict` from `status`: its tracking id and id. */
async function heldOrder(status: 'deposit_confirmed' | 'refunding', verdict: HoldVerdict): Promise<{ id: string; trackingId: string }> {
  const { id, order } = await h.drive(orderIn(h.db, status));
  assert.ok(await h.drive(holdForScreening(h.db, id, status, verdict, 'hush')));
  return { id, trackingId: order.trackingId };
}

/** Late funds held at the order's deposit account, as the worker holds them after a sweep with funds beyond the deposit: the hold's id. */
async function lateHold(o: { id: string; trackingId: string }, n: number): Promise<string> {
  const subject = `sweep${n}:${o.id}`;
  await h.drive(h.db.transaction((tx) => holdLateFunds(tx, subject, { id: o.id, trackingId: o.trackingId, sourceAssetId: 'usdc' }, 5_000n, mixerPayer)));
  return (await h.drive(h.db.query<{ id: string }>(`SELECT id::text AS id FROM screening_holds WHERE subject = $1`, [subject]))).rows[0]!.id;
}

const statusOf = async (trackingId: string) => (await h.drive(h.db.query<{ status: string }>(`SELECT status FROM orders WHERE tracking_id = $1`, [trackingId]))).rows[0]!.status;

describe('four eyes, attacked', () => {
  test("answering the late funds of a held order first does not make its sanctions-list finding one operator's release", async () => {
    const o = await heldOrder('deposit_confirmed', listedRecipient);
    const late = await lateHold(o, 1);
    // One operator's answers, each: a mixer's late funds refunded to the (clean) sender.
    expectOk(await rui.client.request('POST', `/admin/v1/holds/${late}/resolve`, { body: { action: 'refund', note: 'back to the sender' } }));
    const release = expectOk(await rui.client.request('POST', `/admin/v1/orders/${o.trackingId}/resolve`, { body: { action: 'release', note: 'alone' } }), 202);
    assert.equal(release.status, 'awaiting_approval', 'the listed recipient still takes a second operator');
    assert.equal(await statusOf(o.trackingId), 'held');
  });

  test('an order held on its way to a refund goes back to refunding when released, whatever late funds were found since', async () => {
    // Held at deposit on a listed recipient and refunded; held again at the refund (the sender could not be screened).
    const o = await heldOrder('refunding', { stage: 'refund', result: 'error', field: 'senderAddress', address: 'Sender1111', list: null, version: null, reason: 'timeout' });
    await lateHold(o, 2);
    const released = expectOk(await rui.client.request('POST', `/admin/v1/orders/${o.trackingId}/resolve`, { body: { action: 'release', note: 'the provider answers again' } }));
    assert.equal(released.status, 'refunding', 'a refund goes on as a refund, never on to the payout');
    assert.equal(await statusOf(o.trackingId), 'refunding');
  });

  test("a listed payer's late funds are not refunded on one operator's word; a listed recipient's order is", async () => {
    const o = await heldOrder('deposit_confirmed', listedRecipient);
    // The recipient is the listed party: the deposit goes back where it came from, one operator's decision.
    assert.equal(expectOk(await rui.client.request('POST', `/admin/v1/orders/${o.trackingId}/resolve`, { body: { action: 'refund', note: 'recipient sanctioned; sender clear' } })).status, 'refunding');
    const other = await heldOrder('deposit_confirmed', listedRecipient);
    const subject = `sweep9:${other.id}`;
    const listedPayer = { ...mixerPayer, list: 'sdn.csv', version: 'v1', reason: 'listed (SDN entry 36216)' };
    await h.drive(h.db.transaction((tx) => holdLateFunds(tx, subject, { id: other.id, trackingId: other.trackingId, sourceAssetId: 'usdc' }, 5_000n, listedPayer)));
    const late = (await h.drive(h.db.query<{ id: string }>(`SELECT id::text AS id FROM screening_holds WHERE subject = $1`, [subject]))).rows[0]!.id;
    // A listed payer's money sent on (to the sender) is money moved past a listing: two people.
    assert.equal(expectOk(await rui.client.request('POST', `/admin/v1/holds/${late}/resolve`, { body: { action: 'refund', note: 'back to the sender' } }), 202).status, 'awaiting_approval');
    assert.equal((await h.drive(h.db.query<{ status: string }>(`SELECT status FROM screening_holds WHERE id = $1`, [late]))).rows[0]!.status, 'held');
  });

  test("an answer a fee recipient's hold cannot take is refused when proposed, not left awaiting in the way of the release", async () => {
    const subject = 'payable:partner:acc_test:addrF';
    await h.drive(holdFeeRecipient(h.db, subject, 'usdc', 1_000_000n, { stage: 'fee', result: 'blocked', field: 'feeRecipientAddress', address: 'addrF', list: 'sdn.csv', version: 'v1', reason: 'listed' }));
    const hold = (await h.drive(h.db.query<{ id: string }>(`SELECT id::text AS id FROM screening_holds WHERE subject = $1`, [subject]))).rows[0]!.id;
    assert.equal(expectError(await rui.client.request('POST', `/admin/v1/holds/${hold}/resolve`, { body: { action: 'freeze', note: 'keep them' } }), 400, 'INVALID_REQUEST').details.field, 'action');
    expectOk(await rui.client.request('POST', `/admin/v1/holds/${hold}/resolve`, { body: { action: 'release', note: 'a namesake' } }), 202);
  });

  test('an answer weighed on one hold is not carried out on the next: released meanwhile and held again on a listing, the order stays held', async () => {
    const o = await heldOrder('deposit_confirmed', { stage: 'deposit', result: 'error', field: 'senderAddress', address: 'Sender1111', list: null, version: null, reason: 'timeout' });
    // Between Rui's answer being weighed (an unanswered check: his alone) and its being carried out, a colleague
    // releases the order and the payout's screening holds it again, on a listed recipient.
    class Racing extends HoldsService {
      private raced = false;
      override async resolve(trackingId: string, action: HoldAction, note: string, actor: string, opts: ResolveOptions = {}) {
        if (!this.raced) {
          this.raced = true;
          await super.resolve(trackingId, 'release', 'the provider answers again', 'operator:Bo (op_colleague)');
          assert.ok(await holdForScreening(h.db, o.id, 'deposit_confirmed', { ...listedRecipient, stage: 'payout' }, 'hush'));
        }
        return super.resolve(trackingId, action, note, actor, opts);
      }
    }
    const approvals = new ApprovalsService(h.db, new Racing(h.db, SCREENING_OFF));
    const by = { label: `operator:Rui (${rui.operatorId})`, operatorId: rui.operatorId, role: 'resolver' as const };
    await assert.rejects(h.drive(approvals.resolveOrder(o.trackingId, 'release', 'the provider answers again', by)), { code: 'ORDER_NOT_HELD' });
    assert.equal(await statusOf(o.trackingId), 'held', 'the listing waits for its own answer');
  });

  test('late funds released meanwhile and held again on a listing (the same hold id) are not released on an answer weighed before', async () => {
    const o = await heldOrder('deposit_confirmed', { stage: 'deposit', result: 'error', field: 'senderAddress', address: 'Sender2222', list: null, version: null, reason: 'timeout' });
    const late = await lateHold(o, 3);
    class Racing extends HoldsService {
      private raced = false;
      override async resolveFunds(holdId: string, action: HoldAction, note: string, actor: string, opts: ResolveOptions = {}) {
        if (!this.raced) {
          this.raced = true;
          await super.resolveFunds(holdId, 'release', 'a known exchange', 'operator:Bo (op_colleague)');
          assert.ok(await h.drive(reholdLateFunds(h.db, holdId, o.trackingId, { ...mixerPayer, reason: 'listed (SDN entry 1)', list: 'sdn.csv', version: 'v1' })));
        }
        return super.resolveFunds(holdId, action, note, actor, opts);
      }
    }
    const approvals = new ApprovalsService(h.db, new Racing(h.db, SCREENING_OFF));
    const by = { label: `operator:Rui (${rui.operatorId})`, operatorId: rui.operatorId, role: 'resolver' as const };
    await assert.rejects(h.drive(approvals.resolveFunds(late, 'release', 'a known exchange', by)), { code: 'ORDER_NOT_HELD' });
    assert.equal((await h.drive(h.db.query<{ status: string }>(`SELECT status FROM screening_holds WHERE id = $1`, [late]))).rows[0]!.status, 'held');
  });
});
