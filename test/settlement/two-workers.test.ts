/**
 * Scaled out (SPEC §1): two Hush processes on one PostgreSQL schema and one separately started local
 * chain — A with HUSH_ROLE=all (API + worker), B with HUSH_ROLE=worker — sharing DATABASE_URL,
 * DATABASE_SCHEMA, TREASURY_SEED and SOLANA_RPC_URL. Several orders are in flight when B is SIGKILLed
 * mid-run (HUSH_FAULT=payout-recorded: right after it recorded a signed payout it never sent, holding
 * that order's lease). Every order must still complete exactly once: recipient balance == amountOut,
 * one confirmed payout per part in chain_txs, only the payouts credited the recipient, every deposit
 * swept, and reconcile clean. Skipped, with the reason, when PostgreSQL is unreachable.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, describe, test } from 'node:test';
import { generateKeyPairSigner, type Address, type KeyPairSigner } from '@solana/kit';
import pg from 'pg';
import { dropSchema, newSchemaName, POSTGRES_URL, postgresSkipReason } from '../support/databases.ts';
import { HushClient } from '../support/hush-server.ts';
import { HIGH_RATE_LIMITS, spawnHush, type HushProcess } from '../support/hush-process.ts';
import { makeTempDir, pollUntil, removeDir, sleep, spawnLocalnet, type ChildLocalnet } from '../support/localnet.ts';
import {
  ASSETS,
  SOL,
  accountExists,
  assertHistory,
  assertPaidOnce,
  ataOf,
  balanceOf,
  chainAt,
  depositWithRefresh,
  jsonish,
  newWallet,
  placeOrder,
  successfulSignatures,
  waitForCleanReconcile,
  waitForOrder,
  type AssetId,
  type Chain,
  type PlacedOrder,
} from '../support/settlement.ts';
import type { Queryable } from '../../src/store/db.ts';

const SLOT_MS = 200;
const BATCH = 8;

describe('two workers on one PostgreSQL, one SIGKILLed mid-run', { skip: postgresSkipReason ? `skipped: ${postgresSkipReason}` : false }, () => {
  const dirs: string[] = [];
  const procs: HushProcess[] = [];
  let localnet: ChildLocalnet | undefined;
  let schema: string | undefined;
  let pool: pg.Pool | undefined;

  after(async () => {
    for (const p of procs) await p.stop('SIGKILL');
    await localnet?.stop('SIGKILL');
    await pool?.end();
    if (schema) await dropSchema(schema).catch(() => {});
    for (const d of dirs) removeDir(d);
  });

  test('every order completes exactly once and reconcile is clean', { timeout: 240_000 }, async (t) => {
    const started = Date.now();
    const diag = (m: string) => t.diagnostic(`${((Date.now() - started) / 1000).toFixed(1)} s: ${m}`);
    const chainDir = makeTempDir('hush-2w-chain-');
    dirs.push(chainDir);
    localnet = await spawnLocalnet({ dataDir: chainDir, slotMs: SLOT_MS });
    const chain: Chain = chainAt(localnet.url);
    schema = newSchemaName();
    const adminToken = `adm_${randomBytes(24).toString('base64url')}`;
    const common = {
      DATABASE_URL: POSTGRES_URL,
      DATABASE_SCHEMA: schema,
      TREASURY_SEED: randomBytes(32).toString('hex'),
      SOLANA_RPC_URL: localnet.url,
      LOCALNET_SLOT_MS: String(SLOT_MS),
      HUSH_PRIVACY: 'off',
      HUSH_PAYOUT_DELAY_S: '0-3',
      HUSH_SWEEP_INTERVAL_S: '1',
      HUSH_ADMIN_TOKEN: adminToken,
      HUSH_RATE_LIMITS: HIGH_RATE_LIMITS,
      PORT: '0',
    };
    const dataA = makeTempDir('hush-2w-a-');
    const dataB = makeTempDir('hush-2w-b-');
    dirs.push(dataA, dataB);
    const [a, b] = await Promise.all([
      spawnHush({ ...common, HUSH_ROLE: 'all', DATA_DIR: dataA }, { label: 'A, role all' }),
      spawnHush({ ...common, HUSH_ROLE: 'worker', DATA_DIR: dataB, HUSH_FAULT: 'payout-recorded' }, { label: 'B, role worker' }),
    ]);
    procs.push(a, b);
    assert.ok(a.url, 'A serves the API');
    assert.equal(b.url, null, 'B runs no API');
    assert.equal(a.chainUrl, localnet.url);
    assert.equal(b.chainUrl, localnet.url);
    diag('A and B started');
    pool = new pg.Pool({ connectionString: POSTGRES_URL, max: 2, options: `-c search_path=${schema}` });
    const db: Queryable = {
      query: async (sql, params) => {
        const r = await pool!.query(sql, params as unknown[]);
        return { rows: r.rows, rowCount: r.rowCount ?? 0 };
      },
    };

    // A partner account through the admin API (no demo account when the chain is external).
    const created = await fetch(`${a.url}/admin/v1/accounts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'two-workers' }),
    });
    assert.equal(created.status, 201, await created.clone().text());
    const client = new HushClient(a.url!, ((await created.json()) as { apiKey: string }).apiKey);

    const solSender = await newWallet(chain, { sol: 20n * SOL });
    const usdcSender = await newWallet(chain, { sol: SOL, tokens: { usdc: 1_000_000_000n } });
    const orders: { placed: PlacedOrder; recipient: Address; asset: AssetId }[] = [];

    async function batch(n: number) {
      const list = await Promise.all(
        Array.from({ length: BATCH }, async (_, i) => {
          const asset: AssetId = i % 2 === 0 ? 'sol' : 'usdc';
          const sender: KeyPairSigner = asset === 'sol' ? solSender : usdcSender;
          const recipient = (await generateKeyPairSigner()).address;
          const amount = asset === 'sol' ? 50_000_000n + BigInt(n * BATCH + i) * 1_000_000n : 5_000_000n + BigInt(n * BATCH + i) * 100_000n;
          const placed = await placeOrder(client, {
            amount: amount.toString(),
            sourceAssetId: asset,
            destinationAssetId: asset,
            senderAddress: sender.address,
            recipientAddress: recipient,
            mode: i % 4 < 2 ? 'exact_in' : 'exact_out',
          });
          await depositWithRefresh(client, chain, placed, sender);
          return { placed, recipient, asset };
        }),
      );
      orders.push(...list);
      return list;
    }

    // Batches of orders until B has died at its fault point (each order's payout is made by whichever
    // worker claims it first, so B may need more than one batch to get one).
    let died: { code: number | null; signal: NodeJS.Signals | null } | null = null;
    for (let n = 0; n < 3 && !died; n++) {
      const list = await batch(n);
      diag(`batch ${n}: ${list.length} orders deposited`);
      // Until B dies, or every order of the batch is final without B ever reaching its fault point.
      const deadline = Date.now() + 60_000;
      for (;;) {
        if (b.proc.exitCode !== null || b.proc.signalCode !== null) {
          died = await b.exited;
          break;
        }
        const recs = await Promise.all(list.map(async (o) => (await client.status(o.placed.trackingId)).body.order));
        if (recs.every((r) => r.final)) break;
        assert.ok(Date.now() < deadline, `batch ${n} neither finished nor killed B: ${jsonish(recs.map((r) => r.status))}`);
        await sleep(250);
      }
    }
    assert.ok(died, `B never reached its fault point in 3 batches:\n${b.output().slice(-3000)}`);
    assert.equal(died.signal, 'SIGKILL', `B died by SIGKILL: ${jsonish(died)}`);
    const inFlight = await db.query<{ status: string; n: number }>(`SELECT status, count(*)::int AS n FROM orders GROUP BY status ORDER BY status`);
    diag(`B killed itself after recording a payout; orders then: ${jsonish(inFlight.rows)}`);
    // The batched path records the payouts, moves their orders to sending and releases them in one
    // statement before the fault point, so A may already have resent B's recorded transaction (same
    // signature) and completed the order by now: a payout is in flight, or already landed through A.
    assert.ok(
      inFlight.rows.some((r) => (r.status === 'sending' || r.status === 'completed') && r.n > 0),
      'B died with a recorded payout: its order is sending, or A already resent it',
    );

    // A alone finishes everything (B's order once B's lease runs out).
    for (const o of orders) {
      const rec = await waitForOrder(client, o.placed.trackingId, ['completed'], 90_000);
      assertHistory(rec, ['awaiting_deposit', 'deposit_detected', 'deposit_confirmed', 'sending', 'completed']);
      assert.equal((await balanceOf(chain, o.recipient, ASSETS[o.asset])) ?? 0n, o.placed.amountOut, `${o.placed.trackingId}: recipient got exactly amountOut`);
      const rows = await assertPaidOnce(db, o.placed.trackingId, 'payout', o.placed.amountOut);
      assert.deepEqual(rows.map((r) => r.signature).sort(), rec.payouts.map((p: any) => p.signature).sort());
      const holding = ASSETS[o.asset].native ? o.recipient : await ataOf(o.recipient, ASSETS[o.asset].mint);
      assert.deepEqual((await successfulSignatures(chain, holding)).sort(), rows.map((r) => r.signature).sort(), `${o.placed.trackingId}: only its payouts credited the recipient`);
    }
    diag(`all ${orders.length} orders completed`);

    await pollUntil(async () => (await Promise.all(orders.map((o) => accountExists(chain, o.placed.depositAccount)))).every((x) => !x), {
      timeoutMs: 30_000,
      intervalMs: 250,
      what: 'every deposit swept',
    });
    // The account can be gone on chain a moment before the worker marks its sweep confirmed.
    const confirmedSweeps = async () =>
      (await db.query<{ items: { depositAccount: string }[] }>(`SELECT meta -> 'items' AS items FROM chain_txs WHERE kind = 'sweep' AND status = 'confirmed'`)).rows.flatMap((r) =>
        r.items.map((i) => i.depositAccount),
      );
    await pollUntil(async () => { const done = new Set(await confirmedSweeps()); return orders.every((o) => done.has(o.placed.depositAccount)); }, {
      timeoutMs: 30_000,
      intervalMs: 250,
      what: 'every sweep marked confirmed',
    });
    const sweptAccounts = await confirmedSweeps();
    for (const o of orders) assert.equal(sweptAccounts.filter((d) => d === o.placed.depositAccount).length, 1, `${o.placed.trackingId}: swept exactly once`);
    const report = await waitForCleanReconcile(a.url!, adminToken, 30_000);
    assert.equal(report.ok, true);
    diag('reconcile clean');

    assert.deepEqual(await a.stop('SIGTERM'), { code: 0, signal: null }, 'A shuts down cleanly');
  });
});
