/**
 * How the localnet fails: expired and recent blockhashes, duplicates, insufficient funds, bad
 * signatures, JSON-RPC protocol errors and garbage input. Errors are observed the way
 * an application sees them: as kit SolanaErrors (or, for protocol-level probes kit cannot express,
 * as the raw JSON-RPC response).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import {
  generateKeyPairSigner, getBase58Decoder, getBase64Decoder, getBase64Encoder, isSolanaError, lamports,
  SOLANA_ERROR__INSTRUCTION_ERROR__CUSTOM, SOLANA_ERROR__JSON_RPC__INVALID_PARAMS,
  SOLANA_ERROR__JSON_RPC__METHOD_NOT_FOUND,
  SOLANA_ERROR__JSON_RPC__SERVER_ERROR_MIN_CONTEXT_SLOT_NOT_REACHED,
  SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE,
  SOLANA_ERROR__JSON_RPC__SERVER_ERROR_TRANSACTION_SIGNATURE_VERIFICATION_FAILURE,
  SOLANA_ERROR__TRANSACTION_ERROR__ACCOUNT_NOT_FOUND, SOLANA_ERROR__TRANSACTION_ERROR__ALREADY_PROCESSED,
  SOLANA_ERROR__TRANSACTION_ERROR__BLOCKHASH_NOT_FOUND,
  SOLANA_ERROR__TRANSACTION_ERROR__INSUFFICIENT_FUNDS_FOR_FEE,
  SOLANA_ERROR__TRANSACTION_ERROR__INSUFFICIENT_FUNDS_FOR_RENT, type Address,
  type Base64EncodedWireTransaction, type KeyPairSigner, type Signature, type SolanaError,
} from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { findAssociatedTokenPda, getTransferInstruction } from '@solana-program/token';
import {
  getSetComputeUnitLimitInstruction, getSetComputeUnitPriceInstruction,
} from '@solana-program/compute-budget';
import {
  buildSignedTransaction, fundedWallet, latestBlockhash, MINTS, postRaw, requestTokenAirdrop, send, SOL,
  startTestLocalnet, TOKEN_PROGRAM, transferTx, waitForSlot, waitForStatus, type LocalRpc, type TestLocalnet,
} from '../support/localnet.ts';

const b64 = getBase64Encoder();
const b64dec = getBase64Decoder();

/** Asserts a kit SolanaError with this JSON-RPC code (and, for preflight failures, this cause code). */
async function rejectsWith(p: Promise<unknown>, code: number, causeCode?: number): Promise<SolanaError> {
  let caught: unknown = null;
  try {
    await p;
  } catch (e) {
    caught = e;
  }
  assert.ok(caught, 'expected the request to fail');
  assert.ok(isSolanaError(caught), `expected a SolanaError, got ${String(caught)}`);
  assert.equal((caught.context as { __code: number }).__code, code, caught.message);
  if (causeCode !== undefined) {
    const cause = caught.cause;
    assert.ok(isSolanaError(cause), `expected a SolanaError cause, got ${String(cause)}`);
    assert.equal((cause.context as { __code: number }).__code, causeCode, cause.message);
  }
  return caught;
}

async function balance(rpc: LocalRpc, a: Address): Promise<bigint> {
  return (await rpc.getBalance(a, { commitment: 'processed' }).send()).value;
}

