/**
 * Funds sent to an order's deposit owner outside its deposit account (another mint, a second account of
 * the deposit's mint, wrapped SOL in a second account, SOL to the owner's own address) are returned to
 * the order's sender by the operator's `return-stray`, on a simulated Hush (test/support/sim-hush.ts): every
 * base unit and every lamport of rent, exactly once, with the fee payer's costs on the ledger (reconcile stays
 * clean).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Address } from '@solana/kit';
import { getCreateAccountInstruction } from '@solana-program/system';
import { getInitializeAccount3Instruction, getTransferCheckedInstruction } from '@solana-program/token';
import { runAdminCli } from '../../src/cli/admin-cli.ts';
import { computeUnitPriceOfWire } from '../../src/chain/wire-price.ts';
import { LEVEL_RULES } from '../../src/domain/fee-estimate.ts';
import { OWNERS_PER_PASS } from '../../src/settlement/steps/stray-funds.ts';
import { randomSignature } from '../support/hush-server.ts';
import { closeSim } from '../support/sim-close.ts';
import { startSimHush, withSimFetch, type SimAccount, type SimHush, type SimWallet } from '../support/sim-hush.ts';
import { ata, cleanReconcile, logLines, SETTLEMENT_ENV, signerAt, SimChain, type SimSigner } from '../support/sim-settlement.ts';
import { ASSETS, SOL, TOKEN_ACCOUNT_SIZE, TOKEN_PROGRAM, placeOrder, type PlacedOrder } from '../support/settlement.ts';

describe('stray funds at a deposit owner', () => {
  let h: SimHush;
  let acct: SimAccount;
  let cs: SimChain;
  let sender: SimWallet;
  let rent: bigint;
  let logged: string[];

  before(async () => {
    h = await startSimHush({ seed: 47, env: { ...SETTLEMENT_ENV } });
    logged = logLines(h);
    acct = await h.createAccount();
    cs = new SimChain(h);
    sender = await cs.wallet({ sol: 5n * SOL, tokens: { usdc: 500_000_000n } });
    rent = await cs.rent(TOKEN_ACCOUNT_SIZE);
  });
  after(() => closeSim(h));

  /** Waits for `n` whole late-deposit passes that start from now (the one in progress may predate it). */
  const morePasses = async (n: number) => {
    const target = h.hush.worker!.latePasses + n + 1;
    await h.until(`${n} more late-deposit passes`, async () => h.hush.worker!.latePasses >= target, 600_000, 1_000);
  };
  const returnStray = async (trackingId: string) => {
    const res = await h.ops.post(`/admin/v1/orders/${trackingId}/return-stray`);
    return { status: res.status, body: res.body as any };
  };
  const send = (ixs: Parameters<SimChain['tx']>[1], others: SimSigner[] = []) => cs.run(sender, ixs, others);
  const airdrop = async (to: string, lamports: bigint) => cs.succeeded([await h.drive(h.chain.airdrop(to, lamports))]);
  /** A plain (non-associated) token account of `owner` for `mint`, created by the sender with `extraLamports` on top of rent. */
  const secondAccount = async (owner: Address, mint: Address, extraLamports = 0n): Promise<Address> => {
    const account = cs.keypair();
    await send([
      getCreateAccountInstruction({ payer: signerAt(sender.address), newAccount: signerAt(account.address), lamports: rent + extraLamports, space: TOKEN_ACCOUNT_SIZE, programAddress: TOKEN_PROGRAM }),
      getInitializeAccount3Instruction({ account: account.address as Address, mint, owner }),
    ], [account]);
    return account.address as Address;
  };
  const place = (): Promise<PlacedOrder> =>
    placeOrder(acct.client, { amount: '20000000', sourceAssetId: 'usdc', destinationAssetId: 'usdc', senderAddress: sender.address as Address, recipientAddress: h.address() });
  const depositAndComplete = async (placed: PlacedOrder) => {
    await h.deposit(placed.order, sender);
    await h.waitForOrder(acct.client, placed.trackingId, ['completed']);
  };

  test('every stray holding goes back to the sender once; the deposit itself settles as usual; reconcile stays clean', async () => {
    const placed = await place();
    const owner = placed.depositOwner;
    await h.deposit(placed.order, sender);

    // Another mint (the faucet creates the owner's BONK account), wallet SOL, the deposit's own mint in a
    // second account, and wrapped SOL in a second account.
    await cs.succeeded([await h.drive(h.chain.tokenAirdrop(owner, ASSETS.bonk.mint, 7n))]);
    await airdrop(owner, 1_000_000n);
    const usdcSecond = await secondAccount(owner, ASSETS.usdc.mint);
    await send([getTransferCheckedInstruction({ source: ata(sender.address, ASSETS.usdc.mint), mint: ASSETS.usdc.mint, destination: usdcSecond, authority: signerAt(sender.address), amount: 3_000_000n, decimals: 6 })]);
    const wsolSecond = await secondAccount(owner, ASSETS.sol.mint, 5_000_000n);
    const empty = await secondAccount(owner, ASSETS.usdc.mint); // holds nothing but its rent
    await h.waitForOrder(acct.client, placed.trackingId, ['completed']);

    const before = { sol: await cs.lamports(sender.address), usdc: (await cs.balance(sender.address, ASSETS.usdc))!, bonk: await cs.balance(sender.address, ASSETS.bonk) };
    assert.equal(before.bonk, null, 'the sender has no BONK account yet');
    const r = await returnStray(placed.trackingId);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.to, sender.address);
    assert.equal(r.body.depositOwner, owner);
    const byAccount = new Map<string, any>(r.body.returns.map((l: any) => [l.account, l]));
    const bonkAccount = ata(owner, ASSETS.bonk.mint);
    assert.deepEqual([...byAccount.keys()].sort(), [bonkAccount, owner, usdcSecond, wsolSecond, empty].sort(), 'the deposit account itself is never a stray');
    for (const l of r.body.returns) assert.equal(l.status, 'confirmed', JSON.stringify(l));
    assert.deepEqual({ mint: byAccount.get(bonkAccount).mint, amount: byAccount.get(bonkAccount).amount }, { mint: ASSETS.bonk.mint, amount: '7' });
    assert.deepEqual({ mint: byAccount.get(owner).mint, amount: byAccount.get(owner).amount }, { mint: 'native', amount: '1000000' });
    assert.deepEqual({ mint: byAccount.get(usdcSecond).mint, amount: byAccount.get(usdcSecond).amount }, { mint: ASSETS.usdc.mint, amount: '3000000' });
    assert.deepEqual({ mint: byAccount.get(wsolSecond).mint, amount: byAccount.get(wsolSecond).amount }, { mint: ASSETS.sol.mint, amount: String(rent + 5_000_000n) });
    assert.deepEqual({ mint: byAccount.get(empty).mint, amount: byAccount.get(empty).amount }, { mint: ASSETS.usdc.mint, amount: '0' });

    // The sender gets the tokens, the wallet SOL, the wrapped SOL and the rent of the closed accounts of
    // mints it already held (second USDC, empty USDC). Its new BONK account is Hush's fee payer's, which
    // takes the closed BONK account's rent in return: dust of a throwaway mint costs Hush no rent.
    assert.equal(await cs.balance(sender.address, ASSETS.bonk), 7n);
    assert.equal((await cs.balance(sender.address, ASSETS.usdc))! - before.usdc, 3_000_000n);
    assert.equal((await cs.lamports(sender.address)) - before.sol, 1_000_000n + (rent + 5_000_000n) + rent + rent);
    assert.equal(await cs.lamports(owner), 0n);
    const { value } = await h.drive(cs.chain.rpc.getTokenAccountsByOwner(owner, { programId: TOKEN_PROGRAM }, { commitment: 'confirmed', encoding: 'base64' }).send());
    assert.deepEqual(
      value.map((v) => v.pubkey).filter((a) => a !== placed.depositAccount),
      [],
      'every stray account is closed; the deposit account is left to its sweep',
    );

    // Nothing left: a second run returns nothing and sends nothing.
    const again = await returnStray(placed.trackingId);
    assert.deepEqual(again.body.returns, []);
    // The fee payer's fees are booked: the ledger still matches the chain.
    await cleanReconcile(h);
    const { rows: bonkLegs } = await h.drive(h.db.query<{ amount: string }>(
      `SELECT l.amount::text FROM ledger_entries l JOIN chain_txs c ON l.movement = 'tx:' || c.signature || ':cost'
       WHERE c.source = $1 AND c.kind = 'stray_return' AND l.account LIKE 'feepayer:%'`,
      [bonkAccount],
    ));
    const fee = await h.drive(h.db.query<{ fee: string }>(`SELECT fee_lamports::text AS fee FROM chain_txs WHERE source = $1 AND kind = 'stray_return'`, [bonkAccount]));
    assert.deepEqual(bonkLegs.map((r) => BigInt(r.amount)), [-BigInt(fee.rows[0]!.fee)], 'the BONK return cost the fee payer its fee only');
    const { rows } = await h.drive(h.db.query<{ status: string; n: string | number }>(
      `SELECT c.status, count(*) AS n FROM chain_txs c JOIN orders o ON o.id = c.order_id WHERE o.tracking_id = $1 AND c.kind = 'stray_return' GROUP BY c.status`,
      [placed.trackingId],
    ));
    assert.deepEqual(rows.map((x) => [x.status, Number(x.n)]), [['confirmed', 5]], 'recorded, and settled by the worker');
    // Priced from the market as a late refund is (a calm chain: the medium level's floor), not the static price.
    const { rows: wires } = await h.drive(h.db.query<{ wire: string }>(`SELECT c.wire FROM chain_txs c JOIN orders o ON o.id = c.order_id WHERE o.tracking_id = $1 AND c.kind = 'stray_return'`, [placed.trackingId]));
    for (const { wire } of wires) {
      const price = computeUnitPriceOfWire(wire)!;
      assert.ok(price >= LEVEL_RULES.medium.floor && price < h.config.computeUnitPriceMicroLamports, `a stray return at ${price} micro-lamports per CU: the calm market's, not the static ${h.config.computeUnitPriceMicroLamports}`);
    }
  });

  test('two returns at once pay once; one in flight holds its account back; the CLI reaches it through the admin API; an unknown order is NOT_FOUND', async () => {
    const placed = await place();
    await airdrop(placed.depositOwner, 2_000_000n);
    const before = await cs.lamports(sender.address);
    const [a, b] = await Promise.all([returnStray(placed.trackingId), returnStray(placed.trackingId)]);
    const lines = [...a.body.returns, ...b.body.returns];
    assert.equal(lines.filter((l: any) => l.status === 'confirmed').length, 1, JSON.stringify(lines));
    assert.equal((await cs.lamports(sender.address)) - before, 2_000_000n, 'returned exactly once');

    let stdout = '';
    let stderr = '';
    // The CLI's HTTP mode, its requests reaching the simulated ops listener (the socket itself is the CLI process tests').
    const env = { HUSH_ADMIN_TOKEN: h.world.adminToken, HUSH_OPS_URL: 'http://ops.sim', DATA_DIR: '/nonexistent' };
    const code = await withSimFetch(h, () => runAdminCli(['return-stray', placed.trackingId], env, { out: (t) => (stdout += t), err: (t) => (stderr += t) }));
    assert.equal(code, 0, stderr);
    assert.deepEqual(JSON.parse(stdout), { success: true, trackingId: placed.trackingId, depositOwner: placed.depositOwner, to: sender.address, returns: [] });

    // An earlier return of an account still pending (here a stand-in that can never land): that account is
    // left alone, in_flight, until it settles; then a run returns it.
    await airdrop(placed.depositOwner, 3_000_000n);
    const stand = randomSignature();
    await h.drive(h.db.query(
      `INSERT INTO chain_txs (kind, order_id, asset_id, amount, source, destination, signature, wire, last_valid_block_height, status, created_at, updated_at)
       SELECT 'stray_return', id, 'sol', 3000000, deposit_owner, sender, $2, 'AA==', 9000000000, 'pending', now(), now() FROM orders WHERE tracking_id = $1`,
      [placed.trackingId, stand],
    ));
    const held = await returnStray(placed.trackingId);
    assert.deepEqual(held.body.returns.map((l: any) => [l.account, l.status]), [[placed.depositOwner, 'in_flight']]);
    assert.equal(await cs.lamports(placed.depositOwner), 3_000_000n, 'nothing sent while one is in flight');
    await h.drive(h.db.query('UPDATE chain_txs SET last_valid_block_height = 0 WHERE signature = $1', [stand]));
    await h.until('the stand-in to expire', async () => (await h.db.query(`SELECT 1 FROM chain_txs WHERE signature = $1 AND status = 'expired'`, [stand])).rows.length > 0, 60_000);
    const freed = await returnStray(placed.trackingId);
    assert.deepEqual(freed.body.returns.map((l: any) => [l.account, l.status, l.amount]), [[placed.depositOwner, 'confirmed', '3000000']]);

    const missing = await returnStray('trk_1111111111111111111111');
    assert.equal(missing.status, 404);
    assert.equal(missing.body.error.code, 'NOT_FOUND');
    await cleanReconcile(h);
  });

  test('with no worker running (the CLI while Hush is stopped), a later run settles the returns that landed and returns new funds of the same account', async () => {
    const placed = await place();
    const worker = h.hush.worker!;
    await h.drive(worker.stop());
    try {
      const status = async () =>
        (await h.drive(h.db.query<{ status: string }>(`SELECT c.status FROM chain_txs c JOIN orders o ON o.id = c.order_id WHERE o.tracking_id = $1 AND c.kind = 'stray_return' ORDER BY c.id`, [placed.trackingId]))).rows.map((r) => r.status);
      await airdrop(placed.depositOwner, 2_000_000n);
      const first = await returnStray(placed.trackingId);
      assert.deepEqual(first.body.returns.map((l: any) => [l.status, l.amount]), [['confirmed', '2000000']]);
      assert.deepEqual(await status(), ['pending'], 'landed, and nobody has settled it');
      await airdrop(placed.depositOwner, 1_500_000n);
      const before = await cs.lamports(sender.address);
      const second = await returnStray(placed.trackingId);
      assert.deepEqual(second.body.returns.map((l: any) => [l.status, l.amount]), [['confirmed', '1500000']], 'not held back by the landed one');
      assert.equal((await cs.lamports(sender.address)) - before, 1_500_000n);
      assert.deepEqual(await status(), ['confirmed', 'pending']);
    } finally {
      worker.start();
    }
    await cleanReconcile(h);
  });
  // Each waits for its deposit's sweep (every transaction handed out for it dead at finalized) and then
  // the worker's passes: independent orders, side by side on the one simulated clock, so the two waits overlap.
  describe('found by the worker', { concurrency: true }, () => {
    test('tokens sent to a finished order\'s deposit owner (another mint) are reported once by the worker, and return-stray gives them back', async () => {
      const placed = await place();
      await depositAndComplete(placed);
      await cs.succeeded([await h.drive(h.chain.tokenAirdrop(placed.depositOwner, ASSETS.bonk.mint, 11n))]);
      const bonkAccount = ata(placed.depositOwner, ASSETS.bonk.mint);

      const alerts = () => logged.filter((l) => l.startsWith('ALERT: tokens sent to the deposit owner') && l.includes(placed.trackingId));
      // The worker looks at swept orders, and a deposit is swept once every transaction handed out for it is dead.
      await h.until('the ALERT for tokens at the deposit owner', async () => alerts().length > 0, 600_000, 1_000);
      assert.match(alerts()[0]!, new RegExp(`return-stray ${placed.trackingId}`));
      assert.ok(alerts()[0]!.includes(JSON.stringify({ account: bonkAccount, mint: ASSETS.bonk.mint, amount: '11' })), alerts()[0]);
      assert.ok(!alerts()[0]!.includes(placed.depositAccount), 'the deposit account itself is not a stray');
      // Enough more whole passes for the token scan (4 owners a pass) to come round to this owner again at
      // least once: no second ALERT for the same holding.
      const finished = Number((await h.drive(h.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM orders WHERE status IN ('completed', 'expired', 'refunded', 'failed')`))).rows[0]!.n);
      await morePasses(Math.ceil(finished / OWNERS_PER_PASS) + 1);
      assert.equal(alerts().length, 1, 'reported once, not on every pass');

      const r = await returnStray(placed.trackingId);
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.deepEqual(r.body.returns.map((l: any) => [l.account, l.mint, l.amount, l.status]), [[bonkAccount, ASSETS.bonk.mint, '11', 'confirmed']]);
    });

    test('SOL sent to a finished order\'s deposit owner is reported once by the worker, and return-stray gives it back', async () => {
      const placed = await place();
      await depositAndComplete(placed);
      await airdrop(placed.depositOwner, 2_500_000n);

      const alerts = () => logged.filter((l) => l.startsWith('ALERT: SOL sent to the deposit owner') && l.includes(placed.trackingId));
      await h.until('the ALERT for SOL at the deposit owner (once swept, as above)', async () => alerts().length > 0, 600_000, 1_000);
      assert.match(alerts()[0]!, new RegExp(`return-stray ${placed.trackingId}`));
      assert.match(alerts()[0]!, /"lamports":"2500000"/);
      // Two more whole passes (every 5 s here): no second ALERT for the same amount.
      await morePasses(2);
      assert.equal(alerts().length, 1, 'reported once, not on every pass');

      const r = await returnStray(placed.trackingId);
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.deepEqual(r.body.returns.map((l: any) => [l.account, l.mint, l.amount, l.status]), [[placed.depositOwner, 'native', '2500000', 'confirmed']]);
      assert.equal(await cs.lamports(placed.depositOwner), 0n);
    });
  });
});
