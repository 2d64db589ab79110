/**
 * @solana/kit against the embedded chain: the calls and subscriptions wallets make that the kit suites
 * (rpc-methods-*.test.ts, pubsub.test.ts) do not already drive, each answer checked field by field against
 * the shape kit's types declare (kit itself does not validate), then against what the chain did.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { address, createSolanaRpcSubscriptions, generateKeyPairSigner, getAddressEncoder } from '@solana/kit';
import { findAssociatedTokenPda, getCreateAssociatedTokenIdempotentInstruction } from '@solana-program/token';
import { getSetComputeUnitPriceInstruction } from '@solana-program/compute-budget';
import { getTransferSolInstruction } from '@solana-program/system';
import {
  buildSignedTransaction, latestBlockhash, MINTS, requestTokenAirdrop, send, startTestLocalnet, TOKEN_PROGRAM, waitForStatus, type TestLocalnet,
} from '../support/localnet.ts';
import { walletHistory, type WalletHistory } from '../support/conformance-fixtures.ts';
import { assertShape, PARSED_KEY, TOKEN_BALANCE, UI_INSTRUCTION, UI_TOKEN_AMOUNT, type Shape } from '../support/kit-shape.ts';

const PARSED_META: Shape = {
  computeUnitsConsumed: 'bigint', err: 'null', fee: 'bigint', innerInstructions: [{ index: 'number', instructions: [UI_INSTRUCTION] }], logMessages: ['string'],
  postBalances: ['bigint'], postTokenBalances: [TOKEN_BALANCE], preBalances: ['bigint'], preTokenBalances: [TOKEN_BALANCE], rewards: ['unknown'], status: { Ok: 'null' },
};
const PARSED_TRANSACTION: Shape = {
  message: { accountKeys: [PARSED_KEY], addressTableLookups: ['unknown'], instructions: [UI_INSTRUCTION], recentBlockhash: 'string' },
  signatures: ['string'],
};
const BLOCK_BASE = { blockHeight: 'bigint', blockTime: 'bigint', blockhash: 'string', parentSlot: 'bigint', previousBlockhash: 'string' } as const;

describe('@solana/kit against the local chain', () => {
  let ln: TestLocalnet, h: WalletHistory;
  before(async () => {
    ln = await startTestLocalnet({ slotMs: 20 });
    h = await walletHistory(ln.rpc, ln.url);
    // The fee and sample answers count slots (150 of them, 3 s of 20 ms slots): a loaded host must not move the
    // window under a test. Slots move from here on only where a test steps them.
    ln.net.chain.holdClock();
  });
  after(async () => ln?.close());

  it('getTransaction jsonParsed and getBlock in every transactionDetails', async () => {
    const tx = await ln.rpc.getTransaction(h.tokenTransfer, { encoding: 'jsonParsed', maxSupportedTransactionVersion: 0, commitment: 'confirmed' }).send();
    assert.ok(tx);
    assertShape(tx, { blockTime: 'bigint', meta: PARSED_META, slot: 'bigint', transaction: PARSED_TRANSACTION, version: 'number' });
    assert.ok(!('loadedAddresses' in tx.meta!), 'jsonParsed leaves loadedAddresses out: the keys carry their source');
    const ix = tx.transaction.message.instructions[1]!;
    assert.ok('parsed' in ix && ix.program === 'spl-token');

    const blockOf = (details: 'full' | 'accounts' | 'signatures' | 'none', encoding: 'json' | 'jsonParsed' | 'base64' = 'json') =>
      ln.rpc.getBlock(tx.slot, { commitment: 'confirmed', maxSupportedTransactionVersion: 0, transactionDetails: details, encoding } as never).send() as Promise<Record<string, unknown>>;
    assertShape(await blockOf('full', 'jsonParsed'), { ...BLOCK_BASE, rewards: ['unknown'], transactions: [{ meta: PARSED_META, transaction: PARSED_TRANSACTION, version: 'number|string' }] });
    assertShape(await blockOf('full', 'base64'), { ...BLOCK_BASE, rewards: ['unknown'], transactions: [{ meta: 'unknown', transaction: ['string'], version: 'number|string' }] });
    const accountsMeta = { err: 'null', fee: 'bigint', postBalances: ['bigint'], postTokenBalances: [TOKEN_BALANCE], preBalances: ['bigint'], preTokenBalances: [TOKEN_BALANCE], rewards: ['unknown'], status: { Ok: 'null' } } as const;
    assertShape(await blockOf('accounts'), { ...BLOCK_BASE, rewards: ['unknown'], transactions: [{ meta: accountsMeta, transaction: { accountKeys: [PARSED_KEY], signatures: ['string'] }, version: 'number|string' }] });
    const sigs = await blockOf('signatures');
    assertShape(sigs, { ...BLOCK_BASE, rewards: ['unknown'], signatures: ['string'] });
    assert.ok((sigs.signatures as string[]).includes(h.tokenTransfer));
    assertShape(await blockOf('none'), { ...BLOCK_BASE, rewards: ['unknown'] });

    assert.equal(await ln.rpc.getBlockTime(tx.slot).send(), tx.blockTime);
    // The transfer may land in slot 0–2 on a fast host: the range starts at the chain's start, never below it.
    const blocks = await ln.rpc.getBlocks(tx.slot > 3n ? tx.slot - 3n : 0n, tx.slot, { commitment: 'confirmed' }).send();
    assertShape(blocks, ['bigint']);
    assert.equal(blocks.at(-1), tx.slot);
    assert.deepEqual(await ln.rpc.getBlocksWithLimit(tx.slot, 1, { commitment: 'confirmed' }).send(), [tx.slot]);
    assertShape(await ln.rpc.minimumLedgerSlot().send(), 'bigint');
    assertShape(await ln.rpc.getFirstAvailableBlock().send(), 'bigint');
    assertShape(await ln.rpc.getTransactionCount({ commitment: 'confirmed' }).send(), 'bigint');
  });

  it('getRecentPrioritizationFees from the transactions seen, and performance samples', async () => {
    // The fee cache covers 150 slots (3 s here): a priced transfer of this moment.
    const priced = await buildSignedTransaction(
      h.sender,
      [getSetComputeUnitPriceInstruction({ microLamports: 777n }), getTransferSolInstruction({ source: h.sender, destination: h.recipient.address, amount: 1_000n })],
      await latestBlockhash(ln.rpc),
    );
    const pricedSignature = await send(ln.rpc, priced.wire);
    ln.net.chain.advanceSlot();
    await waitForStatus(ln.rpc, pricedSignature, 'confirmed');
    const fees = await ln.rpc.getRecentPrioritizationFees([h.recipient.address]).send();
    assertShape(fees, [{ prioritizationFee: 'bigint', slot: 'bigint' }]);
    assert.ok(fees.some((f) => f.prioritizationFee === 777n), JSON.stringify(fees.filter((f) => f.prioritizationFee > 0n), (_k, v) => (typeof v === 'bigint' ? `${v}` : v)));
    // An account no transaction wrote: each slot's minimum alone, never above what the recipient's writers paid.
    const untouched = await ln.rpc.getRecentPrioritizationFees([address('SysvarC1ock11111111111111111111111111111111')]).send();
    const slotMinimum = new Map(untouched.map((f) => [f.slot, f.prioritizationFee]));
    for (const f of fees) if (slotMinimum.has(f.slot)) assert.ok(slotMinimum.get(f.slot)! <= f.prioritizationFee, `slot ${f.slot}`);
    // One sample per 150 slots.
    for (let i = 0; i < 150; i++) ln.net.chain.advanceSlot();
    const samples = await ln.rpc.getRecentPerformanceSamples(5).send();
    assertShape(samples, [{ numNonVoteTransactions: 'bigint', numSlots: 'bigint', numTransactions: 'bigint', samplePeriodSecs: 'number', slot: 'bigint' }]);
    assert.ok(samples.length >= 1 && samples[0]!.numSlots === 150n, `${samples.length} samples`);
  });

  it('node and cluster: identity, nodes, schedules, votes, supply, stake minimum, inflation reward', async () => {
    const { identity } = await ln.rpc.getIdentity().send();
    assertShape(identity, 'address');
    const nodes = await ln.rpc.getClusterNodes().send();
    assert.equal(nodes.length, 1);
    assert.equal(nodes[0]!.pubkey, identity);
    assertShape(nodes[0], {
      featureSet: 'number', gossip: 'null', pubkey: 'address', pubsub: 'string', rpc: 'string', serveRepair: 'null', shredVersion: 'number',
      tpu: 'null', tpuForwards: 'null', tpuForwardsQuic: 'null', tpuQuic: 'null', tpuVote: 'null', tvu: 'null', version: 'string',
    });
    assertShape(await ln.rpc.getEpochSchedule().send(), { firstNormalEpoch: 'bigint', firstNormalSlot: 'bigint', leaderScheduleSlotOffset: 'bigint', slotsPerEpoch: 'bigint', warmup: 'boolean' });
    const schedule = (await ln.rpc.getLeaderSchedule().send())!;
    assert.equal(schedule[identity]!.length, 432_000);
    assert.deepEqual(await ln.rpc.getLeaderSchedule(null, { identity: h.sender.address }).send(), {});
    assert.equal(await ln.rpc.getLeaderSchedule(432_000n * 5n).send(), null);
    assert.deepEqual(await ln.rpc.getVoteAccounts().send(), { current: [], delinquent: [] });
    const supply = await ln.rpc.getSupply({ commitment: 'confirmed' }).send();
    assertShape(supply, { context: { apiVersion: 'string', slot: 'bigint' }, value: { circulating: 'bigint', nonCirculating: 'bigint', nonCirculatingAccounts: ['address'], total: 'bigint' } });
    // The faucet alone holds more than any transfer moved: the total is every lamport, not a sample.
    assert.ok(supply.value.total > (await ln.rpc.getBalance(ln.net.chain.faucet.address).send()).value);
    const minimum = await ln.rpc.getStakeMinimumDelegation().send();
    assertShape(minimum.value, 'bigint');
    assert.ok(minimum.value >= 1n);
    await assert.rejects(ln.rpc.getInflationReward([h.sender.address]).send(), (e: Error & { context?: { __code?: number } }) => e.context?.__code === -32004);
  });

  it('getProgramAccounts and token supplies', async () => {
    const byOwner = await ln.rpc
      .getProgramAccounts(TOKEN_PROGRAM, { encoding: 'base64', filters: [{ dataSize: 165n }, { memcmp: { offset: 32n, bytes: h.sender.address as string as never, encoding: 'base58' } }] })
      .send();
    assertShape(byOwner, [{ account: { data: ['string'], executable: 'boolean', lamports: 'bigint', owner: 'address', rentEpoch: 'bigint', space: 'bigint' }, pubkey: 'address' }]);
    assert.deepEqual(byOwner.map((a) => a.pubkey), [h.senderUsdc]);
    const base64Filter = { memcmp: { offset: 0n, bytes: Buffer.from(getAddressEncoder().encode(MINTS.USDC)).toString('base64') as never, encoding: 'base64' as const } };
    const withContext = await ln.rpc.getProgramAccounts(TOKEN_PROGRAM, { encoding: 'jsonParsed', withContext: true, filters: [base64Filter] }).send();
    assert.deepEqual(withContext.value.map((a) => a.pubkey).sort(), [h.senderUsdc, h.recipientUsdc].sort());
    await assert.rejects(ln.rpc.getProgramAccounts(TOKEN_PROGRAM, { filters: [{ dataSize: 1n }, { dataSize: 2n }, { dataSize: 3n }, { dataSize: 4n }, { dataSize: 5n }] }).send());
    const supply = await ln.rpc.getTokenSupply(MINTS.USDC).send();
    assertShape(supply.value, UI_TOKEN_AMOUNT);
    assert.equal(supply.value.amount, '25000000');
    const largest = await ln.rpc.getTokenLargestAccounts(MINTS.USDC).send();
    assertShape(largest.value, [{ address: 'address', amount: 'string', decimals: 'number', uiAmount: 'number|null', uiAmountString: 'string' }]);
    assert.equal(largest.value[0]!.address, h.senderUsdc);
  });

  it('simulateTransaction inner instructions in the parsed form', async () => {
    // An associated token account for a new owner: the ATA program calls System and Token inside.
    const owner = (await generateKeyPairSigner()).address;
    const [ata] = await findAssociatedTokenPda({ owner, mint: MINTS.USDC, tokenProgram: TOKEN_PROGRAM });
    const create = await buildSignedTransaction(h.sender, [getCreateAssociatedTokenIdempotentInstruction({ payer: h.sender, owner, mint: MINTS.USDC, ata })], await latestBlockhash(ln.rpc));
    const sim = await ln.rpc.simulateTransaction(create.wire, { encoding: 'base64', innerInstructions: true }).send();
    assert.equal(sim.value.err, null);
    assertShape(sim.value.innerInstructions, [{ index: 'number', instructions: [UI_INSTRUCTION] }]);
    const inner = sim.value.innerInstructions![0]!.instructions as readonly { program?: string; parsed?: { type: string } }[];
    assert.deepEqual(inner.map((ix) => `${ix.program}:${ix.parsed?.type}`), ['spl-token:getAccountDataSize', 'system:createAccount', 'spl-token:initializeImmutableOwner', 'spl-token:initializeAccount3']);
  });

  it('subscriptions: programNotifications (filters, jsonParsed), rootNotifications, accountNotifications jsonParsed', async () => {
    const subs = createSolanaRpcSubscriptions(ln.net.wsUrl);
    const abort = new AbortController();
    // Roots and confirmed notifications need slots to close: this test steps them (the clock is held since the fixture).
    const stepping = setInterval(() => ln.net.chain.advanceSlot(), 20);
    try {
      const roots = await subs.rootNotifications().subscribe({ abortSignal: abort.signal });
      const program = await subs
        .programNotifications(TOKEN_PROGRAM, { commitment: 'confirmed', encoding: 'jsonParsed', filters: [{ dataSize: 165n }, { memcmp: { offset: 32n, bytes: h.recipient.address as never, encoding: 'base58' } }] })
        .subscribe({ abortSignal: abort.signal });
      const account = await subs.accountNotifications(h.recipientUsdc, { commitment: 'confirmed', encoding: 'jsonParsed' }).subscribe({ abortSignal: abort.signal });
      // kit drops what arrives before an iterator polls: every iterator polls before the airdrop is sent.
      const nextRoot = roots[Symbol.asyncIterator]().next();
      const nextProgram = program[Symbol.asyncIterator]().next();
      const nextAccount = account[Symbol.asyncIterator]().next();
      assertShape((await nextRoot).value, 'bigint');
      await requestTokenAirdrop(ln.url, h.recipient.address, MINTS.USDC, 500_000n);
      const n = (await nextProgram).value!;
      assertShape(n, {
        context: { slot: 'bigint' },
        value: { account: { data: { parsed: 'unknown', program: 'string', space: 'bigint' }, executable: 'boolean', lamports: 'bigint', owner: 'address', rentEpoch: 'bigint', space: 'bigint' }, pubkey: 'address' },
      });
      assert.equal(n.value.pubkey, h.recipientUsdc);
      const data = (await nextAccount).value!.value.data as unknown as { parsed: { info: { tokenAmount: { amount: string } } } };
      assert.equal(data.parsed.info.tokenAmount.amount, '2000000');
    } finally {
      clearInterval(stepping);
      abort.abort();
    }
  });
});
