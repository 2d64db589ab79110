/**
 * Every JSON-RPC method the localnet serves, driven through @solana/kit's createSolanaRpc over HTTP
 * (the custom localnet_requestTokenAirdrop through fetch), checked against the shapes and values a
 * real Solana node returns.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  appendTransactionMessageInstructions,
  compileTransaction,
  createTransactionMessage,
  generateKeyPairSigner,
  getAddressEncoder,
  getBase58Encoder,
  getBase64Decoder,
  getBase64Encoder,
  getSignatureFromTransaction,
  getBase64EncodedWireTransaction,
  isSolanaError,
  lamports,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  SOLANA_ERROR__JSON_RPC__INVALID_PARAMS,
  SOLANA_ERROR__JSON_RPC__SERVER_ERROR_UNSUPPORTED_TRANSACTION_VERSION,
  SOLANA_ERROR__JSON_RPC__SERVER_ERROR_TRANSACTION_SIGNATURE_VERIFICATION_FAILURE,
  type Address,
  type Base64EncodedWireTransaction,
  type KeyPairSigner,
  type Signature,
  type TransactionMessageBytesBase64,
} from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { findAssociatedTokenPda } from '@solana-program/token';
import { getSetComputeUnitLimitInstruction, getSetComputeUnitPriceInstruction } from '@solana-program/compute-budget';
import {
  buildSignedTransaction,
  latestBlockhash,
  MINTS,
  postRaw,
  requestTokenAirdrop,
  send,
  SOL,
  startTestLocalnet,
  TOKEN_PROGRAM,
  transferTx,
  waitForSlot,
  waitForStatus,
  type LocalRpc,
  type TestLocalnet,
} from '../support/localnet.ts';

const SYSTEM_PROGRAM = '11111111111111111111111111111111';
const base64 = getBase64Encoder();

async function ata(owner: Address, mint: Address): Promise<Address> {
  return (await findAssociatedTokenPda({ owner, mint, tokenProgram: TOKEN_PROGRAM }))[0];
}

/** Kit turns every JSON number it is not told about into a bigint; compare error JSON by value. */
function plain(v: unknown): unknown {
  return JSON.parse(JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? Number(x) : x)));
}

const CUSTOM_1 = { InstructionError: [0, { Custom: 1 }] };

async function rejectsWithCode(p: Promise<unknown>, code: number): Promise<void> {
  await assert.rejects(p, (e: unknown) => {
    assert.ok(isSolanaError(e), `expected a SolanaError, got ${String(e)}`);
    assert.equal((e.context as { __code: number }).__code, code, e.message);
    return true;
  });
}

