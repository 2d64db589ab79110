/**
 * Crash safety (docs/spec.md §10), real processes, real chain, real store: Hush runs as a child process
 * (`node --import tsx src/cli/start.ts`, embedded chain and PGlite in a temp DATA_DIR) with HUSH_FAULT set
 * to one settlement step, so it SIGKILLs itself exactly there. The test drives an order to that step,
 * sees the process die by SIGKILL, checks on a copy of the crashed store that it died where intended,
 * restarts Hush on the same DATA_DIR without the fault, and proves:
 * - the order completes (or, for a short deposit, is refunded);
 * - the recipient's balance grows by exactly amountOut, credited by exactly the payout transactions;
 * - the store holds exactly one confirmed payout (refund) per part, nothing pending;
 * - the deposit is swept exactly once;
 * - GET /admin/v1/reconcile is clean once pending transactions have settled;
 * - a SIGTERM after that shuts Hush down cleanly (exit 0).
 * The scenarios run in parallel (most of each is spent waiting out the 30 s order lease the killed
 * process held; sweeps take no order lease, so the sweep scenarios finish sooner).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { generateKeyPairSigner, type Address } from '@solana/kit';
import type { FaultPoint } from '../../src/support/fault-points.ts';
import type { Db } from '../../src/store/db.ts';
import { HushClient } from '../support/hush-server.ts';
import { HIGH_RATE_LIMITS, spawnHush, waitForExit, type HushProcess } from '../support/hush-process.ts';
import { makeTempDir, removeDir } from '../support/localnet.ts';
import { sweptReconciledStopped, withCrashedStoreCopy, withStore } from '../support/crash-recovery.ts';
import {
  ASSETS,
  SOL,
  assertHistory,
  assertPaidOnce,
  ataOf,
  balanceOf,
  chainAt,
  chainTxRows,
  jsonish,
  newWallet,
  placeOrder,
  readDemoAccount,
  sendOwnDeposit,
  depositWithRefresh,
  successfulSignatures,
  waitForOrder,
  type AssetId,
} from '../support/settlement.ts';

interface Scenario {
  fault: FaultPoint;
  asset: AssetId;
  /** The sender deposits half of amountIn: the order is refunded. */
  short?: boolean;
  /** Environment of the first life only (the second runs with the defaults). */
  env?: Record<string, string>;
  /** What the crashed store must show (read from a copy, so Hush recovers the original itself). */
  atCrash(s: CrashState): void;
}

interface CrashState {
  status: string;
  payouts: { status: string }[];
  refunds: { status: string }[];
  /** Sweeps whose items include this order's deposit account. */
  sweeps: { status: string }[];
  ledgerDeposit: boolean;
}

const SCENARIOS: Scenario[] = [
  {
    fault: 'deposit-confirmed',
    asset: 'sol',
    // With no privacy delay a deposit's confirmation and its payout are one statement (nothing to crash
    // between): a delay makes the order stop at deposit_confirmed, its payout due a second later.
    env: { HUSH_PAYOUT_DELAY_S: '1-1' },
    atCrash: (s) => {
      assert.equal(s.status, 'deposit_confirmed');
      assert.equal(s.payouts.length, 0, 'nothing paid yet');
      assert.ok(s.ledgerDeposit, 'the deposit is on the ledger');
    },
  },
  {
    fault: 'payout-recorded',
    asset: 'usdc',
    atCrash: (s) => {
      assert.equal(s.status, 'sending');
      assert.ok(s.payouts.length >= 1 && s.payouts.every((p) => p.status === 'pending'), 'payout recorded, never sent');
    },
  },
  {
    fault: 'payout-sent',
    asset: 'sol',
    atCrash: (s) => {
      assert.equal(s.status, 'sending');
      assert.ok(s.payouts.length >= 1 && s.payouts.every((p) => p.status === 'pending'), 'payout sent, fate unknown');
    },
  },
  {
    fault: 'payout-confirmed',
    asset: 'usdc',
    atCrash: (s) => {
      assert.equal(s.status, 'sending', 'landed but not yet marked completed');
      assert.ok(s.payouts.length >= 1 && s.payouts.every((p) => p.status === 'confirmed'));
    },
  },
  {
    fault: 'sweep-recorded',
    asset: 'sol',
    atCrash: (s) => assert.deepEqual(s.sweeps.map((x) => x.status), ['pending'], 'sweep recorded, never sent'),
  },
  {
    fault: 'sweep-sent',
    asset: 'usdc',
    atCrash: (s) => assert.deepEqual(s.sweeps.map((x) => x.status), ['pending'], 'sweep sent, fate unknown'),
  },
  {
    fault: 'refund-recorded',
    asset: 'usdc',
    short: true,
    atCrash: (s) => {
      assert.equal(s.status, 'refunding');
      assert.ok(s.refunds.length >= 1 && s.refunds.every((r) => r.status === 'pending'), 'refund recorded, never sent');
      assert.equal(s.payouts.length, 0);
    },
  },
];

