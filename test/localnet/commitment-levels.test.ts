/**
 * Commitment levels on the localnet: a transaction is processed, then confirmed one slot later, then
 * finalized 32 slots later, and reads at each level see the state as of its slot. The test holds the chain's
 * wall clock and steps the slots itself: on a loaded machine a timer's slot could end between a send and the
 * read that must see it in its own slot.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { generateKeyPairSigner, type Address, type KeyPairSigner } from '@solana/kit';
import { fundedWallet, send, SOL, startTestLocalnet, transferTx, type LocalRpc, type TestLocalnet } from '../support/localnet.ts';

async function balance(rpc: LocalRpc, a: Address): Promise<bigint> {
  return (await rpc.getBalance(a, { commitment: 'processed' }).send()).value;
}

describe('commitment levels', () => {
  let ln: TestLocalnet;
  let rpc: LocalRpc;
  let payer: KeyPairSigner;
  const step = (slots = 1) => {
    for (let i = 0; i < slots; i++) ln.net.chain.advanceSlot();
  };

  before(async () => {
    ln = await startTestLocalnet({ slotMs: 50 });
    rpc = ln.rpc;
    payer = await fundedWallet(rpc, 10n * SOL);
    ln.net.chain.holdClock();
    // Past the first 32 slots, where finalized still reads slot 0.
    while (ln.net.chain.commitmentSlot('processed') < 40n) step();
  });
  after(async () => {
    await ln?.close();
  });

  it('processed → confirmed after one slot → finalized after 32, on getSignatureStatuses and getTransaction', async () => {
    const to = (await generateKeyPairSigner()).address;
    const tx = await transferTx(rpc, payer, to, SOL);
    await send(rpc, tx.wire);
    const status = async () => {
      const r = await rpc.getSignatureStatuses([tx.signature]).send();
      assert.ok(r.value[0], 'a sent transaction has a status');
      return { ...r.value[0], at: r.context.slot };
    };
    const at = (commitment: 'confirmed' | 'finalized') => rpc.getTransaction(tx.signature, { commitment, maxSupportedTransactionVersion: 0, encoding: 'json' }).send();

    const processed = await status();
    const landed = processed.slot;
    assert.equal(processed.at, landed, 'read in the slot it landed in');
    assert.equal(processed.confirmationStatus, 'processed');
    assert.equal(processed.confirmations, 0n);
    assert.equal(await at('confirmed'), null, 'getTransaction at confirmed is null while the transaction is only processed');

    step();
    const confirmed = await status();
    assert.equal(confirmed.confirmationStatus, 'confirmed');
    assert.equal(confirmed.slot, landed);
    assert.equal(confirmed.confirmations, 1n);
    assert.ok(await at('confirmed'));
    assert.equal(await at('finalized'), null, 'not finalized one slot later');

    step(30);
    assert.equal((await status()).confirmationStatus, 'confirmed', '31 slots later: still confirmed');
    assert.equal(await at('finalized'), null);

    step();
    const finalized = await status();
    assert.equal(finalized.confirmationStatus, 'finalized', '32 slots later');
    assert.equal(finalized.confirmations, null, 'finalized statuses have null confirmations');
    assert.equal((await at('finalized'))?.slot, landed);
    const history = await rpc.getSignaturesForAddress(to, { commitment: 'finalized' }).send();
    assert.ok(history.some((h) => h.signature === tx.signature && h.confirmationStatus === 'finalized'));
  });

  it('reads at confirmed and finalized see the state as of their slot', async () => {
    const to = (await generateKeyPairSigner()).address;
    const tx = await transferTx(rpc, payer, to, SOL + 777n);
    await send(rpc, tx.wire);
    const [st] = (await rpc.getSignatureStatuses([tx.signature]).send()).value;
    assert.ok(st);
    const landed = st.slot;
    const seen = { oldFinalized: 0, oldConfirmed: 0 };
    // One slot at a time until finalized shows the transfer: every answer consistent with its own context slot.
    for (let slots = 0; ; slots++) {
      const fin = await rpc.getBalance(to, { commitment: 'finalized' }).send();
      const conf = await rpc.getBalance(to, { commitment: 'confirmed' }).send();
      const proc = await rpc.getBalance(to, { commitment: 'processed' }).send();
      assert.equal(proc.value, SOL + 777n, 'processed sees the transfer at once');
      assert.equal(fin.value, fin.context.slot >= landed ? SOL + 777n : 0n, `finalized read at slot ${fin.context.slot}, landed ${landed}`);
      assert.equal(conf.value, conf.context.slot >= landed ? SOL + 777n : 0n, `confirmed read at slot ${conf.context.slot}, landed ${landed}`);
      assert.equal(proc.context.slot - fin.context.slot, 32n);
      assert.equal(proc.context.slot - conf.context.slot, 1n);
      const info = await rpc.getAccountInfo(to, { commitment: 'finalized', encoding: 'base64' }).send();
      if (info.context.slot < landed) assert.equal(info.value, null, 'the account did not exist at that slot');
      if (fin.value === SOL + 777n) {
        assert.equal(slots, 32, 'finalized shows it 32 slots after it landed');
        break;
      }
      if (fin.value === 0n) seen.oldFinalized++;
      if (conf.value === 0n) seen.oldConfirmed++;
      assert.ok(slots < 32, 'finalized within 32 slots');
      step();
    }
    assert.deepEqual(seen, { oldFinalized: 32, oldConfirmed: 1 }, 'the older state: at confirmed for one slot, at finalized for 32');
    const payerAtFinal = await rpc.getAccountInfo(payer.address, { commitment: 'finalized', encoding: 'base64' }).send();
    assert.equal(payerAtFinal.value?.lamports, await balance(rpc, payer.address));
  });
});
