/**
 * Durability of the localnet run as the real CLI (`node --import tsx src/cli/localnet.ts`) in a child
 * process: whatever the RPC reported as confirmed must survive `kill -9` and a graceful SIGTERM, with
 * balances, transactions and address history intact, and the chain must carry on from where it was.
 */
import assert from 'node:assert/strict';
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
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
  makeTempDir,
  MINTS,
  removeDir,
  requestTokenAirdrop,
  send,
  SOL,
  spawnLocalnet,
  TOKEN_PROGRAM,
  transferTx,
  waitForSlot,
  waitForStatus,
  type ChildLocalnet,
  type LocalRpc,
} from '../support/localnet.ts';

const SLOT_MS = 25;

interface Observed {
  genesis: string;
  /** Highest slot any request saw before the stop. */
  slot: bigint;
  transactions: Map<Signature, unknown>;
  statuses: Map<Signature, { slot: bigint; err: unknown; confirmationStatus: string | null }>;
  history: Map<Address, { signature: Signature; slot: bigint; err: unknown; blockTime: unknown }[]>;
  balances: Map<Address, bigint>;
  tokenBalances: Map<Address, string>;
}

/** Everything a client could have seen, read at `confirmed` so it is all covered by the durability promise. */
async function observe(rpc: LocalRpc, sigs: Signature[], addresses: Address[], tokenAccounts: Address[]): Promise<Observed> {
  const transactions = new Map<Signature, unknown>();
  const statuses: Observed['statuses'] = new Map();
  const st = (await rpc.getSignatureStatuses(sigs).send()).value;
  for (const [i, s] of sigs.entries()) {
    const status = st[i];
    assert.ok(status, `${s} has a status`);
    assert.ok(status.confirmationStatus === 'confirmed' || status.confirmationStatus === 'finalized', `${s} is confirmed before the stop`);
    statuses.set(s, { slot: status.slot, err: status.err, confirmationStatus: status.confirmationStatus });
    const tx = await rpc.getTransaction(s, { commitment: 'confirmed', maxSupportedTransactionVersion: 0, encoding: 'json' }).send();
    assert.ok(tx, `${s} is returned at confirmed`);
    transactions.set(s, tx);
  }
  const history: Observed['history'] = new Map();
  const balances = new Map<Address, bigint>();
  for (const a of addresses) {
    const h = await rpc.getSignaturesForAddress(a, { commitment: 'confirmed' }).send();
    history.set(
      a,
      h.map((x) => ({ signature: x.signature, slot: x.slot, err: x.err, blockTime: x.blockTime })),
    );
    balances.set(a, (await rpc.getBalance(a, { commitment: 'confirmed' }).send()).value);
  }
  const tokenBalances = new Map<Address, string>();
  for (const t of tokenAccounts) tokenBalances.set(t, (await rpc.getTokenAccountBalance(t, { commitment: 'confirmed' }).send()).value.amount);
  return {
    genesis: await rpc.getGenesisHash().send(),
    slot: await rpc.getSlot({ commitment: 'processed' }).send(),
    transactions,
    statuses,
    history,
    balances,
    tokenBalances,
  };
}

/** After a restart: everything observed before is still there, exactly. */
async function assertIntact(rpc: LocalRpc, before: Observed, finalizedBefore: Signature[]): Promise<void> {
  assert.equal(await rpc.getGenesisHash().send(), before.genesis, 'same chain');
  const slot = await rpc.getSlot({ commitment: 'processed' }).send();
  assert.ok(slot > before.slot, `the slot continues: ${slot} after restart, ${before.slot} seen before the stop`);
  const sigs = [...before.statuses.keys()];
  const st = (await rpc.getSignatureStatuses(sigs, { searchTransactionHistory: true }).send()).value;
  for (const [i, s] of sigs.entries()) {
    const was = before.statuses.get(s)!;
    const now = st[i];
    assert.ok(now, `${s} still has a status`);
    assert.equal(now.slot, was.slot, `${s} slot`);
    assert.deepEqual(now.err, was.err, `${s} err`);
    assert.notEqual(now.confirmationStatus, 'processed', `${s} does not fall back to processed`);
    const tx = await rpc.getTransaction(s, { commitment: 'confirmed', maxSupportedTransactionVersion: 0, encoding: 'json' }).send();
    assert.deepEqual(tx, before.transactions.get(s), `${s} getTransaction is unchanged`);
  }
  for (const s of finalizedBefore) {
    const [now] = (await rpc.getSignatureStatuses([s]).send()).value;
    assert.equal(now?.confirmationStatus, 'finalized', `${s} was finalized before the stop and stays finalized`);
    assert.ok(await rpc.getTransaction(s, { commitment: 'finalized', maxSupportedTransactionVersion: 0, encoding: 'json' }).send(), `${s} at finalized`);
  }
  for (const [a, h] of before.history) {
    const now = await rpc.getSignaturesForAddress(a, { commitment: 'confirmed' }).send();
    assert.deepEqual(
      now.map((x) => ({ signature: x.signature, slot: x.slot, err: x.err, blockTime: x.blockTime })),
      h,
      `history of ${a}`,
    );
  }
  for (const [a, b] of before.balances) assert.equal((await rpc.getBalance(a, { commitment: 'processed' }).send()).value, b, `balance of ${a}`);
  for (const [t, b] of before.tokenBalances) assert.equal((await rpc.getTokenAccountBalance(t, { commitment: 'processed' }).send()).value.amount, b, `token balance of ${t}`);
}

