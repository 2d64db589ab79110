/**
 * The localnet's transaction JSON-RPC methods, driven through @solana/kit's createSolanaRpc over HTTP
 * (the custom localnet_requestTokenAirdrop through fetch), checked against the shapes and values a
 * real Solana node returns.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  appendTransactionMessageInstructions, compileTransaction, createTransactionMessage, generateKeyPairSigner,
  getBase64Decoder, getSignatureFromTransaction, getBase64EncodedWireTransaction, lamports, pipe,
  setTransactionMessageFeePayerSigner, setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners, SOLANA_ERROR__JSON_RPC__SERVER_ERROR_UNSUPPORTED_TRANSACTION_VERSION,
  SOLANA_ERROR__JSON_RPC__SERVER_ERROR_TRANSACTION_SIGNATURE_VERIFICATION_FAILURE,
  type Base64EncodedWireTransaction, type KeyPairSigner, type Signature, type TransactionMessageBytesBase64,
} from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import {
  getSetComputeUnitLimitInstruction, getSetComputeUnitPriceInstruction,
} from '@solana-program/compute-budget';
import {
  buildSignedTransaction, latestBlockhash, send, SOL, startTestLocalnet, transferTx, waitForStatus,
  type LocalRpc, type TestLocalnet,
} from '../support/localnet.ts';
import { base64, CUSTOM_1, plain, rejectsWithCode, SYSTEM_PROGRAM } from '../support/rpc-checks.ts';

describe('localnet JSON-RPC methods through @solana/kit: transactions', () => {
  let ln: TestLocalnet, rpc: LocalRpc;
  before(async () => void ({ rpc } = ln = await startTestLocalnet({ slotMs: 20 })));
  after(async () => ln?.close());

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
