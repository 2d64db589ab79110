/**
 * Concurrent senders: many wallets sending at once through kit, every transaction landing exactly
 * once, and the books balancing afterwards (lamports and tokens).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  createSolanaRpc,
  generateKeyPairSigner,
  isSolanaError,
  lamports,
  SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE,
  SOLANA_ERROR__TRANSACTION_ERROR__ALREADY_PROCESSED,
  type Address,
  type KeyPairSigner,
  type Signature,
} from '@solana/kit';
import { findAssociatedTokenPda } from '@solana-program/token';
import {
  LAMPORTS_PER_SIGNATURE,
  latestBlockhash,
  MINTS,
  pollUntil,
  requestTokenAirdrop,
  send,
  SOL,
  startTestLocalnet,
  TOKEN_PROGRAM,
  transferTx,
  type LocalRpc,
  type TestLocalnet,
} from '../support/localnet.ts';

const WALLETS = 24;
const TX_PER_WALLET = 6;

/** Waits until every signature is confirmed (statuses fetched in batches of 256) and returns the statuses. */
async function confirmAll(rpc: LocalRpc, sigs: Signature[]) {
  return pollUntil(
    async () => {
      const out = [];
      for (let i = 0; i < sigs.length; i += 256) out.push(...(await rpc.getSignatureStatuses(sigs.slice(i, i + 256)).send()).value);
      return out.every((s) => s && s.confirmationStatus !== 'processed') ? out : null;
    },
    { timeoutMs: 20_000, what: `${sigs.length} signatures to be confirmed` },
  );
}

async function balanceOf(rpc: LocalRpc, a: Address): Promise<bigint> {
  return (await rpc.getBalance(a, { commitment: 'confirmed' }).send()).value;
}

