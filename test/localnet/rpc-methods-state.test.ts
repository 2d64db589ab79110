/**
 * The localnet's cluster, account and token JSON-RPC methods, driven through @solana/kit's createSolanaRpc over HTTP
 * (the custom localnet_requestTokenAirdrop through fetch), checked against the shapes and values a
 * real Solana node returns.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  generateKeyPairSigner, getAddressEncoder, getBase58Encoder, lamports,
  SOLANA_ERROR__JSON_RPC__INVALID_PARAMS, type Address, type KeyPairSigner, type Signature,
} from '@solana/kit';
import {
  MINTS, postRaw, requestTokenAirdrop, SOL, startTestLocalnet, TOKEN_PROGRAM, waitForSlot, waitForStatus,
  type LocalRpc, type TestLocalnet,
} from '../support/localnet.ts';
import { ata, base64, mintSupply, rejectsWithCode, SYSTEM_PROGRAM } from '../support/rpc-checks.ts';

describe('localnet JSON-RPC methods through @solana/kit: cluster, accounts, tokens', () => {
  let ln: TestLocalnet, rpc: LocalRpc;
  before(async () => void ({ rpc } = ln = await startTestLocalnet({ slotMs: 20 })));
  after(async () => ln?.close());

  describe('cluster info', () => {
    it('getHealth, getVersion and getGenesisHash', async () => {
      assert.equal(await rpc.getHealth().send(), 'ok');
      const version = await rpc.getVersion().send();
      assert.match(version['solana-core'], /^\d+\.\d+\.\d+$/);
      assert.equal(typeof version['feature-set'], 'number');
      const genesis = await rpc.getGenesisHash().send();
      assert.equal(getBase58Encoder().encode(genesis).length, 32);
      assert.equal(await rpc.getGenesisHash().send(), genesis, 'genesis hash is stable');
    });

    it('getSlot advances with the wall clock and the commitment levels lag behind', async () => {
      const t0 = Date.now();
      const s0 = await rpc.getSlot({ commitment: 'processed' }).send();
      const s1 = await waitForSlot(rpc, s0 + 40n);
      const elapsedSlots = BigInt(Math.ceil((Date.now() - t0) / ln.slotMs));
      assert.ok(s1 - s0 <= elapsedSlots + 2n, `slot ran ahead of the clock: ${s1 - s0} slots in ${elapsedSlots} slot times`);
      // Slots only grow, so bracketing the lagging reads between two processed reads makes the lag exact:
      // finalized = tip − 32 and confirmed = tip − 1, whatever the scheduling.
      const tipBefore = await rpc.getSlot({ commitment: 'processed' }).send();
      const finalized = await rpc.getSlot({ commitment: 'finalized' }).send();
      const confirmed = await rpc.getSlot({ commitment: 'confirmed' }).send();
      const tipAfter = await rpc.getSlot({ commitment: 'processed' }).send();
      assert.ok(finalized < confirmed && confirmed < tipAfter, `${finalized} < ${confirmed} < ${tipAfter}`);
      assert.ok(tipBefore - finalized <= 32n && tipAfter - finalized >= 32n, `finalized lags 32 slots: ${tipBefore}/${finalized}/${tipAfter}`);
      assert.ok(tipBefore - confirmed <= 1n && tipAfter - confirmed >= 1n, `confirmed lags 1 slot: ${tipBefore}/${confirmed}/${tipAfter}`);
    });

    it('getBlockHeight and getEpochInfo follow the slot', async () => {
      const slotBefore = await rpc.getSlot({ commitment: 'processed' }).send();
      const height = await rpc.getBlockHeight({ commitment: 'processed' }).send();
      const info = await rpc.getEpochInfo({ commitment: 'processed' }).send();
      const slotAfter = await rpc.getSlot({ commitment: 'processed' }).send();
      assert.ok(height >= slotBefore && height <= slotAfter);
      assert.ok(info.absoluteSlot >= height && info.absoluteSlot <= slotAfter);
      assert.equal(info.blockHeight, info.absoluteSlot);
      assert.equal(info.epoch, 0n);
      assert.equal(info.slotsInEpoch, 432_000n);
      assert.equal(info.slotIndex, info.absoluteSlot % 432_000n);
      assert.equal(typeof info.transactionCount, 'bigint');
    });

    it('getLatestBlockhash is valid for 150 blocks and isBlockhashValid knows it', async () => {
      const { context, value } = await rpc.getLatestBlockhash({ commitment: 'processed' }).send();
      assert.equal(getBase58Encoder().encode(value.blockhash).length, 32);
      assert.equal(value.lastValidBlockHeight, context.slot + 150n);
      const valid = await rpc.isBlockhashValid(value.blockhash, { commitment: 'processed' }).send();
      assert.equal(valid.value, true);
      const finalized = await rpc.getLatestBlockhash({ commitment: 'finalized' }).send();
      assert.notEqual(finalized.value.blockhash, value.blockhash);
      assert.ok(finalized.context.slot < context.slot);
      assert.equal(finalized.value.lastValidBlockHeight, finalized.context.slot + 150n);
      assert.equal((await rpc.isBlockhashValid(finalized.value.blockhash).send()).value, true);
      const unknown = (await generateKeyPairSigner()).address; // any 32-byte base58 value
      assert.equal((await rpc.isBlockhashValid(unknown as unknown as typeof value.blockhash).send()).value, false);
    });

    it('getMinimumBalanceForRentExemption matches mainnet rent', async () => {
      assert.equal(await rpc.getMinimumBalanceForRentExemption(165n).send(), 2_039_280n);
      assert.equal(await rpc.getMinimumBalanceForRentExemption(0n).send(), 890_880n);
      assert.equal(await rpc.getMinimumBalanceForRentExemption(82n).send(), 1_461_600n);
    });
  });

  describe('accounts', () => {
    it('requestAirdrop credits lamports; getBalance and getAccountInfo see them', async () => {
      const w = await generateKeyPairSigner();
      assert.equal((await rpc.getBalance(w.address, { commitment: 'processed' }).send()).value, 0n);
      assert.equal((await rpc.getAccountInfo(w.address, { commitment: 'processed', encoding: 'base64' }).send()).value, null);
      const sig = await rpc.requestAirdrop(w.address, lamports(2n * SOL)).send();
      const st = await waitForStatus(rpc, sig, 'confirmed');
      assert.equal(st.err, null);
      const bal = await rpc.getBalance(w.address, { commitment: 'confirmed' }).send();
      assert.equal(bal.value, 2n * SOL);
      assert.ok(bal.context.slot >= st.slot);
      const info = (await rpc.getAccountInfo(w.address, { encoding: 'base64', commitment: 'confirmed' }).send()).value;
      assert.ok(info);
      assert.equal(info.lamports, 2n * SOL);
      assert.equal(info.owner, SYSTEM_PROGRAM);
      assert.equal(info.executable, false);
      assert.equal(info.space, 0n);
      assert.deepEqual(info.data, ['', 'base64']);
      const tx = await rpc.getTransaction(sig, { commitment: 'confirmed', maxSupportedTransactionVersion: 0, encoding: 'json' }).send();
      assert.ok(tx, 'an airdrop is a real transaction with history');
      assert.equal(tx.meta?.postBalances[1], 2n * SOL);
    });

    it('seeds USDC, USDT and BONK at their mainnet addresses plus the native mint', async () => {
      const expected: [Address, number][] = [
        [MINTS.USDC, 6],
        [MINTS.USDT, 6],
        [MINTS.BONK, 5],
        [MINTS.WSOL, 9],
      ];
      for (const [mint, decimals] of expected) {
        const info = (await rpc.getAccountInfo(mint, { encoding: 'jsonParsed', commitment: 'confirmed' }).send()).value;
        assert.ok(info, `${mint} exists`);
        assert.equal(info.owner, TOKEN_PROGRAM);
        assert.equal(info.space, 82n);
        assert.equal(info.lamports, 1_461_600n, 'mint is rent exempt');
        assert.ok(!Array.isArray(info.data) && typeof info.data === 'object');
        const parsed = info.data as { program: string; parsed: { type: string; info: { decimals: number; isInitialized: boolean } } };
        assert.equal(parsed.program, 'spl-token');
        assert.equal(parsed.parsed.type, 'mint');
        assert.equal(parsed.parsed.info.decimals, decimals, `${mint} decimals`);
        assert.equal(parsed.parsed.info.isInitialized, true);
      }
    });

    it('getAccountInfo encodes mint data as base64, base58 and sliced', async () => {
      const b64 = (await rpc.getAccountInfo(MINTS.BONK, { encoding: 'base64' }).send()).value;
      assert.ok(b64);
      const raw = new Uint8Array(base64.encode(b64.data[0]));
      assert.equal(raw.length, 82);
      assert.equal(raw[44], 5, 'decimals byte');
      assert.equal(raw[45], 1, 'is_initialized byte');
      const b58 = (await rpc.getAccountInfo(MINTS.BONK, { encoding: 'base58' }).send()).value;
      assert.ok(b58);
      assert.equal(b58.data[1], 'base58');
      assert.deepEqual(new Uint8Array(getBase58Encoder().encode(b58.data[0])), raw);
      const sliced = (await rpc.getAccountInfo(MINTS.BONK, { encoding: 'base64', dataSlice: { offset: 44, length: 2 } }).send()).value;
      assert.ok(sliced);
      assert.deepEqual([...base64.encode(sliced.data[0])], [5, 1]);
      assert.equal(sliced.space, 82n, 'space is the full size even when sliced');
      const past = (await rpc.getAccountInfo(MINTS.BONK, { encoding: 'base64', dataSlice: { offset: 100, length: 10 } }).send()).value;
      assert.deepEqual(past?.data, ['', 'base64']);
    });

    it('getMultipleAccounts returns accounts in order with null for missing ones', async () => {
      const missing = (await generateKeyPairSigner()).address;
      const res = await rpc.getMultipleAccounts([MINTS.USDC, missing, MINTS.BONK], { encoding: 'base64' }).send();
      assert.equal(res.value.length, 3);
      assert.equal(res.value[1], null);
      assert.equal(res.value[0]?.owner, TOKEN_PROGRAM);
      assert.equal(base64.encode(res.value[0]!.data[0])[44], 6);
      assert.equal(base64.encode(res.value[2]!.data[0])[44], 5);
      const parsed = await rpc.getMultipleAccounts([MINTS.USDT], { encoding: 'jsonParsed' }).send();
      assert.equal((parsed.value[0]?.data as { parsed: { info: { decimals: number } } }).parsed.info.decimals, 6);
    });
  });

  describe('tokens', () => {
    let owner: KeyPairSigner;
    let usdcAta: Address;
    let firstAirdrop: Signature;
    let secondAirdrop: Signature;

    before(async () => {
      owner = await generateKeyPairSigner();
      usdcAta = await ata(owner.address, MINTS.USDC);
    });

    it('localnet_requestTokenAirdrop creates the associated token account and mints base units', async () => {
      assert.equal((await rpc.getAccountInfo(usdcAta, { commitment: 'processed' }).send()).value, null);
      const supplyBefore = await mintSupply(rpc, MINTS.USDC);
      firstAirdrop = await requestTokenAirdrop(ln.url, owner.address, MINTS.USDC, 1_500_000n);
      await waitForStatus(rpc, firstAirdrop, 'confirmed');
      const bal = await rpc.getTokenAccountBalance(usdcAta, { commitment: 'confirmed' }).send();
      assert.deepEqual(bal.value, { amount: '1500000', decimals: 6, uiAmount: 1.5, uiAmountString: '1.5' });
      // A second airdrop reuses the existing account (idempotent create) and adds to it.
      const second = await requestTokenAirdrop(ln.url, owner.address, MINTS.USDC, '2500000');
      secondAirdrop = second;
      await waitForStatus(rpc, second, 'confirmed');
      const bal2 = await rpc.getTokenAccountBalance(usdcAta, { commitment: 'confirmed' }).send();
      assert.equal(bal2.value.amount, '4000000');
      assert.equal(bal2.value.uiAmountString, '4');
      assert.equal((await mintSupply(rpc, MINTS.USDC)) - supplyBefore, 4_000_000n);
      const acct = (await rpc.getAccountInfo(usdcAta, { encoding: 'base64', commitment: 'confirmed' }).send()).value;
      assert.equal(acct?.owner, TOKEN_PROGRAM);
      assert.equal(acct?.space, 165n);
      assert.equal(acct?.lamports, 2_039_280n, 'token account is rent exempt');
    });

    it('localnet_requestTokenAirdrop handles BONK and wraps SOL for the native mint', async () => {
      const bonk = await requestTokenAirdrop(ln.url, owner.address, MINTS.BONK, 123_456_789n);
      const wsol = await requestTokenAirdrop(ln.url, owner.address, MINTS.WSOL, 3_000_000_000n);
      await waitForStatus(rpc, bonk, 'confirmed');
      await waitForStatus(rpc, wsol, 'confirmed');
      const bonkBal = await rpc.getTokenAccountBalance(await ata(owner.address, MINTS.BONK), { commitment: 'confirmed' }).send();
      assert.deepEqual(bonkBal.value, { amount: '123456789', decimals: 5, uiAmount: 1234.56789, uiAmountString: '1234.56789' });
      const wsolAta = await ata(owner.address, MINTS.WSOL);
      const wsolBal = await rpc.getTokenAccountBalance(wsolAta, { commitment: 'confirmed' }).send();
      assert.equal(wsolBal.value.amount, '3000000000');
      assert.equal(wsolBal.value.decimals, 9);
      assert.equal((await rpc.getBalance(wsolAta, { commitment: 'confirmed' }).send()).value, 3_000_000_000n + 2_039_280n);
    });

    it('localnet_requestTokenAirdrop rejects unknown mints, zero and malformed amounts', async () => {
      const notMint = (await generateKeyPairSigner()).address;
      for (const [mint, amount] of [
        [notMint, 1n],
        [MINTS.USDC, 0n],
        [MINTS.USDC, -5],
        [MINTS.USDC, 'lots'],
        [MINTS.USDC, 1.5],
      ] as [Address, bigint | number | string][]) {
        await assert.rejects(requestTokenAirdrop(ln.url, owner.address, mint, amount), (e: { rpcError?: { code: number } }) => {
          assert.equal(e.rpcError?.code, -32602, `${mint} ${String(amount)}`);
          return true;
        });
      }
      const bad = await postRaw(ln.url, JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'localnet_requestTokenAirdrop', params: ['nope', MINTS.USDC, 1] }));
      assert.equal(bad.body.error.code, -32602);
      assert.equal(bad.body.id, 7);
    });

    it('getTokenAccountsByOwner filters by mint and by program, with jsonParsed', async () => {
      const byMint = await rpc.getTokenAccountsByOwner(owner.address, { mint: MINTS.USDC }, { encoding: 'base64', commitment: 'confirmed' }).send();
      assert.equal(byMint.value.length, 1);
      assert.equal(byMint.value[0]!.pubkey, usdcAta);
      const raw = new Uint8Array(base64.encode(byMint.value[0]!.account.data[0]));
      assert.deepEqual(raw.subarray(0, 32), new Uint8Array(getAddressEncoder().encode(MINTS.USDC)));
      assert.deepEqual(raw.subarray(32, 64), new Uint8Array(getAddressEncoder().encode(owner.address)));

      const byProgram = await rpc.getTokenAccountsByOwner(owner.address, { programId: TOKEN_PROGRAM }, { encoding: 'jsonParsed', commitment: 'confirmed' }).send();
      const byMintAddr = new Map(byProgram.value.map((a) => [a.account.data.parsed.info.mint, a]));
      assert.deepEqual([...byMintAddr.keys()].sort(), [MINTS.USDC, MINTS.BONK, MINTS.WSOL].sort());
      const usdc = byMintAddr.get(MINTS.USDC)!;
      assert.equal(usdc.pubkey, usdcAta);
      assert.equal(usdc.account.data.program, 'spl-token');
      assert.equal(usdc.account.data.parsed.type, 'account');
      assert.equal(usdc.account.data.parsed.info.owner, owner.address);
      assert.equal(usdc.account.data.parsed.info.state, 'initialized');
      assert.equal(usdc.account.data.parsed.info.isNative, false);
      assert.deepEqual(usdc.account.data.parsed.info.tokenAmount, { amount: '4000000', decimals: 6, uiAmount: 4, uiAmountString: '4' });
      assert.equal(byMintAddr.get(MINTS.WSOL)!.account.data.parsed.info.isNative, true);

      const stranger = (await generateKeyPairSigner()).address;
      assert.deepEqual((await rpc.getTokenAccountsByOwner(stranger, { mint: MINTS.USDC }).send()).value, []);
      await rejectsWithCode(rpc.getTokenAccountsByOwner(owner.address, { mint: stranger }).send(), SOLANA_ERROR__JSON_RPC__INVALID_PARAMS);
      await rejectsWithCode(rpc.getTokenAccountsByOwner(owner.address, { programId: SYSTEM_PROGRAM as Address }).send(), SOLANA_ERROR__JSON_RPC__INVALID_PARAMS);
    });

    it('getTokenAccountBalance rejects accounts that are not token accounts', async () => {
      await rejectsWithCode(rpc.getTokenAccountBalance(owner.address).send(), SOLANA_ERROR__JSON_RPC__INVALID_PARAMS);
      await rejectsWithCode(rpc.getTokenAccountBalance(MINTS.USDC).send(), SOLANA_ERROR__JSON_RPC__INVALID_PARAMS);
    });

    it('getTransaction reports pre/post token balances of a token airdrop', async () => {
      const tx = await rpc.getTransaction(firstAirdrop, { commitment: 'confirmed', maxSupportedTransactionVersion: 0, encoding: 'json' }).send();
      assert.ok(tx?.meta);
      const keys = tx.transaction.message.accountKeys;
      const ataIndex = keys.indexOf(usdcAta);
      assert.ok(ataIndex > 0);
      assert.equal(tx.meta.err, null);
      assert.equal(tx.meta.preTokenBalances?.length, 0, 'the account did not exist before');
      const post = tx.meta.postTokenBalances?.find((b) => b.accountIndex === ataIndex);
      assert.ok(post);
      assert.equal(post.mint, MINTS.USDC);
      assert.equal(post.owner, owner.address);
      assert.equal(post.programId, TOKEN_PROGRAM);
      assert.equal(post.uiTokenAmount.amount, '1500000');
      assert.equal(post.uiTokenAmount.decimals, 6);
      assert.equal(tx.meta.preBalances[ataIndex], 0n);
      assert.equal(tx.meta.postBalances[ataIndex], 2_039_280n);
      assert.ok(tx.meta.logMessages?.includes('Program log: CreateIdempotent'), tx.meta.logMessages?.join('\n'));
      assert.equal(tx.meta.logMessages?.at(-1), `Program ${TOKEN_PROGRAM} success`, 'the MintTo instruction ran last');
      assert.ok((tx.meta.innerInstructions?.length ?? 0) > 0, 'the associated token program CPIs are reported');

      // The second airdrop found the account with 1.5 USDC and left 4 USDC.
      const tx2 = await rpc.getTransaction(secondAirdrop, { commitment: 'confirmed', maxSupportedTransactionVersion: 0, encoding: 'json' }).send();
      assert.ok(tx2?.meta);
      const i2 = tx2.transaction.message.accountKeys.indexOf(usdcAta);
      const pre2 = tx2.meta.preTokenBalances?.find((b) => b.accountIndex === i2);
      const post2 = tx2.meta.postTokenBalances?.find((b) => b.accountIndex === i2);
      assert.deepEqual(pre2?.uiTokenAmount, { amount: '1500000', decimals: 6, uiAmount: 1.5, uiAmountString: '1.5' });
      assert.deepEqual(post2?.uiTokenAmount, { amount: '4000000', decimals: 6, uiAmount: 4, uiAmountString: '4' });
      assert.equal(tx2.meta.preBalances[i2], tx2.meta.postBalances[i2], 'no rent paid the second time');
    });
  });
});