describe('localnet durability (child process)', () => {
  let dataDir: string;
  let node: ChildLocalnet | null = null;
  let port = 0;
  let alice: KeyPairSigner;
  let bob: KeyPairSigner;
  let aliceUsdc: Address;
  const sigs: Signature[] = [];
  let expectedBob = 0n;
  let lastWire: Awaited<ReturnType<typeof transferTx>> | null = null;

  before(async () => {
    dataDir = makeTempDir('hush-localnet-durability-');
    alice = await generateKeyPairSigner();
    bob = await generateKeyPairSigner();
    [aliceUsdc] = await findAssociatedTokenPda({ owner: alice.address, mint: MINTS.USDC, tokenProgram: TOKEN_PROGRAM });
  });
  after(async () => {
    if (node) await node.stop('SIGKILL');
    removeDir(dataDir);
  });

  async function start(): Promise<LocalRpc> {
    node = await spawnLocalnet({ dataDir, port, slotMs: SLOT_MS });
    if (port === 0) port = node.port;
    else assert.equal(node.port, port, 'restarted on the same port');
    return node.rpc;
  }

  /** A few kinds of transactions: SOL transfers, a token airdrop, and one that lands with an error. */
  async function activity(rpc: LocalRpc, round: number): Promise<Signature[]> {
    const out: Signature[] = [];
    for (let i = 0; i < 3; i++) {
      const amount = SOL + BigInt(round * 10 + i);
      const tx = await transferTx(rpc, alice, bob.address, amount);
      out.push(await send(rpc, tx.wire));
      lastWire = tx;
      expectedBob += amount;
    }
    out.push(await requestTokenAirdrop(node!.url, alice.address, MINTS.USDC, 1_000_000n * BigInt(round + 1)));
    const failing = await transferTx(rpc, alice, bob.address, 10_000n * SOL + BigInt(round));
    out.push(await send(rpc, failing.wire, { skipPreflight: true }));
    for (const s of out) await waitForStatus(rpc, s, 'confirmed');
    sigs.push(...out);
    return out;
  }

  it('keeps every confirmed transaction across kill -9 (full ledger replay)', async () => {
    let rpc = await start();
    const airdrop = await rpc.requestAirdrop(alice.address, lamports(100n * SOL)).send();
    sigs.push(airdrop);
    await waitForStatus(rpc, airdrop, 'confirmed');
    await activity(rpc, 0);
    // The last transaction has just been finalized when the process dies.
    const finalized = await waitForStatus(rpc, sigs.at(-1)!, 'finalized');
    assert.equal(finalized.confirmationStatus, 'finalized');
    const before = await observe(rpc, sigs, [alice.address, bob.address], [aliceUsdc]);
    assert.equal(before.balances.get(bob.address), expectedBob);

    const exit = await node!.stop('SIGKILL');
    assert.equal(exit.signal, 'SIGKILL');
    await assert.rejects(rpc.getHealth().send(), 'the node is down');

    rpc = await start();
    await assertIntact(rpc, before, [sigs.at(-1)!]);

    // A transaction confirmed before the crash is still a duplicate after it: resending it changes nothing.
    const [st] = (await rpc.getSignatureStatuses([lastWire!.signature]).send()).value;
    assert.ok(st);
    await assert.rejects(send(rpc, lastWire!.wire), (e: unknown) => {
      assert.ok(isSolanaError(e, SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE));
      assert.ok(isSolanaError(e.cause, SOLANA_ERROR__TRANSACTION_ERROR__ALREADY_PROCESSED), String(e.cause));
      return true;
    });
    assert.equal((await rpc.getBalance(bob.address, { commitment: 'processed' }).send()).value, expectedBob);
  });

  it('keeps working after the restart: new transactions land and slots advance', async () => {
    const rpc = node!.rpc;
    const s0 = await rpc.getSlot({ commitment: 'processed' }).send();
    await waitForSlot(rpc, s0 + 5n, 5000);
    const more = await activity(rpc, 1);
    for (const s of more) assert.ok(s);
    assert.equal((await rpc.getBalance(bob.address, { commitment: 'confirmed' }).send()).value, expectedBob);
    const history = await rpc.getSignaturesForAddress(bob.address, { commitment: 'confirmed' }).send();
    assert.equal(history.length, 8, 'six transfers and two failed transfers name bob');
  });

  it('keeps everything across a graceful SIGTERM', async () => {
    let rpc = node!.rpc;
    const before = await observe(rpc, sigs, [alice.address, bob.address], [aliceUsdc]);
    const exit = await node!.stop('SIGTERM');
    assert.equal(exit.code, 0, node!.output());
    assert.match(node!.output(), /SIGTERM, shutting down/);
    rpc = await start();
    await assertIntact(rpc, before, []);
    // Older views of accounts are not persisted, so the restart resumes where all restored history is
    // finalized, and every commitment level agrees with the current state.
    const [lastBefore] = (await rpc.getSignatureStatuses([sigs.at(-1)!]).send()).value;
    assert.equal(lastBefore?.confirmationStatus, 'finalized');
    assert.equal((await rpc.getBalance(bob.address, { commitment: 'finalized' }).send()).value, before.balances.get(bob.address));
  });

  it('resumes at the slot it stopped at after an idle SIGTERM (no transactions since the last start)', async () => {
    let rpc = node!.rpc;
    const s0 = await rpc.getSlot({ commitment: 'processed' }).send();
    await waitForSlot(rpc, s0 + 40n, 5000); // more than one slot-mark interval with nothing to snapshot
    const before = await observe(rpc, sigs, [alice.address, bob.address], [aliceUsdc]);
    const t0 = Date.now();
    assert.equal((await node!.stop('SIGTERM')).code, 0);
    const slotsUntilExit = BigInt(Math.ceil((Date.now() - t0) / SLOT_MS));
    rpc = await start();
    await assertIntact(rpc, before, sigs.slice(0, 1));
    // A clean shutdown records its exact last slot: the restart resumes right after it, skipping nothing.
    const restored = BigInt(/localnet restored at slot (\d+)/.exec(node!.output())?.[1] ?? '-1');
    assert.ok(restored > before.slot, `restored at ${restored}, ${before.slot} seen before`);
    assert.ok(restored <= before.slot + slotsUntilExit + 2n, `a clean restart does not skip ahead (${before.slot} → ${restored}, ${slotsUntilExit} slots until exit)`);
  });

  it('keeps transactions confirmed after a snapshot across kill -9 (replay over the snapshot)', async () => {
    let rpc = node!.rpc;
    await activity(rpc, 2);
    const before = await observe(rpc, sigs, [alice.address, bob.address], [aliceUsdc]);
    assert.equal(before.balances.get(bob.address), expectedBob);
    assert.equal(before.tokenBalances.get(aliceUsdc), String(1_000_000n + 2_000_000n + 3_000_000n));
    await node!.stop('SIGKILL');
    // Simulate a crash in the middle of a ledger write: a torn, unterminated last line.
    appendFileSync(join(dataDir, 'localnet', 'ledger.jsonl'), '{"k":"tx","q":999999,"s":"12","tx":"AQID');
    rpc = await start();
    await assertIntact(rpc, before, []);
    const tx = await transferTx(rpc, alice, bob.address, SOL);
    await send(rpc, tx.wire);
    await waitForStatus(rpc, tx.signature, 'confirmed');
    expectedBob += SOL;
    assert.equal((await rpc.getBalance(bob.address, { commitment: 'confirmed' }).send()).value, expectedBob);
    // The torn line was cut off, so the transaction written after it survives the next restart too.
    assert.equal((await node!.stop('SIGTERM')).code, 0);
    rpc = await start();
    const [st] = (await rpc.getSignatureStatuses([tx.signature]).send()).value;
    assert.ok(st && st.err === null, 'the post-crash transaction is still there');
    assert.equal((await rpc.getBalance(bob.address, { commitment: 'processed' }).send()).value, expectedBob);
  });
});
