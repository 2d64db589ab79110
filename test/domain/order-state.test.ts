import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ORDER_STATUSES, STATUS, STATUS_HANDLING, STATUS_TRAITS, type OrderStatus, type StatusActor, canTransition, isFinal, isOrderStatus, nextStatuses } from '../../src/domain/order-state.ts';

// The whole docs/spec.md §5 table: row = from, columns in ORDER_STATUSES order, 1 = allowed.
//                          aw dd dc sw se co ex rf rd fa he fr
const TABLE: Record<OrderStatus, string> = {
  awaiting_deposit:  '0 1 0 0 0 0 1 0 0 1 0 0',
  deposit_detected:  '1 0 1 0 0 0 0 0 0 1 0 0',
  deposit_confirmed: '0 0 0 1 1 0 0 1 0 1 1 0',
  swapping:          '0 0 0 0 1 0 0 1 0 1 1 0',
  sending:           '0 0 0 0 0 1 0 1 0 1 1 0',
  completed:         '0 0 0 0 0 0 0 0 0 0 0 0',
  expired:           '0 0 0 0 0 0 0 0 0 0 0 0',
  refunding:         '0 0 0 0 0 0 0 0 1 1 1 0',
  refunded:          '0 0 0 0 0 0 0 0 0 0 0 0',
  failed:            '0 0 0 0 0 0 0 0 0 0 0 0',
  held:              '0 0 1 0 0 0 0 1 0 1 0 1',
  frozen:            '0 0 0 0 0 0 0 0 0 0 0 0',
};

describe('order states', () => {
  it('has exactly the docs/spec.md §5 statuses and final flags', () => {
    assert.deepEqual([...ORDER_STATUSES].sort(), Object.keys(TABLE).sort());
    const finals = ORDER_STATUSES.filter(isFinal);
    assert.deepEqual(finals.sort(), ['completed', 'expired', 'failed', 'frozen', 'refunded']);
    assert.ok(isOrderStatus('sending'));
    assert.ok(!isOrderStatus('cancelled'));
  });

  it('allows exactly the listed transitions (all 144 pairs)', () => {
    for (const from of ORDER_STATUSES) {
      const row = TABLE[from].split(' ');
      ORDER_STATUSES.forEach((to, i) => {
        assert.equal(canTransition(from, to), row[i] === '1', `${from} → ${to}`);
      });
      assert.deepEqual([...nextStatuses(from)].sort(), ORDER_STATUSES.filter((to) => canTransition(from, to)).sort());
    }
  });

  it('every non-final status can fail, no final status can move', () => {
    for (const s of ORDER_STATUSES) {
      assert.equal(canTransition(s, 'failed'), !isFinal(s), s);
      if (isFinal(s)) assert.equal(nextStatuses(s).length, 0);
    }
  });
});

describe('each status\'s handling', () => {
  it('names each status by itself', () => {
    for (const s of ORDER_STATUSES) assert.equal(STATUS[s], s);
  });

  it('lists every edge out of a status, and only ways along §5 (a move may pass one status)', () => {
    for (const from of ORDER_STATUSES) {
      const exits = Object.keys(STATUS_HANDLING[from].exits) as OrderStatus[];
      for (const to of nextStatuses(from)) assert.ok(exits.includes(to), `${from} → ${to} has no exit`);
      for (const to of exits) {
        const way = canTransition(from, to) || ORDER_STATUSES.some((via) => canTransition(from, via) && canTransition(via, to));
        assert.ok(way, `${from} → ${to} is no way along §5`);
      }
    }
  });

  it('has the order loop step exactly the statuses a worker claims, and names who else acts as the traits say', () => {
    const acts = (s: OrderStatus, actor: StatusActor) => STATUS_HANDLING[s].also.includes(actor);
    for (const s of ORDER_STATUSES) {
      const t = STATUS_TRAITS[s];
      const h = STATUS_HANDLING[s];
      assert.equal(h.step === null, t.final || t.operatorHold, s);
      assert.equal(acts(s, 'watchdog'), t.watchdogMayAct, `${s}: watchdog`);
      assert.equal(acts(s, 'deposit watch') && acts(s, 'deposit hint'), t.awaitsDeposit, `${s}: deposit watch and hint`);
      assert.equal(acts(s, 'class release'), t.awaitsPayout, `${s}: class release`);
      assert.equal(acts(s, 'operator'), t.operatorHold, `${s}: operator`);
      assert.equal(acts(s, 'receipt signer'), t.receipted, `${s}: receipt signer`);
      assert.equal(acts(s, 'settle fates'), h.step === 'advancePayout', `${s}: settle fates`);
    }
  });
});
