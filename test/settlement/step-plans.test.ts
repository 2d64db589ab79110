/**
 * The plans of the settlement steps that are a `Step` (claim → plan → commit) are pure: given what the
 * claim read, they decide without I/O. Here they run on hand-made reads; the steps' I/O is covered end
 * to end (partner-fees-late-deposits, sweep-rotation, watchdog, crash-safety).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Address } from '@solana/kit';
import type { AccountBalance } from '../../src/chain/chain-view.ts';
import { WRAPPED_SOL_RESERVE } from '../../src/domain/reserves.ts';
import type { LateCandidate } from '../../src/store/settlement/late-window.ts';
import type { UnsweptDeposit } from '../../src/store/settlement/sweepable.ts';
import { LateDeposits, type LateDepositsDeps } from '../../src/settlement/steps/late-deposits.ts';
import { Sweeps, type SweepDeps } from '../../src/settlement/steps/sweep.ts';
import { Watchdog, type WatchdogDeps } from '../../src/settlement/steps/watchdog.ts';

/** No part of the context is touched by a plan: every access throws. */
const untouchable = new Proxy({}, { get: (_, k) => assert.fail(`a plan touched ctx.${String(k)}`) });
const balance = (b: Partial<AccountBalance>): AccountBalance => ({ exists: true, lamports: 2_039_280n, tokenAmount: 0n, ...b });

test('late deposits: late funds are a token balance, or SOL above the reserve at a closed wrapped-SOL account; owners report their lamports', () => {
  const step = new LateDeposits({ db: null, view: null, log: () => {} } as unknown as LateDepositsDeps);
  const row = (id: string, asset: string): LateCandidate => ({ id, tracking_id: `t${id}`, deposit_account: `acct${id}` as Address, deposit_owner: `owner${id}` as Address, source_asset_id: asset });
  const rows = [row('1', 'usdc'), row('2', 'usdc'), row('3', 'sol'), row('4', 'sol'), row('5', 'usdc'), row('6', 'usdc')];
  const balances = new Map<string, AccountBalance>([
    ['acct1', balance({ tokenAmount: 5n })],
    ['acct2', balance({ tokenAmount: 0n })],
    // Closed (no token account) wrapped-SOL deposit addresses holding lamports: above the reserve, below it.
    ['acct3', balance({ tokenAmount: null, lamports: WRAPPED_SOL_RESERVE + 1n })],
    ['acct4', balance({ tokenAmount: null, lamports: WRAPPED_SOL_RESERVE })],
    // Not a token account, and not SOL: nothing to sweep.
    ['acct5', balance({ tokenAmount: null, lamports: 10n ** 9n })],
    ['owner2', balance({ lamports: 7n, tokenAmount: null })],
  ]);
  const asked: string[] = [];
  const native = (id: string) => (asked.push(id), id === 'sol');
  const plan = step.plan(rows, { balances, native });
  assert.deepEqual(
    plan.map((p) => [p.r.id, p.late, p.ownerLamports]),
    [
      ['1', true, 0n],
      ['2', false, 7n],
      ['3', true, 0n],
      ['4', false, 0n],
      ['5', false, 0n],
      // No balance read for the account (the read left it out): nothing late.
      ['6', false, 0n],
    ],
  );
  // The asset is looked up only where it decides something (an account that is not a token account).
  assert.deepEqual(asked, ['sol', 'sol', 'usdc']);
});

test('sweep: each deposit of the batch is swept whole, the part beyond its deposit marked extra; no token account is unsweepable, no balance is skipped', () => {
  const sweeps = new Sweeps(untouchable as SweepDeps, () => 0, 5000);
  const step = sweeps['assetStep']('usdc', 100n);
  const dep = (n: string, depositAmount: bigint): UnsweptDeposit => ({ orderId: n, trackingId: `t${n}`, depositAccount: `acct${n}` as Address, depositOwner: `owner${n}` as Address, sourceAssetId: 'usdc', depositAmount });
  const blockhash = { blockhash: 'bh', lastValidBlockHeight: 150n } as never;
  const balances = new Map<string, AccountBalance>([
    ['acct1', balance({ tokenAmount: 10n, lamports: 2_039_290n })],
    ['acct2', balance({ tokenAmount: 13n, lamports: 2_039_293n })],
    ['acct3', balance({ tokenAmount: null })],
  ]);
  const plan = step.plan([dep('1', 10n), dep('2', 10n), dep('3', 10n), dep('4', 10n)], { blockhash, balances }, Date.now());
  assert.equal(plan.assetId, 'usdc');
  assert.equal(plan.blockhash, blockhash);
  assert.deepEqual(
    plan.entries.map((e) => (e.unsweepable ? [e.b.orderId, 'unsweepable'] : [e.b.orderId, e.amount, e.extra, e.reserve])),
    [
      ['1', 10n, 0n, 2_039_280n],
      ['2', 13n, 3n, 2_039_280n],
      ['3', 'unsweepable'],
    ],
  );
});

test('watchdog: every stuck order is to fail with the status it was stuck in', () => {
  const dog = new Watchdog(untouchable as WatchdogDeps, 60_000, () => 0);
  const stuck = [
    { id: '1', trackingId: 't1', status: 'sending' },
    { id: '2', trackingId: 't2', status: 'deposit_confirmed' },
  ] as const;
  assert.deepEqual(
    dog.plan([...stuck]).map((p) => [p.id, p.status, p.failureReason]),
    [
      ['1', 'sending', 'stuck_in_sending'],
      ['2', 'deposit_confirmed', 'stuck_in_deposit_confirmed'],
    ],
  );
});