describe('localnet JSON-RPC methods through @solana/kit', () => {
  let ln: TestLocalnet;
  let rpc: LocalRpc;

  before(async () => {
    ln = await startTestLocalnet({ slotMs: 20 });
    rpc = ln.rpc;
  });
  after(async () => {
    await ln?.close();
  });

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

  describe('transactions', () => {
    let payer: KeyPairSigner;
    let recipient: KeyPairSigner;
    let sig: Signature;
    let wire: Base64EncodedWireTransaction;
    let airdropSig: Signature;

    before(async () => {
      payer = await generateKeyPairSigner();
      recipient = await generateKeyPairSigner();
      airdropSig = await rpc.requestAirdrop(payer.address, lamports(5n * SOL)).send();
      await waitForStatus(rpc, airdropSig, 'confirmed');
    });

    it('getFeeForMessage prices signatures and priority fees; null for an unknown blockhash', async () => {
      const lifetime = await latestBlockhash(rpc);
      const second = await generateKeyPairSigner();
      const messageBytes = (instructions: Parameters<typeof appendTransactionMessageInstructions>[0], bh = lifetime) =>
        getBase64Decoder().decode(
          compileTransaction(
            pipe(
              createTransactionMessage({ version: 0 }),
              (m) => setTransactionMessageFeePayerSigner(payer, m),
              (m) => setTransactionMessageLifetimeUsingBlockhash(bh, m),
              (m) => appendTransactionMessageInstructions(instructions, m),
            ),
          ).messageBytes,
        ) as TransactionMessageBytesBase64;
      const one = await rpc.getFeeForMessage(messageBytes([getTransferSolInstruction({ source: payer, destination: recipient.address, amount: 1n })])).send();
      assert.equal(one.value, 5000n);
      const two = await rpc
        .getFeeForMessage(
          messageBytes([
            getTransferSolInstruction({ source: payer, destination: recipient.address, amount: 1n }),
            getTransferSolInstruction({ source: second, destination: recipient.address, amount: 1n }),
          ]),
        )
        .send();
      assert.equal(two.value, 10_000n);
      const priority = await rpc
        .getFeeForMessage(
          messageBytes([
            getSetComputeUnitLimitInstruction({ units: 200_000 }),
            getSetComputeUnitPriceInstruction({ microLamports: 1_000_000n }),
            getTransferSolInstruction({ source: payer, destination: recipient.address, amount: 1n }),
          ]),
        )
        .send();
      assert.equal(priority.value, 5000n + 200_000n);
      const unknownHash = (await generateKeyPairSigner()).address as unknown as typeof lifetime.blockhash;
      const stale = await rpc
        .getFeeForMessage(messageBytes([getTransferSolInstruction({ source: payer, destination: recipient.address, amount: 1n })], { ...lifetime, blockhash: unknownHash }))
        .send();
      assert.equal(stale.value, null);
    });

    it('simulateTransaction runs without changing state and reports logs, units and accounts', async () => {
      const tx = await transferTx(rpc, payer, recipient.address, 1_000_000n);
      const sim = await rpc
        .simulateTransaction(tx.wire, { encoding: 'base64', commitment: 'processed', accounts: { addresses: [recipient.address, payer.address], encoding: 'base64' } })
        .send();
      assert.equal(sim.value.err, null);
      assert.deepEqual(sim.value.logs, ['Program 11111111111111111111111111111111 invoke [1]', 'Program 11111111111111111111111111111111 success']);
      assert.ok(sim.value.unitsConsumed && sim.value.unitsConsumed > 0n);
      assert.equal(sim.value.accounts?.[0]?.lamports, 1_000_000n);
      assert.equal(sim.value.accounts?.[1]?.lamports, 5n * SOL - 1_000_000n - 5000n);
      assert.equal((await rpc.getBalance(recipient.address, { commitment: 'processed' }).send()).value, 0n, 'simulation changed nothing');
      assert.equal((await rpc.getSignatureStatuses([tx.signature]).send()).value[0], null);

      const tooMuch = await transferTx(rpc, payer, recipient.address, 50n * SOL);
      const failed = await rpc.simulateTransaction(tooMuch.wire, { encoding: 'base64', commitment: 'processed' }).send();
      assert.deepEqual(plain(failed.value.err), CUSTOM_1);
      assert.ok(failed.value.logs?.some((l) => l.includes('insufficient lamports')), failed.value.logs?.join('\n'));

      const replaced = await rpc.simulateTransaction(tx.wire, { encoding: 'base64', replaceRecentBlockhash: true, commitment: 'processed' }).send();
      assert.equal(replaced.value.err, null);
      assert.ok(replaced.value.replacementBlockhash?.blockhash);

      const bytes = new Uint8Array(base64.encode(tx.wire));
      bytes[1] = bytes[1]! ^ 0xff; // corrupt the signature
      const badSig = getBase64Decoder().decode(bytes) as Base64EncodedWireTransaction;
      await rejectsWithCode(
        rpc.simulateTransaction(badSig, { encoding: 'base64', sigVerify: true }).send(),
        SOLANA_ERROR__JSON_RPC__SERVER_ERROR_TRANSACTION_SIGNATURE_VERIFICATION_FAILURE,
      );
      const noVerify = await rpc.simulateTransaction(badSig, { encoding: 'base64', sigVerify: false, commitment: 'processed' }).send();
      assert.equal(noVerify.value.err, null, 'without sigVerify the signature is not checked');
    });

    it('sendTransaction lands a transfer; getSignatureStatuses tracks it', async () => {
      const lifetime = await latestBlockhash(rpc);
      ({ wire, signature: sig } = await transferTx(rpc, payer, recipient.address, 1_000_000n, lifetime));
      const returned = await send(rpc, wire);
      assert.equal(returned, sig, 'sendTransaction returns the first signature');
      const [st] = (await rpc.getSignatureStatuses([sig]).send()).value;
      assert.ok(st, 'status is known right after sendTransaction');
      assert.equal(st.err, null);
      assert.deepEqual(st.status, { Ok: null });
      const confirmed = await waitForStatus(rpc, sig, 'confirmed');
      assert.equal(confirmed.slot, st.slot);
      const unknown = (await transferTx(rpc, payer, recipient.address, 7n, lifetime)).signature;
      const both = await rpc.getSignatureStatuses([unknown, sig], { searchTransactionHistory: true }).send();
      assert.equal(both.value[0], null);
      assert.equal(both.value[1]?.slot, st.slot);
      assert.equal((await rpc.getBalance(recipient.address, { commitment: 'confirmed' }).send()).value, 1_000_000n);
      assert.equal((await rpc.getBalance(payer.address, { commitment: 'confirmed' }).send()).value, 5n * SOL - 1_000_000n - 5000n);
    });

    it('getTransaction returns json with the full meta', async () => {
      const tx = await rpc.getTransaction(sig, { commitment: 'confirmed', maxSupportedTransactionVersion: 0, encoding: 'json' }).send();
      assert.ok(tx?.meta);
      assert.equal(tx.version, 0);
      assert.equal(typeof tx.blockTime, 'bigint');
      assert.ok(Math.abs(Number(tx.blockTime) - Date.now() / 1000) < 60);
      assert.deepEqual(tx.transaction.signatures, [sig]);
      assert.deepEqual(tx.transaction.message.accountKeys, [payer.address, recipient.address, SYSTEM_PROGRAM]);
      assert.deepEqual(tx.transaction.message.header, { numReadonlySignedAccounts: 0, numReadonlyUnsignedAccounts: 1, numRequiredSignatures: 1 });
      assert.equal(tx.transaction.message.instructions.length, 1);
      assert.equal(tx.transaction.message.instructions[0]!.programIdIndex, 2);
      assert.deepEqual(tx.transaction.message.instructions[0]!.accounts, [0, 1]);
      assert.equal(tx.meta.err, null);
      assert.deepEqual(tx.meta.status, { Ok: null });
      assert.equal(tx.meta.fee, 5000n);
      assert.deepEqual(tx.meta.preBalances, [5n * SOL, 0n, 1n]);
      assert.deepEqual(tx.meta.postBalances, [5n * SOL - 1_000_000n - 5000n, 1_000_000n, 1n]);
      assert.deepEqual(tx.meta.preTokenBalances, []);
      assert.deepEqual(tx.meta.postTokenBalances, []);
      assert.deepEqual(tx.meta.logMessages, ['Program 11111111111111111111111111111111 invoke [1]', 'Program 11111111111111111111111111111111 success']);
      assert.equal(tx.meta.computeUnitsConsumed, 150n);
    });

    it('getTransaction returns the exact wire bytes as base64 and refuses v0 without maxSupportedTransactionVersion', async () => {
      const tx = await rpc.getTransaction(sig, { commitment: 'confirmed', maxSupportedTransactionVersion: 0, encoding: 'base64' }).send();
      assert.ok(tx);
      assert.deepEqual(tx.transaction, [wire, 'base64']);
      assert.equal(tx.meta?.fee, 5000n);
      await rejectsWithCode(rpc.getTransaction(sig, { commitment: 'confirmed', encoding: 'json' }).send(), SOLANA_ERROR__JSON_RPC__SERVER_ERROR_UNSUPPORTED_TRANSACTION_VERSION);
      const missing = (await transferTx(rpc, payer, recipient.address, 9n)).signature;
      assert.equal(await rpc.getTransaction(missing, { commitment: 'confirmed', maxSupportedTransactionVersion: 0, encoding: 'json' }).send(), null);
    });

    it('a legacy transaction lands and is returned without a version under legacy-only clients', async () => {
      const lifetime = await latestBlockhash(rpc);
      const signed = await signTransactionMessageWithSigners(
        pipe(
          createTransactionMessage({ version: 'legacy' }),
          (m) => setTransactionMessageFeePayerSigner(payer, m),
          (m) => setTransactionMessageLifetimeUsingBlockhash(lifetime, m),
          (m) => appendTransactionMessageInstructions([getTransferSolInstruction({ source: payer, destination: recipient.address, amount: 3000n })], m),
        ),
      );
      const s = await send(rpc, getBase64EncodedWireTransaction(signed));
      assert.equal(s, getSignatureFromTransaction(signed));
      await waitForStatus(rpc, s, 'confirmed');
      const tx = await rpc.getTransaction(s, { commitment: 'confirmed', encoding: 'json' }).send();
      assert.ok(tx);
      assert.equal((tx as { version?: unknown }).version, undefined);
      assert.equal(tx.meta?.postBalances[1], 1_000_000n + 3000n);
      const versioned = await rpc.getTransaction(s, { commitment: 'confirmed', encoding: 'json', maxSupportedTransactionVersion: 0 }).send();
      assert.equal(versioned?.version, 'legacy');
    });

    it('priority fees are charged as getFeeForMessage predicts and reported in meta.fee', async () => {
      const before = (await rpc.getBalance(payer.address, { commitment: 'confirmed' }).send()).value;
      const tx = await buildSignedTransaction(
        payer,
        [
          getSetComputeUnitLimitInstruction({ units: 10_000 }),
          getSetComputeUnitPriceInstruction({ microLamports: 2_000_000n }),
          getTransferSolInstruction({ source: payer, destination: recipient.address, amount: 1n }),
        ],
        await latestBlockhash(rpc),
      );
      await send(rpc, tx.wire);
      await waitForStatus(rpc, tx.signature, 'confirmed');
      const got = await rpc.getTransaction(tx.signature, { commitment: 'confirmed', maxSupportedTransactionVersion: 0, encoding: 'json' }).send();
      assert.equal(got?.meta?.fee, 5000n + 20_000n);
      const after = (await rpc.getBalance(payer.address, { commitment: 'confirmed' }).send()).value;
      assert.equal(before - after, 5000n + 20_000n + 1n, 'what the payer lost is the reported fee plus the transfer');
    });

    it('a transaction that fails on chain (skipPreflight) lands with its error and pays its fee', async () => {
      const before = (await rpc.getBalance(payer.address, { commitment: 'confirmed' }).send()).value;
      const tx = await transferTx(rpc, payer, recipient.address, 100n * SOL);
      assert.equal(await send(rpc, tx.wire, { skipPreflight: true }), tx.signature);
      const st = await waitForStatus(rpc, tx.signature, 'confirmed');
      assert.deepEqual(plain(st.err), CUSTOM_1);
      assert.deepEqual(plain(st.status), { Err: CUSTOM_1 });
      const got = await rpc.getTransaction(tx.signature, { commitment: 'confirmed', maxSupportedTransactionVersion: 0, encoding: 'json' }).send();
      assert.ok(got?.meta);
      assert.deepEqual(plain(got.meta.err), CUSTOM_1);
      assert.equal(got.meta.fee, 5000n);
      assert.equal(got.meta.preBalances[0]! - got.meta.postBalances[0]!, 5000n, 'only the fee is debited');
      assert.equal(got.meta.preBalances[1], got.meta.postBalances[1]);
      assert.ok(got.meta.logMessages?.some((l) => l.includes('failed')), got.meta.logMessages?.join('\n'));
      assert.equal((await rpc.getBalance(payer.address, { commitment: 'confirmed' }).send()).value, before - 5000n);
    });

    it('getSignaturesForAddress lists history newest first, with limit/before/until', async () => {
      const all = await rpc.getSignaturesForAddress(payer.address, { commitment: 'confirmed' }).send();
      const sigs = all.map((x) => x.signature);
      assert.equal(sigs.length, 5, sigs.join('\n'));
      assert.equal(sigs[sigs.length - 1], airdropSig, 'the airdrop is the oldest');
      assert.ok(sigs.includes(sig));
      for (let i = 1; i < all.length; i++) assert.ok(all[i - 1]!.slot >= all[i]!.slot, 'newest first');
      const failed = all[0]!;
      assert.deepEqual(plain(failed.err), CUSTOM_1, 'the failed transfer was the last one');
      assert.equal(all[1]!.err, null);
      assert.ok(all.every((x) => x.confirmationStatus === 'confirmed' || x.confirmationStatus === 'finalized'));
      assert.ok(all.every((x) => typeof x.blockTime === 'bigint' && x.memo === null));

      const first = await rpc.getSignaturesForAddress(payer.address, { commitment: 'confirmed', limit: 1 }).send();
      assert.deepEqual(first.map((x) => x.signature), [sigs[0]]);
      const page2 = await rpc.getSignaturesForAddress(payer.address, { commitment: 'confirmed', limit: 2, before: sigs[1]! }).send();
      assert.deepEqual(page2.map((x) => x.signature), sigs.slice(2, 4));
      const untilSig = await rpc.getSignaturesForAddress(payer.address, { commitment: 'confirmed', until: sigs[2]! }).send();
      assert.deepEqual(untilSig.map((x) => x.signature), sigs.slice(0, 2));
      const recv = await rpc.getSignaturesForAddress(recipient.address, { commitment: 'confirmed' }).send();
      assert.ok(recv.some((x) => x.signature === sig) && !recv.some((x) => x.signature === airdropSig));
      const nobody = (await generateKeyPairSigner()).address;
      assert.deepEqual(await rpc.getSignaturesForAddress(nobody).send(), []);
    });
  });
});

async function mintSupply(rpc: LocalRpc, mint: Address): Promise<bigint> {
  const info = (await rpc.getAccountInfo(mint, { encoding: 'jsonParsed', commitment: 'confirmed' }).send()).value;
  return BigInt((info?.data as { parsed: { info: { supply: string } } }).parsed.info.supply);
}