/**
 * All scenarios at once: most of each is spent waiting out the 30 s order lease its killed process held,
 * and those waits overlap; the CPU the Hush processes need (mostly start-up) is the same in any order.
 */
const CONCURRENCY = 7;

async function crashState(db: Db, trackingId: string, depositAccount: string): Promise<CrashState> {
  const { rows } = await db.query<{ status: string }>('SELECT status FROM orders WHERE tracking_id = $1', [trackingId]);
  const sweeps = await db.query<{ status: string }>(
    `SELECT status FROM chain_txs WHERE kind = 'sweep' AND meta -> 'items' @> jsonb_build_array(jsonb_build_object('depositAccount', $1::text)) ORDER BY id`,
    [depositAccount],
  );
  const ledger = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ledger_entries WHERE account = $1`, [`deposit:${depositAccount}`]);
  return {
    status: rows[0]!.status,
    payouts: await chainTxRows(db, trackingId, 'payout'),
    refunds: await chainTxRows(db, trackingId, 'refund'),
    sweeps: sweeps.rows,
    ledgerDeposit: ledger.rows[0]!.n > 0,
  };
}

async function run(s: Scenario, diag: (msg: string) => void) {
  const dataDir = makeTempDir(`hush-crash-${s.fault}-`);
  const adminToken = randomBytes(32).toString('base64url');
  const env = {
    DATA_DIR: dataDir,
    PORT: '0',
    LOCALNET_PORT: '0',
    LOCALNET_SLOT_MS: '200',
    
    
    HUSH_SWEEP_INTERVAL_S: '1',
    HUSH_ADMIN_TOKEN: adminToken,
    HUSH_RATE_LIMITS: HIGH_RATE_LIMITS,
  };
  let second: HushProcess | undefined;
  try {
    // ---- first life: runs until the fault point kills it
    const started = Date.now();
    const first = await spawnHush({ ...env, ...s.env, HUSH_FAULT: s.fault }, { label: `${s.fault}, first life` });
    diag(`${s.fault}: first life up after ${Date.now() - started} ms`);
    const demo = readDemoAccount(dataDir);
    let chain = chainAt(first.chainUrl);
    const asset = ASSETS[s.asset];
    const amount = s.asset === 'sol' ? 150_000_000n : 20_000_000n;
    const sender = asset.native ? await newWallet(chain, { sol: 2n * SOL }) : await newWallet(chain, { sol: SOL, tokens: { [s.asset]: amount * 2n } });
    const recipient: Address = (await generateKeyPairSigner()).address;
    const placed = await placeOrder(new HushClient(first.url!, demo.apiKey), {
      amount: amount.toString(),
      sourceAssetId: s.asset,
      destinationAssetId: s.asset,
      senderAddress: sender.address,
      recipientAddress: recipient,
    });
    const deposited = s.short ? placed.amountIn / 2n : placed.amountIn;
    diag(`${s.fault}: order placed ${Date.now() - started} ms after start`);
    const senderTokensBefore = asset.native ? null : await balanceOf(chain, sender.address, asset);
    if (s.short) await sendOwnDeposit(chain, placed, sender, asset, deposited);
    else await depositWithRefresh(new HushClient(first.url!, demo.apiKey), chain, placed, sender);

    const death = await waitForExit(first, 90_000, `${s.fault}: the fault point`);
    assert.equal(death.signal, 'SIGKILL', `killed itself at ${s.fault} (exit ${jsonish(death)}):\n${first.output().slice(-3000)}`);
    diag(`${s.fault}: died by SIGKILL ${Date.now() - started} ms after start`);

    // ---- the crashed store, inspected on a copy (the original is for Hush to recover)
    const state = await withCrashedStoreCopy(dataDir, (db) => crashState(db, placed.trackingId, placed.depositAccount));
    diag(`${s.fault}: at the crash ${jsonish(state)}`);
    s.atCrash(state);

    // ---- second life: same DATA_DIR, no fault
    second = await spawnHush(env, { label: `${s.fault}, second life` });
    chain = chainAt(second.chainUrl);
    const client = new HushClient(second.url!, demo.apiKey);
    const expected = s.short ? 'refunded' : 'completed';
    const rec = await waitForOrder(client, placed.trackingId, [expected], 90_000);
    diag(`${s.fault}: ${expected} ${Date.now() - started} ms after the first start`);
    const recipientHolding = asset.native ? recipient : await ataOf(recipient, asset.mint);
    if (s.short) {
      assertHistory(rec, ['awaiting_deposit', 'deposit_detected', 'deposit_confirmed', 'refunding', 'refunded']);
      const refund = deposited - placed.networkFee;
      assert.equal(rec.refund.amount, refund.toString());
      assert.equal(rec.refund.reason, 'deposit_short');
      assert.equal(senderTokensBefore! - (await balanceOf(chain, sender.address, asset))!, deposited - refund, 'the sender got the refund exactly once');
      assert.deepEqual(await successfulSignatures(chain, recipientHolding), [], 'the recipient got nothing');
    } else {
      assertHistory(rec, ['awaiting_deposit', 'deposit_detected', 'deposit_confirmed', 'sending', 'completed']);
      assert.equal((await balanceOf(chain, recipient, asset)) ?? 0n, placed.amountOut, 'recipient balance delta == amountOut exactly');
      const credited = await successfulSignatures(chain, recipientHolding);
      assert.deepEqual(credited.sort(), rec.payouts.map((p: any) => p.signature).sort(), 'only the payout transactions credited the recipient');
    }

    // Pending transactions settle, the deposit is swept, and the ledger matches the chain.
    await sweptReconciledStopped(second, chain, [placed.depositAccount], adminToken, s.fault);
    second = undefined;

    // ---- the store after the fact: exactly once
    await withStore(dataDir, async (db) => {
      if (s.short) {
        await assertPaidOnce(db, placed.trackingId, 'refund', deposited - placed.networkFee);
        assert.deepEqual(await chainTxRows(db, placed.trackingId, 'payout'), []);
      } else {
        const rows = await assertPaidOnce(db, placed.trackingId, 'payout', placed.amountOut);
        assert.deepEqual(rows.map((r) => r.signature).sort(), rec.payouts.map((p: any) => p.signature).sort());
      }
      const state = await crashState(db, placed.trackingId, placed.depositAccount);
      assert.equal(state.sweeps.filter((x) => x.status === 'confirmed').length, 1, `swept exactly once: ${jsonish(state.sweeps)}`);
      const pending = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM chain_txs WHERE status = 'pending'`);
      assert.equal(pending.rows[0]!.n, 0, 'nothing left pending');
    });
  } finally {
    await second?.stop('SIGKILL');
    removeDir(dataDir);
  }
}

describe('crash safety: SIGKILL at every settlement step, restart on the same DATA_DIR', { concurrency: CONCURRENCY }, () => {
  for (const s of SCENARIOS) {
    test(`HUSH_FAULT=${s.fault} (${s.asset}${s.short ? ', short deposit' : ''})`, { timeout: 300_000 }, async (t) => {
      await run(s, (m) => t.diagnostic(m));
    });
  }
});