describe('localnet under concurrent senders', () => {
  let ln: TestLocalnet;
  let rpc: LocalRpc;
  let wallets: KeyPairSigner[];
  const initial = new Map<Address, bigint>();

  before(async () => {
    // 50 ms slots: a blockhash lives 7.5 s, as long as a loaded machine may take to sign and send the 144
    // transfers that share one (at 20 ms, 3 s: some were sent after it died, "Transaction simulation failed").
    ln = await startTestLocalnet({ slotMs: 50 });
    rpc = ln.rpc;
    wallets = await Promise.all(Array.from({ length: WALLETS }, () => generateKeyPairSigner()));
  });
  after(async () => {
    await ln?.close();
  });

  it('funds many wallets with parallel airdrops, each landing once', async () => {
    const sigs = await Promise.all(
      wallets.map((w, i) => {
        const amount = 10n * SOL + BigInt(i);
        initial.set(w.address, amount);
        return rpc.requestAirdrop(w.address, lamports(amount)).send();
      }),
    );
    assert.equal(new Set(sigs).size, WALLETS, 'distinct signatures');
    const statuses = await confirmAll(rpc, sigs);
    assert.ok(statuses.every((s) => s!.err === null));
    for (const w of wallets) assert.equal(await balanceOf(rpc, w.address), initial.get(w.address));
  });

  it('lands every one of many parallel transfers exactly once and the balances add up', async () => {
    const sink = (await generateKeyPairSigner()).address;
    const lifetime = await latestBlockhash(rpc);
    const planned: { from: Address; to: Address; amount: bigint }[] = [];
    const txs = await Promise.all(
      wallets.flatMap((w, i) =>
        Array.from({ length: TX_PER_WALLET }, (_, j) => {
          // Half to a shared sink (write contention on one account), half around a ring of wallets.
          const to = j % 2 === 0 ? sink : wallets[(i + 1) % WALLETS]!.address;
          const amount = SOL / 100n + BigInt(i * 1000 + j);
          planned.push({ from: w.address, to, amount });
          return transferTx(rpc, w, to, amount, lifetime);
        }),
      ),
    );
    const t0 = Date.now();
    const returned = await Promise.all(txs.map((t) => send(rpc, t.wire)));
    const elapsed = Date.now() - t0;
    assert.deepEqual(returned, txs.map((t) => t.signature), 'each send returns its own signature');
    const sigs = txs.map((t) => t.signature);
    assert.equal(new Set(sigs).size, WALLETS * TX_PER_WALLET);
    const statuses = await confirmAll(rpc, sigs);
    assert.ok(statuses.every((s) => s!.err === null), 'all succeeded');

    // Exactly once: the sink's history lists each transfer to it once, and nothing else.
    const toSink = sigs.filter((_, k) => planned[k]!.to === sink);
    const history = await rpc.getSignaturesForAddress(sink, { commitment: 'confirmed' }).send();
    assert.equal(history.length, toSink.length);
    assert.deepEqual(new Set(history.map((h) => h.signature)), new Set(toSink));

    // Balances: every wallet = initial − sent − fees + received; the sink = everything sent to it.
    const expected = new Map(initial);
    expected.set(sink, 0n);
    for (const p of planned) {
      expected.set(p.from, expected.get(p.from)! - p.amount - LAMPORTS_PER_SIGNATURE);
      expected.set(p.to, expected.get(p.to)! + p.amount);
    }
    for (const [a, v] of expected) assert.equal(await balanceOf(rpc, a), v, `balance of ${a}`);
    const totalBefore = [...initial.values()].reduce((x, y) => x + y, 0n);
    const totalAfter = (await Promise.all([...expected.keys()].map((a) => balanceOf(rpc, a)))).reduce((x, y) => x + y, 0n);
    assert.equal(totalBefore - totalAfter, BigInt(planned.length) * LAMPORTS_PER_SIGNATURE, 'only fees left the system');

    // The fee in each transaction's meta matches, and each landed in exactly one slot.
    const metas = await Promise.all(sigs.slice(0, 20).map((s) => rpc.getTransaction(s, { commitment: 'confirmed', maxSupportedTransactionVersion: 0, encoding: 'json' }).send()));
    for (const [k, m] of metas.entries()) {
      assert.equal(m?.meta?.fee, LAMPORTS_PER_SIGNATURE);
      assert.equal(m?.slot, statuses[k]!.slot);
    }
    assert.ok(elapsed < 15_000, `sending ${sigs.length} transactions took ${elapsed} ms`);
  });

  it('accepts exactly one of many concurrent copies of the same transaction', async () => {
    const [payer] = wallets;
    const to = (await generateKeyPairSigner()).address;
    const tx = await transferTx(rpc, payer!, to, SOL);
    const before = await balanceOf(rpc, payer!.address);
    // One client per copy: a single kit client would coalesce identical in-flight requests into one.
    const clients = Array.from({ length: 12 }, () => createSolanaRpc(ln.url));
    const results = await Promise.allSettled(clients.map((c) => send(c, tx.wire)));
    const ok = results.filter((r) => r.status === 'fulfilled');
    const failed = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    assert.equal(ok.length, 1, 'exactly one copy is accepted');
    assert.equal((ok[0] as PromiseFulfilledResult<Signature>).value, tx.signature);
    for (const f of failed) {
      assert.ok(isSolanaError(f.reason, SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE), String(f.reason));
      assert.ok(isSolanaError(f.reason.cause, SOLANA_ERROR__TRANSACTION_ERROR__ALREADY_PROCESSED), String(f.reason.cause));
    }
    // Copies sent without preflight are dropped, not applied.
    const dropped = await Promise.all(clients.map((c) => send(c, tx.wire, { skipPreflight: true })));
    assert.ok(dropped.every((s) => s === tx.signature));
    await confirmAll(rpc, [tx.signature]);
    assert.equal(await balanceOf(rpc, to), SOL);
    assert.equal(before - (await balanceOf(rpc, payer!.address)), SOL + LAMPORTS_PER_SIGNATURE);
  });

  it('mints parallel token airdrops to many owners (and several to one owner) exactly once', async () => {
    const owners = wallets.slice(0, 12);
    const supplyBefore = await usdcSupply(rpc);
    const requests: { owner: Address; amount: bigint }[] = [];
    owners.forEach((o, i) => requests.push({ owner: o.address, amount: 1_000_000n + BigInt(i) }));
    // Several concurrent airdrops to one brand-new owner race to create the same associated token account.
    const newcomer = (await generateKeyPairSigner()).address;
    for (let k = 1; k <= 5; k++) requests.push({ owner: newcomer, amount: BigInt(k) * 10_000n });
    const sigs = await Promise.all(requests.map((r) => requestTokenAirdrop(ln.url, r.owner, MINTS.USDC, r.amount)));
    assert.equal(new Set(sigs).size, requests.length);
    const statuses = await confirmAll(rpc, sigs);
    assert.ok(statuses.every((s) => s!.err === null));
    const expected = new Map<Address, bigint>();
    for (const r of requests) expected.set(r.owner, (expected.get(r.owner) ?? 0n) + r.amount);
    for (const [owner, amount] of expected) {
      const [ata] = await findAssociatedTokenPda({ owner, mint: MINTS.USDC, tokenProgram: TOKEN_PROGRAM });
      assert.equal((await rpc.getTokenAccountBalance(ata, { commitment: 'confirmed' }).send()).value.amount, amount.toString(), `USDC of ${owner}`);
      const accounts = await rpc.getTokenAccountsByOwner(owner, { mint: MINTS.USDC }, { commitment: 'confirmed', encoding: 'base64' }).send();
      assert.equal(accounts.value.length, 1, 'one associated token account per owner');
    }
    const total = requests.reduce((x, r) => x + r.amount, 0n);
    assert.equal((await usdcSupply(rpc)) - supplyBefore, total, 'mint supply grew by exactly the amounts airdropped');
  });
});

async function usdcSupply(rpc: LocalRpc): Promise<bigint> {
  const info = (await rpc.getAccountInfo(MINTS.USDC, { encoding: 'jsonParsed', commitment: 'confirmed' }).send()).value;
  return BigInt((info?.data as { parsed: { info: { supply: string } } }).parsed.info.supply);
}
