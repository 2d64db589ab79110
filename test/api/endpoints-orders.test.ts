/**
 * Every endpoint of docs/spec.md §4 against a real, listening Hush (PGlite store, embedded chain), over HTTP:
 * tokens, quote (fee arithmetic, firmness, network fee), order (the unsigned transaction decoded,
 * simulated, submitted), refresh, status (ETag), deposit hint, and the operational routes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { generateKeyPairSigner, type Address, type KeyPairSigner } from '@solana/kit';
import {
  ASSOCIATED_TOKEN_PROGRAM_ADDRESS, TOKEN_PROGRAM_ADDRESS, getInitializeAccount3Instruction,
} from '@solana-program/token';
import {
  buildSignedTransaction, latestBlockhash, requestTokenAirdrop, waitForStatus,
} from '../support/localnet.ts';
import { getCreateAccountInstruction, getTransferSolInstruction } from '@solana-program/system';
import {
  USDC_MINT, address, expectError, expectOk, fundedSender, inspectDepositTransaction, randomSignature,
  signDeposit, sleep, type TestAccount, type TestHush, quoteAndOrder, simulateWire, submitWire,
} from '../support/hush-server.ts';
import {
  WSOL_MINT, ISO_MS, ORDER_FIELDS, STATUS_FIELDS, AFTER_DEPOSIT, startEndpointSuite,
} from '../support/endpoint-suite.ts';

const BONK_MINT = 'DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263' as Address;

let t: TestHush, acct: TestAccount;
before(async () => void ({ t, acct } = await startEndpointSuite()));
after(async () => t?.close());

describe('POST /order, the deposit transaction, refresh, status and the deposit hint', () => {
  let sender: KeyPairSigner;
  before(async () => {
    sender = await fundedSender(t, { sol: 5n * 1_000_000_000n, usdc: 50_000_000n });
  });

  test('refresh: new transaction and blockhashExpiresAtSlot, same order; original and refreshed — only one can land', async () => {
    const recipient = await address();
    const a = await quoteAndOrder(acct.client, sender.address, recipient, { amount: '50000000' });
    const b = await quoteAndOrder(acct.client, sender.address, recipient, { amount: '3000000', sourceAssetId: 'usdc', destinationAssetId: 'usdc' });
    // Hush hands out a cached blockhash refreshed every few seconds: poll until the refresh carries a newer one.
    const refreshed: Record<string, any> = {};
    const deadline = Date.now() + 15_000;
    for (const { o } of [a, b]) {
      const statusBefore = await acct.client.status(o.trackingId);
      for (;;) {
        const r = expectOk(await acct.client.refresh(o.trackingId)).order;
        assert.deepEqual(Object.keys(r).sort(), ORDER_FIELDS);
        for (const k of ['trackingId', 'amountIn', 'amountOut', 'sourceSymbol', 'destinationSymbol', 'eta', 'expiration', 'transactionEncoding']) {
          assert.deepEqual(r[k], o[k], `refresh keeps ${k}`);
        }
        // Every transaction differs (its record is sealed afresh): a refresh is new once its blockhash is.
        if (inspectDepositTransaction(r.transaction).blockhash !== inspectDepositTransaction(o.transaction).blockhash) {
          refreshed[o.trackingId] = r;
          break;
        }
        assert.ok(Date.now() < deadline, 'refresh never produced a new transaction');
        await sleep(500);
      }
      const r = refreshed[o.trackingId];
      assert.ok(r.blockhashExpiresAtSlot > o.blockhashExpiresAtSlot, 'a later blockhash expiry');
      assert.ok(r.lastValidBlockHeight > o.lastValidBlockHeight, 'a later last valid block height');
      // Nothing in the status record changed, so a poller is not told it did (updatedAt, ETag).
      const statusAfter = await acct.client.status(o.trackingId, { headers: { 'if-none-match': statusBefore.headers.get('etag')! } });
      assert.equal(statusAfter.status, 304, 'a refresh is no change of the status record');
      const before = inspectDepositTransaction(o.transaction);
      const after = inspectDepositTransaction(r.transaction);
      assert.notEqual(after.blockhash, before.blockhash);
      // Same deposit account, same instructions apart from the lifetime and the record (sealed afresh, one length).
      assert.deepEqual(after.staticAccounts.sort(), before.staticAccounts.sort());
      const datas = (v: typeof before) => v.instructions.slice(0, -1).map((ix) => Buffer.from(ix.data ?? []).toString('hex'));
      assert.deepEqual(datas(after), datas(before));
      const memo = (v: typeof before) => Buffer.from(v.instructions[v.instructions.length - 1]!.data ?? []).toString('utf8');
      assert.notEqual(memo(after), memo(before), 'two records of one order share nothing a reader could match');
      assert.equal(memo(after).length, memo(before).length);
    }
    // Order a: the refreshed transaction lands first; the original then fails.
    const aNew = await signDeposit(refreshed[a.o.trackingId].transaction, sender);
    const aOld = await signDeposit(a.o.transaction, sender);
    assert.equal((await simulateWire(t, aOld.wire)).err, null, 'the original is still valid before either lands');
    await waitForStatus(t.rpc, await submitWire(t, aNew.wire), 'confirmed');
    await assert.rejects(submitWire(t, aOld.wire), 'after the refreshed transaction landed, the original must fail');
    // Order b: the original lands first; the refreshed one then fails.
    const bNew = await signDeposit(refreshed[b.o.trackingId].transaction, sender);
    const bOld = await signDeposit(b.o.transaction, sender);
    await waitForStatus(t.rpc, await submitWire(t, bOld.wire), 'confirmed');
    await assert.rejects(submitWire(t, bNew.wire), 'after the original landed, the refreshed transaction must fail');
    // Whichever landed is this order's deposit.
    expectOk(await acct.client.deposit({ trackingId: a.o.trackingId, signature: aNew.signature }), 200);
    expectOk(await acct.client.deposit({ trackingId: b.o.trackingId, signature: bOld.signature }), 200);
  });

  test('GET /status: the docs/spec.md §4 record, ETag + If-None-Match → 304, side-effect free, other accounts get 404', async () => {
    const { q, o } = await quoteAndOrder(acct.client, sender.address, await address(), { amount: '30000000' });
    const r1 = await acct.client.status(o.trackingId);
    const s = expectOk(r1).order;
    assert.deepEqual(Object.keys(r1.body).sort(), ['order', 'success']);
    assert.deepEqual(Object.keys(s).sort(), STATUS_FIELDS);
    assert.equal(s.trackingId, o.trackingId);
    assert.equal(s.status, 'awaiting_deposit');
    assert.equal(s.final, false);
    assert.equal(s.sourceAssetId, 'sol');
    assert.equal(s.destinationAssetId, 'sol');
    assert.equal(s.amountIn, q.amountIn);
    assert.equal(s.amountOut, q.amountOut);
    assert.equal(s.deposit, null);
    assert.deepEqual(s.payouts, []);
    assert.equal(s.refund, null);
    assert.equal(s.failureReason, null);
    for (const k of ['createdAt', 'updatedAt', 'expiration']) assert.match(s[k], ISO_MS, k);
    assert.deepEqual(s.history, [{ status: 'awaiting_deposit', at: s.createdAt }]);
    assert.deepEqual(s.privacy, { standard: q.privacy.standard, releaseBy: null, releasedWith: null, releasedWithPending: null, heldSeconds: null }, 'nothing held before a deposit');

    const etag = r1.headers.get('etag');
    assert.ok(etag && /^"[^"]+"$/.test(etag), `strong ETag, got ${etag}`);
    const r304 = await acct.client.status(o.trackingId, { headers: { 'if-none-match': etag } });
    assert.equal(r304.status, 304);
    assert.equal(r304.text, '');
    assert.equal(r304.headers.get('etag'), etag);
    assert.equal((await acct.client.status(o.trackingId, { headers: { 'if-none-match': `"nope", W/${etag}` } })).status, 304, 'weak and listed tags match');
    assert.equal((await acct.client.status(o.trackingId, { headers: { 'if-none-match': '*' } })).status, 304, '* matches the current record (RFC 9110)');
    const r200 = await acct.client.status(o.trackingId, { headers: { 'if-none-match': '"something-else"' } });
    assert.equal(r200.status, 200);

    // Side-effect free: polling changes nothing, in the body or in the store.
    const row = async () => (await t.db.query<{ updated_at: Date; n: number }>('SELECT o.updated_at, (SELECT count(*)::int FROM order_history h WHERE h.order_id = o.id) AS n FROM orders o WHERE tracking_id = $1', [o.trackingId])).rows[0]!;
    const before = await row();
    for (let i = 0; i < 3; i++) assert.deepEqual(expectOk(await acct.client.status(o.trackingId)).order, s);
    assert.deepEqual(await row(), before);
    assert.equal((await acct.client.status(o.trackingId)).headers.get('etag'), etag, 'same state, same ETag');

    // A new state is a new ETag: the deposit hint moves the order.
    const { wire, signature } = await signDeposit(o.transaction, sender);
    await waitForStatus(t.rpc, await submitWire(t, wire), 'confirmed');
    expectOk(await acct.client.deposit({ trackingId: o.trackingId, signature }));
    const moved = await acct.client.status(o.trackingId, { headers: { 'if-none-match': etag } });
    assert.equal(moved.status, 200);
    assert.notEqual(moved.headers.get('etag'), etag);
    assert.ok(AFTER_DEPOSIT.includes(moved.body.order.status));

    // Another account sees nothing: 404 NOT_FOUND, exactly as for a trackingId that does not exist.
    const other = await t.createAccount();
    const e1 = expectError(await other.client.status(o.trackingId), 404, 'NOT_FOUND');
    const e2 = expectError(await other.client.status('trk_1111111111111111111111'), 404, 'NOT_FOUND');
    assert.equal(e1.message, e2.message);
    expectError(await other.client.refresh(o.trackingId), 404, 'NOT_FOUND');
    expectError(await other.client.deposit({ trackingId: o.trackingId, signature }), 404, 'NOT_FOUND');
    // A trackingId of any length that names no order of this account is the same 404.
    expectError(await other.client.deposit({ trackingId: `trk_${'1'.repeat(200)}`, signature }), 404, 'NOT_FOUND');
  });

  test('POST /deposit: 202 for an unseen signature, 409 for a transaction that did not fund the deposit, 400 for garbage', async () => {
    const { o } = await quoteAndOrder(acct.client, sender.address, await address(), { amount: '40000000' });
    const unseen = randomSignature();
    const r202 = await acct.client.deposit({ trackingId: o.trackingId, signature: unseen });
    const body = expectOk(r202, 202);
    assert.deepEqual(Object.keys(body.order).sort(), STATUS_FIELDS, '202 carries the status record');
    assert.equal(body.order.status, 'awaiting_deposit');
    assert.equal(body.order.trackingId, o.trackingId);
    const hints = await t.db.query('SELECT signature FROM deposit_hints h JOIN orders o ON o.id = h.order_id WHERE o.tracking_id = $1', [o.trackingId]);
    assert.deepEqual(hints.rows.map((r: any) => r.signature), [unseen], 'the unseen signature is kept for watching');
    expectOk(await acct.client.deposit({ trackingId: o.trackingId, signature: unseen }), 202);

    // A real transaction that moved money elsewhere (a faucet airdrop): DEPOSIT_MISMATCH.
    const foreign = await requestTokenAirdrop(t.chainUrl, await address(), USDC_MINT, 5n);
    await waitForStatus(t.rpc, foreign, 'confirmed');
    const e = expectError(await acct.client.deposit({ trackingId: o.trackingId, signature: foreign }), 409, 'DEPOSIT_MISMATCH');
    assert.equal(e.details?.reason, 'not_this_deposit');
    assert.equal(expectOk(await acct.client.status(o.trackingId)).order.status, 'awaiting_deposit', 'a mismatching hint moves nothing');

    // Another token sent to the deposit owner (a token account of its own for another mint): no sweep
    // looks there, so the hint says so instead of a plain mismatch (and the operator is alerted).
    const create = inspectDepositTransaction(o.transaction).instructions.find((ix) => ix.programAddress === ASSOCIATED_TOKEN_PROGRAM_ADDRESS)!;
    const depositOwner = create.accounts![2]!.address; // CreateAssociatedToken: payer, ata, owner, mint, …
    const otherMint = o.sourceSymbol === 'USDC' ? BONK_MINT : USDC_MINT;
    const wrong = await requestTokenAirdrop(t.chainUrl, depositOwner, otherMint, 7n);
    await waitForStatus(t.rpc, wrong, 'confirmed');
    const w = expectError(await acct.client.deposit({ trackingId: o.trackingId, signature: wrong }), 409, 'DEPOSIT_MISMATCH');
    assert.deepEqual(w.details, { reason: 'wrong_asset', mint: otherMint });
    // SOL to the owner's own address (not to its wrapped-SOL deposit account) is stray too.
    const lamportsSig = await t.rpc.requestAirdrop(depositOwner, 1_000_000n as never).send();
    await waitForStatus(t.rpc, lamportsSig, 'confirmed');
    const n = expectError(await acct.client.deposit({ trackingId: o.trackingId, signature: lamportsSig }), 409, 'DEPOSIT_MISMATCH');
    assert.deepEqual(n.details, { reason: 'wrong_asset', mint: 'native' });
    // The deposit's own mint in a second token account of the owner (not the deposit account): wrong_account.
    const second = await generateKeyPairSigner();
    const { wire: secondWire, signature: secondSig } = await buildSignedTransaction(
      sender,
      [
        getCreateAccountInstruction({ payer: sender, newAccount: second, lamports: 2_039_280n + 5_000_000n, space: 165, programAddress: TOKEN_PROGRAM_ADDRESS }),
        getInitializeAccount3Instruction({ account: second.address, mint: WSOL_MINT, owner: depositOwner }),
      ],
      await latestBlockhash(t.rpc),
    );
    await t.rpc.sendTransaction(secondWire, { encoding: 'base64' }).send();
    await waitForStatus(t.rpc, secondSig, 'confirmed');
    const a = expectError(await acct.client.deposit({ trackingId: o.trackingId, signature: secondSig }), 409, 'DEPOSIT_MISMATCH');
    assert.equal(o.sourceSymbol, 'SOL');
    assert.deepEqual(a.details, { reason: 'wrong_account', mint: WSOL_MINT });
    // SOL sent to the deposit address itself before its wrapped-SOL account exists: no deposit (it was
    // once recorded as a deposit of 0, the order failed and the SOL stayed there).
    const { wire: bareWire, signature: bareSig } = await buildSignedTransaction(
      sender,
      [getTransferSolInstruction({ source: sender, destination: create.accounts![1]!.address, amount: 3_000_000n })],
      await latestBlockhash(t.rpc),
    );
    await t.rpc.sendTransaction(bareWire, { encoding: 'base64' }).send();
    await waitForStatus(t.rpc, bareSig, 'confirmed');
    const bare = expectError(await acct.client.deposit({ trackingId: o.trackingId, signature: bareSig }), 409, 'DEPOSIT_MISMATCH');
    assert.deepEqual(bare.details, { reason: 'no_deposit_account' });
    assert.equal(expectOk(await acct.client.status(o.trackingId)).order.status, 'awaiting_deposit', 'nor does a wrong-asset one');

    for (const garbage of ['garbage', '', '1'.repeat(129), '0OIl0OIl0OIl0OIl0OIl0OIl0OIl0OIl0OIl0OIl0OIl0OIl0OIl0OIl0OIl0OIl0OIl', unseen.slice(0, 40), `${unseen}zzz`]) {
      const g = expectError(await acct.client.deposit({ trackingId: o.trackingId, signature: garbage }), 400, 'INVALID_SIGNATURE');
      assert.equal(g.details?.field, 'signature');
    }
  });
});
