/**
 * @solana/web3.js v1, unmodified, against the embedded chain: every call a wallet makes on start and around a
 * send. web3.js checks each answer against its own superstruct schema (a wrong shape throws StructError), so a
 * call returning at all is the shape check; the values are then checked against what the chain did.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  ComputeBudgetProgram, Connection, Keypair, LAMPORTS_PER_SOL, PublicKey, SystemProgram, TransactionInstruction, TransactionMessage, VersionedTransaction,
  type ParsedInstruction, type ParsedTransaction, type PartiallyDecodedInstruction, type SolanaJSONRPCError,
} from '@solana/web3.js';
import { MINTS, pollUntil, startTestLocalnet, TOKEN_PROGRAM, waitForSlot, type TestLocalnet } from '../support/localnet.ts';
import { PRIORITY_MICRO_LAMPORTS, walletHistory, type WalletHistory } from '../support/conformance-fixtures.ts';

const pk = (a: string) => new PublicKey(a);
const ATA_PROGRAM = 'ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL';
const isParsed = (ix: ParsedInstruction | PartiallyDecodedInstruction): ix is ParsedInstruction => 'parsed' in ix;

describe('@solana/web3.js v1 against the local chain', () => {
  let ln: TestLocalnet, conn: Connection, h: WalletHistory;
  before(async () => {
    ln = await startTestLocalnet({ slotMs: 20 });
    conn = new Connection(ln.url, { commitment: 'confirmed', wsEndpoint: ln.net.wsUrl });
    h = await walletHistory(ln.rpc, ln.url);
    // The fee answer covers the last 150 slots (3 s of 20 ms slots), and this file can take longer than that on a
    // loaded host: the fixture's priced transaction must still be in the window when the fees test asks. Slots move
    // from here on only where a test steps them.
    ln.net.chain.holdClock();
  });
  after(async () => {
    // web3.js closes its socket 500 ms after the last subscription goes, and reconnects forever to a socket the
    // server dropped: let it close first.
    await new Promise((r) => setTimeout(r, 700));
    // A subscription a failed test left keeps that socket, which would then reconnect forever to the closed chain and
    // hold this file's process open until its timeout (seen on a loaded clean-clone run): closed here, reconnection off.
    const ws = (conn as unknown as { _rpcWebSocket?: { close(): void; reconnect?: boolean } } | undefined)?._rpcWebSocket;
    if (ws) {
      ws.reconnect = false;
      ws.close();
    }
    await ln?.close();
  });

  it('what works on start: version, genesis, slots, epoch, blockhash, balances, rent, accounts', async () => {
    assert.match((await conn.getVersion())['solana-core'], /^\d+\.\d+\.\d+$/);
    assert.equal(typeof (await conn.getGenesisHash()), 'string');
    const slot = await conn.getSlot();
    assert.ok((await conn.getBlockHeight()) >= slot - 1);
    assert.equal((await conn.getEpochInfo()).epoch, 0);
    const { blockhash, lastValidBlockHeight } = await conn.getLatestBlockhash();
    assert.ok(lastValidBlockHeight > slot);
    assert.equal(await conn.isBlockhashValid(blockhash).then((r) => r.value), true);
    assert.ok((await conn.getBalance(pk(h.sender.address))) < 10 * LAMPORTS_PER_SOL);
    assert.ok((await conn.getMinimumBalanceForRentExemption(165)) > 0);
    const info = await conn.getAccountInfo(pk(h.senderUsdc));
    assert.equal(info?.owner.toBase58(), TOKEN_PROGRAM);
    const parsed = await conn.getParsedAccountInfo(pk(h.senderUsdc));
    assert.equal((parsed.value?.data as { parsed: { type: string } }).parsed.type, 'account');
    const many = await conn.getMultipleAccountsInfo([pk(h.senderUsdc), pk(h.recipientUsdc)]);
    assert.equal(many.length, 2);
    assert.equal((await conn.getTokenAccountBalance(pk(h.senderUsdc))).value.amount, '23500000');
    const owned = await conn.getParsedTokenAccountsByOwner(pk(h.sender.address), { programId: pk(TOKEN_PROGRAM) });
    assert.equal(owned.value[0]?.account.data.parsed.info.mint, MINTS.USDC);
    assert.equal((await conn.getTokenAccountsByOwner(pk(h.sender.address), { mint: pk(MINTS.USDC) })).value.length, 1);
  });

  it('getParsedTransaction(s): parsed keys, System, Token and ATA instructions, parsed inner instructions', async () => {
    const sol = await conn.getParsedTransaction(h.solTransfer, { maxSupportedTransactionVersion: 0 });
    assert.ok(sol);
    const keys = sol.transaction.message.accountKeys;
    assert.deepEqual(keys[0], { pubkey: pk(h.sender.address), signer: true, writable: true, source: 'transaction' });
    const [limit, price, transfer] = sol.transaction.message.instructions;
    // The validator has no Compute Budget parser: those instructions stay partially decoded.
    assert.ok(limit && !isParsed(limit) && limit.programId.equals(ComputeBudgetProgram.programId));
    assert.ok(price && !isParsed(price) && price.accounts.length === 0 && typeof price.data === 'string');
    assert.ok(transfer && isParsed(transfer));
    assert.equal(transfer.program, 'system');
    assert.deepEqual(transfer.parsed, { type: 'transfer', info: { source: h.sender.address, destination: h.recipient.address, lamports: LAMPORTS_PER_SOL / 10 } });
    assert.equal(sol.meta?.fee, 5000 + Math.ceil((Number(PRIORITY_MICRO_LAMPORTS) * 10_000) / 1e6));
    assert.equal(sol.version, 0);

    const [airdrop, token] = await conn.getParsedTransactions([h.tokenAirdrop, h.tokenTransfer], { maxSupportedTransactionVersion: 0 });
    const create = airdrop?.transaction.message.instructions[0];
    assert.ok(create && isParsed(create));
    assert.equal(create.program, 'spl-associated-token-account');
    assert.equal(create.parsed.type, 'createIdempotent');
    assert.equal(create.parsed.info.account, h.senderUsdc);
    const inner = airdrop?.meta?.innerInstructions?.find((x) => x.index === 0)?.instructions ?? [];
    const innerTypes = inner.map((ix) => (isParsed(ix) ? `${ix.program}:${ix.parsed.type}` : ix.programId.toBase58()));
    assert.deepEqual(innerTypes, ['spl-token:getAccountDataSize', 'system:createAccount', 'spl-token:initializeImmutableOwner', 'spl-token:initializeAccount3']);
    const mintTo = airdrop?.transaction.message.instructions[1];
    assert.ok(mintTo && isParsed(mintTo));
    assert.deepEqual(mintTo.parsed, { type: 'mintTo', info: { mint: MINTS.USDC, account: h.senderUsdc, amount: '25000000', mintAuthority: ln.net.chain.faucet.address } });

    const checked = token?.transaction.message.instructions[1];
    assert.ok(checked && isParsed(checked));
    assert.equal(checked.program, 'spl-token');
    assert.deepEqual(checked.parsed, {
      type: 'transferChecked',
      info: { source: h.senderUsdc, mint: MINTS.USDC, destination: h.recipientUsdc, authority: h.sender.address, tokenAmount: { amount: '1500000', decimals: 6, uiAmount: 1.5, uiAmountString: '1.5' } },
    });
    assert.equal(token?.meta?.postTokenBalances?.find((b) => b.owner === h.recipient.address)?.uiTokenAmount.amount, '1500000');
    // The plain json encoding still answers as before.
    const plain = await conn.getTransaction(h.tokenTransfer, { maxSupportedTransactionVersion: 0 });
    assert.equal(plain?.transaction.message.staticAccountKeys[0]?.toBase58(), h.sender.address);
  });

  it('simulateTransaction with innerInstructions returns them parsed', async () => {
    const { blockhash } = await conn.getLatestBlockhash();
    const payer = pk(h.sender.address);
    const message = new TransactionMessage({
      payerKey: payer,
      recentBlockhash: blockhash,
      instructions: [SystemProgram.transfer({ fromPubkey: payer, toPubkey: Keypair.generate().publicKey, lamports: 1_000_000 })],
    }).compileToV0Message();
    const sim = await conn.simulateTransaction(new VersionedTransaction(message), { sigVerify: false, innerInstructions: true });
    assert.equal(sim.value.err, null);
    assert.deepEqual(sim.value.innerInstructions, []);
    // An instruction that makes inner calls: an associated token account creation for a new owner.
    const owner = Keypair.generate().publicKey;
    const [ata] = PublicKey.findProgramAddressSync([owner.toBuffer(), pk(TOKEN_PROGRAM).toBuffer(), pk(MINTS.USDC).toBuffer()], pk(ATA_PROGRAM));
    const create = new TransactionInstruction({
      programId: pk(ATA_PROGRAM),
      keys: [
        { pubkey: payer, isSigner: true, isWritable: true },
        { pubkey: ata, isSigner: false, isWritable: true },
        { pubkey: owner, isSigner: false, isWritable: false },
        { pubkey: pk(MINTS.USDC), isSigner: false, isWritable: false },
        { pubkey: SystemProgram.programId, isSigner: false, isWritable: false },
        { pubkey: pk(TOKEN_PROGRAM), isSigner: false, isWritable: false },
      ],
      data: Buffer.from([1]),
    });
    const ataMessage = new TransactionMessage({ payerKey: payer, recentBlockhash: blockhash, instructions: [create] }).compileToV0Message();
    const ataSim = await conn.simulateTransaction(new VersionedTransaction(ataMessage), { sigVerify: false, innerInstructions: true });
    assert.equal(ataSim.value.err, null);
    const inner = ataSim.value.innerInstructions?.[0]?.instructions ?? [];
    assert.deepEqual(
      inner.map((ix) => ('parsed' in ix ? `${ix.program}:${ix.parsed.type}` : ix.programId.toBase58())),
      ['spl-token:getAccountDataSize', 'system:createAccount', 'spl-token:initializeImmutableOwner', 'spl-token:initializeAccount3'],
    );
    const accountCreation = inner[1] as ParsedInstruction;
    assert.deepEqual(accountCreation.parsed.info, { source: h.sender.address, newAccount: ata.toBase58(), lamports: await conn.getMinimumBalanceForRentExemption(165), space: 165, owner: TOKEN_PROGRAM });
  });

  it('blocks: getBlock, getParsedBlock, getBlockTime, getBlocks, first block, ledger slot, transaction count', async () => {
    const tx = await conn.getTransaction(h.tokenTransfer, { maxSupportedTransactionVersion: 0 });
    const slot = tx!.slot;
    const block = await conn.getBlock(slot, { maxSupportedTransactionVersion: 0 });
    assert.ok(block);
    assert.equal(block.blockTime, tx!.blockTime);
    assert.ok(block.transactions.some((t) => t.transaction.signatures[0] === h.tokenTransfer));
    assert.equal(block.parentSlot, slot - 1);
    const parsed = await conn.getParsedBlock(slot, { maxSupportedTransactionVersion: 0, transactionDetails: 'full' });
    const mine = parsed.transactions.find((t) => t.transaction.signatures[0] === h.tokenTransfer);
    assert.equal(((mine?.transaction as unknown as ParsedTransaction).message.instructions[1] as ParsedInstruction).parsed.type, 'transferChecked');
    const accounts = await conn.getParsedBlock(slot, { maxSupportedTransactionVersion: 0, transactionDetails: 'accounts' });
    assert.ok(accounts.transactions.some((t) => t.transaction.accountKeys.some((k) => k.pubkey.toBase58() === h.recipientUsdc)));
    const none = await conn.getBlock(slot, { maxSupportedTransactionVersion: 0, transactionDetails: 'none', rewards: false });
    assert.equal(none?.blockhash, block.blockhash);
    assert.equal(await conn.getBlockTime(slot), block.blockTime);
    const slots = await conn.getBlocks(Math.max(0, slot - 5), slot + 5);
    assert.ok(slots.includes(slot) && slots.every((s, i) => i === 0 || s > slots[i - 1]!));
    const first = await conn.getFirstAvailableBlock();
    assert.equal(first, await conn.getMinimumLedgerSlot());
    assert.ok(first <= slot);
    assert.ok((await conn.getTransactionCount()) >= 4);
    // Not yet confirmed: the validator's error.
    await assert.rejects(conn.getBlock(slot + 1_000_000, { maxSupportedTransactionVersion: 0 }), (e: SolanaJSONRPCError) => e.code === -32004);
  });

  it('fees and cluster: prioritization fees, supply, token supply and holders, epoch schedule, nodes, leader schedule, votes', async () => {
    const fees = await conn.getRecentPrioritizationFees({ lockedWritableAccounts: [pk(h.recipient.address)] });
    assert.ok(fees.length > 0 && fees.length <= 150);
    assert.ok(fees.some((f) => f.prioritizationFee === Number(PRIORITY_MICRO_LAMPORTS)), JSON.stringify(fees.filter((f) => f.prioritizationFee > 0)));
    assert.ok((await conn.getRecentPrioritizationFees()).every((f) => typeof f.slot === 'number'));
    const supply = (await conn.getSupply()).value;
    assert.ok(supply.total > 0 && supply.circulating === supply.total && supply.nonCirculating === 0);
    assert.equal((await conn.getTokenSupply(pk(MINTS.USDC))).value.amount, '25000000');
    const largest = (await conn.getTokenLargestAccounts(pk(MINTS.USDC))).value;
    assert.deepEqual(largest.map((a) => [a.address.toBase58(), a.amount]), [[h.senderUsdc, '23500000'], [h.recipientUsdc, '1500000']]);
    const schedule = await conn.getEpochSchedule();
    assert.equal(schedule.slotsPerEpoch, 432_000);
    assert.equal(schedule.getEpoch(await conn.getSlot()), 0);
    const [node] = await conn.getClusterNodes();
    assert.equal(node?.rpc, new URL(ln.url).host);
    const leaders = await conn.getLeaderSchedule();
    assert.deepEqual(Object.keys(leaders), [node!.pubkey]);
    assert.equal(leaders[node!.pubkey]!.length, 432_000);
    assert.deepEqual(await conn.getVoteAccounts(), { current: [], delinquent: [] });
    assert.ok((await conn.getStakeMinimumDelegation()).value >= 1);
    // Epoch 0 has not ended: no block pays its rewards yet (the validator's answer).
    await assert.rejects(conn.getInflationReward([pk(h.sender.address)]), (e: SolanaJSONRPCError) => e.code === -32004);
  });

  it('getProgramAccounts with dataSize and memcmp filters, raw and parsed', async () => {
    const filters = [{ dataSize: 165 }, { memcmp: { offset: 32, bytes: h.recipient.address } }];
    const raw = await conn.getProgramAccounts(pk(TOKEN_PROGRAM), { filters });
    assert.deepEqual(raw.map((a) => a.pubkey.toBase58()), [h.recipientUsdc]);
    const parsed = await conn.getParsedProgramAccounts(pk(TOKEN_PROGRAM), { filters: [{ dataSize: 165 }, { memcmp: { offset: 0, bytes: MINTS.USDC } }] });
    assert.deepEqual(parsed.map((a) => a.pubkey.toBase58()).sort(), [h.senderUsdc, h.recipientUsdc].sort());
    assert.equal((parsed[0]!.account.data as { parsed: { type: string } }).parsed.type, 'account');
    const sliced = await conn.getProgramAccounts(pk(TOKEN_PROGRAM), { filters, dataSlice: { offset: 64, length: 8 } });
    assert.equal(sliced[0]!.account.data.readBigUInt64LE(0), 1_500_000n);
  });

  it('subscriptions: slot, root, account, program, signature, logs', async () => {
    // Notifications and confirmation need slots to close: this test steps them (the clock is held since the fixture).
    const stepping = setInterval(() => ln.net.chain.advanceSlot(), 20);
    const subscribed = ln.net.pubsub.hub.subscriptionCount;
    try {
      // The slot and root subscriptions end themselves at their first notification, which the stepping slots may
      // bring before the poll below looks: once ended, they are no longer counted live.
      let ended = 0;
      const root = new Promise<number>((resolve) => {
        const id = conn.onRootChange((r) => void conn.removeRootChangeListener(id).then(() => (ended++, resolve(r))));
      });
      const slot = new Promise<number>((resolve) => {
        const id = conn.onSlotChange((s) => void conn.removeSlotChangeListener(id).then(() => (ended++, resolve(s.slot))));
      });
      const program = new Promise<string>((resolve) => {
        const id = conn.onProgramAccountChange(pk('11111111111111111111111111111111'), (a) => void conn.removeProgramAccountChangeListener(id).then(() => resolve(a.accountId.toBase58())), {
          commitment: 'confirmed',
          filters: [{ dataSize: 0 }],
        });
      });
      const target = Keypair.generate().publicKey;
      const account = new Promise<number>((resolve) => {
        const id = conn.onAccountChange(target, (a) => void conn.removeAccountChangeListener(id).then(() => resolve(a.lamports)), { commitment: 'confirmed' });
      });
      // The four subscriptions live on the server before the airdrop (a change before its subscription is never
      // notified, and this test then waited forever on a loaded machine after a fixed 200 ms).
      await pollUntil(async () => ln.net.pubsub.hub.subscriptionCount >= subscribed + 4 - ended, { timeoutMs: 30_000, what: 'the slot, root, program and account subscriptions live' });
      const sig = await conn.requestAirdrop(target, LAMPORTS_PER_SOL);
      const { blockhash, lastValidBlockHeight } = await conn.getLatestBlockhash();
      const confirmed = await conn.confirmTransaction({ signature: sig, blockhash, lastValidBlockHeight });
      assert.equal(confirmed.value.err, null);
      assert.equal(await account, LAMPORTS_PER_SOL);
      assert.ok([target.toBase58(), ln.net.chain.faucet.address].includes(await program));
      assert.ok((await slot) > 0);
      assert.ok((await root) >= 0);
      await waitForSlot(ln.rpc, 0n);
    } finally {
      clearInterval(stepping);
    }
  });

  it('CORS: any origin, preflight answered', async () => {
    const preflight = await fetch(ln.url, { method: 'OPTIONS', headers: { origin: 'https://wallet.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type, solana-client' } });
    assert.ok(preflight.status === 204 || preflight.status === 200, String(preflight.status));
    assert.equal(preflight.headers.get('access-control-allow-origin'), '*');
    assert.match(preflight.headers.get('access-control-allow-methods') ?? '', /POST/);
    assert.match(preflight.headers.get('access-control-allow-headers') ?? '', /solana-client/);
    const post = await fetch(ln.url, { method: 'POST', headers: { origin: 'https://wallet.example', 'content-type': 'application/json' }, body: '{"jsonrpc":"2.0","id":1,"method":"getSlot"}' });
    assert.equal(post.headers.get('access-control-allow-origin'), '*');
  });
});