/** Polls for `slots` slots and asserts the signature never gets a status. */
async function assertNeverLands(rpc: LocalRpc, sig: Signature, slots: bigint): Promise<void> {
  const start = await rpc.getSlot({ commitment: 'processed' }).send();
  for (;;) {
    const [st] = (await rpc.getSignatureStatuses([sig], { searchTransactionHistory: true }).send()).value;
    assert.equal(st, null, `${sig} must not land`);
    if ((await rpc.getSlot({ commitment: 'processed' }).send()) >= start + slots) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  assert.equal(await rpc.getTransaction(sig, { commitment: 'confirmed', maxSupportedTransactionVersion: 0, encoding: 'json' }).send(), null);
}

describe('localnet failure modes', () => {
  let ln: TestLocalnet;
  let rpc: LocalRpc;
  let payer: KeyPairSigner;

  before(async () => {
    ln = await startTestLocalnet({ slotMs: 20 });
    rpc = ln.rpc;
    payer = await fundedWallet(rpc, 20n * SOL);
  });
  after(async () => {
    await ln?.close();
  });

  describe('blockhash lifetime', () => {
    it('accepts any of the last 150 blockhashes and rejects an expired one with BlockhashNotFound', async () => {
      const to = (await generateKeyPairSigner()).address;
      const { context, value: lifetime } = await rpc.getLatestBlockhash({ commitment: 'processed' }).send();
      assert.equal(lifetime.lastValidBlockHeight, context.slot + 150n);
      const early = await transferTx(rpc, payer, to, SOL, lifetime);
      const late = await transferTx(rpc, payer, to, 2n * SOL, lifetime);
      const dropped = await transferTx(rpc, payer, to, 3n * SOL, lifetime);

      // 100 slots on, the blockhash is old but still inside the window: the transaction lands.
      await waitForSlot(rpc, context.slot + 100n);
      const stillValid = await rpc.isBlockhashValid(lifetime.blockhash, { commitment: 'processed' }).send();
      assert.equal(stillValid.value, stillValid.context.slot <= lifetime.lastValidBlockHeight);
      assert.equal(stillValid.value, true);
      await send(rpc, early.wire);
      await waitForStatus(rpc, early.signature, 'confirmed');

      // The blockhash stays valid exactly while the block height is <= lastValidBlockHeight.
      await waitFor(async () => {
        const v = await rpc.isBlockhashValid(lifetime.blockhash, { commitment: 'processed' }).send();
        assert.equal(v.value, v.context.slot <= lifetime.lastValidBlockHeight, `slot ${v.context.slot}`);
        return !v.value;
      }, 'the blockhash to expire');

      await rejectsWith(
        send(rpc, late.wire),
        SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE,
        SOLANA_ERROR__TRANSACTION_ERROR__BLOCKHASH_NOT_FOUND,
      );
      const sim = await rpc.simulateTransaction(late.wire, { encoding: 'base64', commitment: 'processed' }).send();
      assert.equal(sim.value.err, 'BlockhashNotFound');

      // Without preflight the RPC hands back the signature, but the cluster drops the transaction.
      assert.equal(await send(rpc, dropped.wire, { skipPreflight: true }), dropped.signature);
      await assertNeverLands(rpc, dropped.signature, 8n);
      assert.equal(await balance(rpc, to), SOL, 'only the transaction sent in time moved lamports');
    });

    it('rejects a blockhash this chain never produced', async () => {
      const lifetime = await latestBlockhash(rpc);
      const fake = { ...lifetime, blockhash: getBase58Decoder().decode(randomBytes(32)) as typeof lifetime.blockhash };
      const tx = await transferTx(rpc, payer, payer.address, 1n, fake);
      await rejectsWith(send(rpc, tx.wire), SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE, SOLANA_ERROR__TRANSACTION_ERROR__BLOCKHASH_NOT_FOUND);
    });
  });

  describe('transaction rejections', () => {
    it('refuses a duplicate transaction with AlreadyProcessed and never applies it twice', async () => {
      const to = (await generateKeyPairSigner()).address;
      const tx = await transferTx(rpc, payer, to, SOL);
      const before = await balance(rpc, payer.address);
      assert.equal(await send(rpc, tx.wire), tx.signature);
      await rejectsWith(send(rpc, tx.wire), SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE, SOLANA_ERROR__TRANSACTION_ERROR__ALREADY_PROCESSED);
      await waitForStatus(rpc, tx.signature, 'confirmed');
      // Still a duplicate once confirmed; without preflight it is silently dropped.
      await rejectsWith(send(rpc, tx.wire), SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE, SOLANA_ERROR__TRANSACTION_ERROR__ALREADY_PROCESSED);
      assert.equal(await send(rpc, tx.wire, { skipPreflight: true }), tx.signature);
      await waitForSlot(rpc, (await rpc.getSlot({ commitment: 'processed' }).send()) + 3n);
      assert.equal(await balance(rpc, to), SOL);
      assert.equal(before - (await balance(rpc, payer.address)), SOL + 5000n, 'one transfer, one fee');
      const history = await rpc.getSignaturesForAddress(to, { commitment: 'confirmed' }).send();
      assert.deepEqual(history.map((h) => h.signature), [tx.signature]);
    });

    it('rejects a transfer larger than the balance without charging a fee', async () => {
      const poor = await fundedWallet(rpc, SOL / 10n);
      const to = (await generateKeyPairSigner()).address;
      const tx = await transferTx(rpc, poor, to, SOL);
      const err = await rejectsWith(send(rpc, tx.wire), SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE, SOLANA_ERROR__INSTRUCTION_ERROR__CUSTOM);
      const ctx = err.context as unknown as { logs: string[] };
      assert.ok(ctx.logs.some((l) => l.includes('insufficient lamports')), ctx.logs.join('\n'));
      assert.equal((err.cause as SolanaError).context && ((err.cause as SolanaError).context as { code: unknown }).code, 1);
      assert.equal(await balance(rpc, poor.address), SOL / 10n, 'a failed preflight charges nothing');
      assert.equal((await rpc.getSignatureStatuses([tx.signature]).send()).value[0], null);
    });

    it('rejects a fee payer that does not exist or cannot pay the fee', async () => {
      const ghost = await generateKeyPairSigner();
      const tx = await transferTx(rpc, ghost, payer.address, 1n);
      await rejectsWith(send(rpc, tx.wire), SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE, SOLANA_ERROR__TRANSACTION_ERROR__ACCOUNT_NOT_FOUND);
      assert.equal(await send(rpc, tx.wire, { skipPreflight: true }), tx.signature);

      // Exactly the rent-exempt minimum: paying the fee would leave the payer rent-paying (as on Agave).
      const rentMin = await rpc.getMinimumBalanceForRentExemption(0n).send();
      const broke = await fundedWallet(rpc, rentMin);
      const tx2 = await transferTx(rpc, broke, payer.address, 1n);
      await rejectsWith(send(rpc, tx2.wire), SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE, SOLANA_ERROR__TRANSACTION_ERROR__INSUFFICIENT_FUNDS_FOR_RENT);
      // A priority fee larger than the whole balance: the fee itself cannot be paid.
      const tx3 = await buildSignedTransaction(
        broke,
        [
          getSetComputeUnitLimitInstruction({ units: 1_000_000 }),
          getSetComputeUnitPriceInstruction({ microLamports: 1_000_000n }),
          getTransferSolInstruction({ source: broke, destination: payer.address, amount: 1n }),
        ],
        await latestBlockhash(rpc),
      );
      await rejectsWith(send(rpc, tx3.wire), SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE, SOLANA_ERROR__TRANSACTION_ERROR__INSUFFICIENT_FUNDS_FOR_FEE);
      assert.equal(await send(rpc, tx3.wire, { skipPreflight: true }), tx3.signature);
      await assertNeverLands(rpc, tx.signature, 4n);
      assert.equal((await rpc.getSignatureStatuses([tx3.signature]).send()).value[0], null);
      assert.equal(await balance(rpc, broke.address), rentMin);
    });

    it('rejects a token transfer larger than the token balance', async () => {
      const owner = await fundedWallet(rpc, SOL);
      const sig = await requestTokenAirdrop(ln.url, owner.address, MINTS.USDC, 1_000_000n);
      await waitForStatus(rpc, sig, 'confirmed');
      const [source] = await findAssociatedTokenPda({ owner: owner.address, mint: MINTS.USDC, tokenProgram: TOKEN_PROGRAM });
      const other = await generateKeyPairSigner();
      const otherSig = await requestTokenAirdrop(ln.url, other.address, MINTS.USDC, 1n);
      await waitForStatus(rpc, otherSig, 'confirmed');
      const [destination] = await findAssociatedTokenPda({ owner: other.address, mint: MINTS.USDC, tokenProgram: TOKEN_PROGRAM });
      const tx = await buildSignedTransaction(owner, [getTransferInstruction({ source, destination, authority: owner, amount: 2_000_000n })], await latestBlockhash(rpc));
      const err = await rejectsWith(send(rpc, tx.wire), SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE, SOLANA_ERROR__INSTRUCTION_ERROR__CUSTOM);
      assert.equal(((err.cause as SolanaError).context as { code: unknown }).code, 1, 'spl-token InsufficientFunds');
      assert.equal((await rpc.getTokenAccountBalance(source, { commitment: 'processed' }).send()).value.amount, '1000000');
    });

    it('rejects a transaction whose signature does not verify', async () => {
      const tx = await transferTx(rpc, payer, payer.address, 1n);
      const bytes = new Uint8Array(b64.encode(tx.wire));
      bytes[10] = bytes[10]! ^ 0x01;
      const forged = b64dec.decode(bytes) as Base64EncodedWireTransaction;
      await rejectsWith(send(rpc, forged), SOLANA_ERROR__JSON_RPC__SERVER_ERROR_TRANSACTION_SIGNATURE_VERIFICATION_FAILURE);
    });
  });

  describe('protocol errors', () => {
    it('unknown method → -32601, through kit and raw', async () => {
      const anyRpc = rpc as unknown as { noSuchMethod(): { send(): Promise<unknown> } };
      await rejectsWith(anyRpc.noSuchMethod().send(), SOLANA_ERROR__JSON_RPC__METHOD_NOT_FOUND);
      const raw = await postRaw(ln.url, '{"jsonrpc":"2.0","id":41,"method":"getEverything","params":[]}');
      assert.equal(raw.status, 200);
      assert.deepEqual(raw.body, { jsonrpc: '2.0', error: { code: -32601, message: 'Method not found' }, id: 41 });
      const proto = await postRaw(ln.url, '{"jsonrpc":"2.0","id":42,"method":"toString"}');
      assert.equal(proto.body.error.code, -32601, 'object prototype names are not methods');
    });

    it('bad params → -32602 through kit', async () => {
      await rejectsWith(rpc.getBalance('not-an-address' as Address).send(), SOLANA_ERROR__JSON_RPC__INVALID_PARAMS);
      await rejectsWith(rpc.getAccountInfo(payer.address, { encoding: 'base64+zstd' }).send(), SOLANA_ERROR__JSON_RPC__INVALID_PARAMS);
      await rejectsWith(rpc.getSlot({ commitment: 'bogus' as 'processed' }).send(), SOLANA_ERROR__JSON_RPC__INVALID_PARAMS);
      await rejectsWith(rpc.getSignatureStatuses(['xyz' as Signature]).send(), SOLANA_ERROR__JSON_RPC__INVALID_PARAMS);
      await rejectsWith(rpc.getTransaction('1' as Signature).send(), SOLANA_ERROR__JSON_RPC__INVALID_PARAMS);
      await rejectsWith(rpc.getMinimumBalanceForRentExemption(100n * 1024n * 1024n).send(), SOLANA_ERROR__JSON_RPC__INVALID_PARAMS);
      await rejectsWith(rpc.getMultipleAccounts(new Array<Address>(101).fill(payer.address)).send(), SOLANA_ERROR__JSON_RPC__INVALID_PARAMS);
      await rejectsWith(rpc.requestAirdrop(payer.address, lamports(0n)).send(), SOLANA_ERROR__JSON_RPC__INVALID_PARAMS);
      await rejectsWith(rpc.getSignaturesForAddress(payer.address, { commitment: 'processed' as 'confirmed' }).send(), SOLANA_ERROR__JSON_RPC__INVALID_PARAMS);
      await rejectsWith(rpc.getSignaturesForAddress(payer.address, { limit: 1001 }).send(), SOLANA_ERROR__JSON_RPC__INVALID_PARAMS);
      await rejectsWith(rpc.getSlot({ minContextSlot: 10n ** 12n }).send(), SOLANA_ERROR__JSON_RPC__SERVER_ERROR_MIN_CONTEXT_SLOT_NOT_REACHED);
    });

    it('wrong types → -32602, malformed requests → -32600', async () => {
      const call = (params: string, method = 'getBalance') => postRaw(ln.url, `{"jsonrpc":"2.0","id":9,"method":"${method}","params":${params}}`);
      const invalidParams: [string, string][] = [
        ['getBalance', '[12345]'],
        ['getBalance', `{"pubkey":"${payer.address}"}`],
        ['getBalance', `["${payer.address}", "confirmed"]`],
        ['getBalance', `["${payer.address}", {"commitment":"confirmed"}, 3]`],
        ['getBalance', `["${payer.address}", {"commitmentt":"confirmed"}]`],
        ['getSlot', '["processed"]'],
        ['getMinimumBalanceForRentExemption', '["165"]'],
        ['getMinimumBalanceForRentExemption', '[-1]'],
        ['requestAirdrop', `["${payer.address}", 1.5]`],
        ['requestAirdrop', `["${payer.address}", -1]`],
        ['requestAirdrop', `["${payer.address}", 18446744073709551616]`],
        ['getMultipleAccounts', `["${payer.address}"]`],
        ['getSignatureStatuses', '["abc"]'],
        ['isBlockhashValid', '[42]'],
        ['sendTransaction', '[42]'],
        ['sendTransaction', '["AAAA", {"encoding":"base32"}]'],
        ['sendTransaction', '["AAAA", {"encoding":"base64","skipPreflight":"yes"}]'],
        ['getTokenAccountsByOwner', `["${payer.address}", {"mint":"${MINTS.USDC}","programId":"${TOKEN_PROGRAM}"}]`],
        ['getAccountInfo', `["${payer.address}", {"encoding":"base64","dataSlice":{"offset":-1,"length":2}}]`],
      ];
      for (const [method, params] of invalidParams) {
        const res = await call(params, method);
        assert.equal(res.status, 200);
        assert.equal(res.body?.error?.code, -32602, `${method} ${params}: ${JSON.stringify(res.body)}`);
        assert.equal(res.body.id, 9);
      }
      for (const body of [
        '{"jsonrpc":"1.0","id":1,"method":"getSlot"}',
        '{"id":1,"method":"getSlot"}',
        '{"jsonrpc":"2.0","id":1,"method":7}',
        '{"jsonrpc":"2.0","id":{"x":1},"method":"getSlot"}',
        '[]',
        '42',
        '"getSlot"',
      ]) {
        const res = await postRaw(ln.url, body);
        assert.equal(res.body?.error?.code, -32600, `${body}: ${JSON.stringify(res.body)}`);
      }
    });

    it('malformed JSON → -32700 with a null id', async () => {
      for (const body of ['{"jsonrpc":"2.0","id":1,"method":"getSlot"', 'not json at all', '', '{"jsonrpc":"2.0",,}']) {
        const res = await postRaw(ln.url, body);
        assert.equal(res.status, 200);
        assert.deepEqual(res.body, { jsonrpc: '2.0', error: { code: -32700, message: 'Parse error' }, id: null }, `body ${JSON.stringify(body)}`);
      }
      const textPlain = await postRaw(ln.url, '{"jsonrpc":"2.0","id":3,"method":"getHealth"}', { 'content-type': 'text/plain' });
      assert.equal(textPlain.body.result, 'ok', 'any content type is read as JSON-RPC');
    });

    it('a body over 50 KiB → HTTP 413 with a JSON-RPC error; just under the limit is served', async () => {
      const request = '{"jsonrpc":"2.0","id":5,"method":"getHealth"}';
      const limit = 50 * 1024;
      const under = await postRaw(ln.url, request + ' '.repeat(limit - request.length));
      assert.equal(under.status, 200);
      assert.equal(under.body.result, 'ok');
      const over = await postRaw(ln.url, request + ' '.repeat(limit - request.length + 1));
      assert.equal(over.status, 413);
      assert.equal(over.body.jsonrpc, '2.0');
      assert.equal(typeof over.body.error?.code, 'number');
      assert.match(over.body.error.message, /exceeds/);
      const huge = await postRaw(ln.url, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'sendTransaction', params: ['A'.repeat(200_000)] }));
      assert.equal(huge.status, 413);
      assert.equal(await rpc.getHealth().send(), 'ok', 'the server still answers');
    });

    it('batches answer each request by id and skip notifications', async () => {
      const res = await postRaw(
        ln.url,
        JSON.stringify([
          { jsonrpc: '2.0', id: 1, method: 'getHealth' },
          { jsonrpc: '2.0', id: 2, method: 'nope' },
          { jsonrpc: '2.0', method: 'getHealth' },
          { jsonrpc: '2.0', id: 'three', method: 'getBalance', params: [payer.address] },
        ]),
      );
      assert.equal(res.status, 200);
      assert.equal(res.body.length, 3);
      assert.deepEqual(res.body[0], { jsonrpc: '2.0', result: 'ok', id: 1 });
      assert.equal(res.body[1].error.code, -32601);
      assert.equal(res.body[2].id, 'three');
      assert.equal(typeof res.body[2].result.value, 'number');
    });

    it('garbage transaction bytes → a JSON-RPC error, and the server keeps working', async () => {
      const garbage: string[] = [
        b64dec.decode(randomBytes(300)),
        b64dec.decode(new Uint8Array([1])),
        b64dec.decode(new Uint8Array(0)),
        '!!!not base64!!!',
        b64dec.decode(randomBytes(1300)), // too large once decoded / encoded
      ];
      // A real transaction cut short, and one with an extra signature count.
      const real = await transferTx(rpc, payer, payer.address, 1n);
      const realBytes = new Uint8Array(b64.encode(real.wire));
      garbage.push(b64dec.decode(realBytes.subarray(0, realBytes.length - 10)));
      const wrongCount = realBytes.slice();
      wrongCount[0] = 2;
      garbage.push(b64dec.decode(wrongCount));
      for (const g of garbage) {
        for (const skipPreflight of [false, true]) {
          let caught: unknown = null;
          try {
            await send(rpc, g as Base64EncodedWireTransaction, { skipPreflight });
          } catch (e) {
            caught = e;
          }
          assert.ok(isSolanaError(caught), `garbage ${g.slice(0, 20)}… must fail with a SolanaError, got ${String(caught)}`);
          const code = (caught.context as { __code: number }).__code;
          assert.ok(code === -32602 || code === -32002, `garbage ${g.slice(0, 20)}… → ${code}: ${caught.message}`);
        }
        const sim = rpc.simulateTransaction(g as Base64EncodedWireTransaction, { encoding: 'base64' }).send();
        await assert.rejects(sim, (e: unknown) => isSolanaError(e, SOLANA_ERROR__JSON_RPC__INVALID_PARAMS));
      }
      const base58Garbage = await postRaw(ln.url, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'sendTransaction', params: ['0OIl'] }));
      assert.equal(base58Garbage.body.error.code, -32602);

      // The node is still healthy and still lands transactions.
      assert.equal(await rpc.getHealth().send(), 'ok');
      assert.equal(await send(rpc, real.wire), real.signature);
      const st = await waitForStatus(rpc, real.signature, 'confirmed');
      assert.equal(st.err, null);
    });
  });
});

async function waitFor(f: () => Promise<boolean>, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await f())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
