/**
 * DepositOrigins (docs/spec.md §5, "Whose deposit") over a chain view that answers from fixed transactions,
 * to count its reads: a transaction noted for the account (PubSub) settles the lookup with one
 * getTransaction only when the sender signed it, it added to the account and the account held nothing
 * before it; anything else falls back to the account's history, whose answer stands.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DepositOrigins, payersOf, type OriginQuery } from '../../src/chain/deposit-origin.ts';
import type { LandedTransaction } from '../../src/chain/chain-view.ts';
import { systemClock } from '../../src/support/clock.ts';

const SENDER = 'Sender1111111111111111111111111111111111111';
const STRANGER = 'Stranger11111111111111111111111111111111111';
const ACCOUNT = 'Deposit111111111111111111111111111111111111';
const Q: OriginQuery = { account: ACCOUNT, sender: SENDER, native: false };

/** An SPL transfer into ACCOUNT signed by `signer`, taking its token amount from `pre` to `post`. */
function transfer(signer: string, pre: bigint, post: bigint): LandedTransaction {
  const bal = (amount: bigint) => [{ accountIndex: 1, uiTokenAmount: { amount: amount.toString() } }];
  return {
    transaction: { message: { accountKeys: [signer, ACCOUNT], header: { numRequiredSignatures: 1 } } },
    meta: { err: null, preBalances: [1e9, 2e6], postBalances: [1e9, 2e6], preTokenBalances: pre === 0n ? [] : bal(pre), postTokenBalances: bal(post) },
  };
}

/** A view over `txs` (signature → transaction; null: not visible) and ACCOUNT's history (newest first), counting calls. */
function fakeView(txs: Record<string, LandedTransaction | null>, history: string[]) {
  const calls = { histories: 0, transactions: [] as string[] };
  const view = {
    signatureHistories: async (addresses: string[]) => {
      calls.histories += addresses.length;
      return addresses.map((a) => (a === ACCOUNT ? history.map((signature) => ({ signature, err: null })) : []));
    },
    transactionsMany: async (signatures: string[]) => {
      calls.transactions.push(...signatures);
      return signatures.map((s) => txs[s] ?? null);
    },
  };
  return { view: () => view, calls };
}

describe('deposit origins', () => {
  test('a noted transaction of the sender into an empty account is the deposit: one getTransaction, no history read', async () => {
    const { view, calls } = fakeView({ dep: transfer(SENDER, 0n, 7n) }, ['dep']);
    const origins = new DepositOrigins(view, systemClock);
    origins.saw(ACCOUNT, 'dep');
    const found = await origins.find([Q]);
    assert.deepEqual(found.get(ACCOUNT), { signature: 'dep', amount: 7n, payers: [SENDER] });
    assert.equal(calls.histories, 0);
    assert.deepEqual(calls.transactions, ['dep']);
    // Memoized: looked up again, nothing is read.
    assert.deepEqual((await origins.find([Q])).get(ACCOUNT), { signature: 'dep', amount: 7n, payers: [SENDER] });
    assert.deepEqual(calls.transactions, ['dep']);
  });

  test('a noted transaction of the sender into an account a stranger funded first: the history decides, counting only what the sender added', async () => {
    const { view, calls } = fakeView({ first: transfer(STRANGER, 0n, 1n), dep: transfer(SENDER, 1n, 8n) }, ['dep', 'first']);
    const origins = new DepositOrigins(view, systemClock);
    origins.saw(ACCOUNT, 'dep');
    const found = await origins.find([Q]);
    assert.deepEqual(found.get(ACCOUNT), { signature: 'dep', amount: 7n, payers: [SENDER] });
    assert.equal(calls.histories, 1);
    // The noted one is read once (memoized for the history path), the stranger's once.
    assert.deepEqual(calls.transactions.sort(), ['dep', 'first']);
  });

  test('a noted transaction of the sender that is not its oldest funding is not taken: the older one is the deposit', async () => {
    const { view } = fakeView({ older: transfer(SENDER, 0n, 3n), newer: transfer(SENDER, 3n, 10n) }, ['newer', 'older']);
    const origins = new DepositOrigins(view, systemClock);
    origins.saw(ACCOUNT, 'newer');
    assert.deepEqual((await origins.find([Q])).get(ACCOUNT), { signature: 'older', amount: 3n, payers: [SENDER] });
  });

  test('a noted stranger’s transaction is never the deposit: with only it in the history, there is none', async () => {
    const { view, calls } = fakeView({ front: transfer(STRANGER, 0n, 1n) }, ['front']);
    const origins = new DepositOrigins(view, systemClock);
    origins.saw(ACCOUNT, 'front');
    assert.equal((await origins.find([Q])).get(ACCOUNT), null);
    assert.equal(calls.histories, 1);
  });

  test('a noted transaction not visible at confirmed: looked at again later, dropped for the history after 5 s, and not read again', async () => {
    const { view, calls } = fakeView({ dep: transfer(SENDER, 0n, 5n), gone: null }, ['dep']);
    let clock = 1_000_000;
    const origins = new DepositOrigins(view, { now: () => clock });
    origins.saw(ACCOUNT, 'gone');
    const first = await origins.find([Q]);
    assert.ok(first.has(ACCOUNT) && first.get(ACCOUNT) === undefined, 'undefined: a later look');
    clock += 4_999;
    assert.equal((await origins.find([Q])).get(ACCOUNT), undefined);
    assert.equal(calls.histories, 0);
    clock += 1;
    assert.deepEqual((await origins.find([Q])).get(ACCOUNT), { signature: 'dep', amount: 5n, payers: [SENDER] });
    assert.deepEqual(calls.transactions, ['gone', 'gone', 'gone', 'dep']);
    assert.deepEqual((await origins.find([Q])).get(ACCOUNT), { signature: 'dep', amount: 5n, payers: [SENDER] });
    assert.deepEqual(calls.transactions, ['gone', 'gone', 'gone', 'dep']);
    assert.equal(calls.histories, 2);
  });

  test('a noted transaction not visible yet does not hold up one that settles the lookup', async () => {
    const { view, calls } = fakeView({ dep: transfer(SENDER, 0n, 5n), gone: null }, ['dep']);
    const origins = new DepositOrigins(view, systemClock);
    origins.saw(ACCOUNT, 'gone');
    origins.saw(ACCOUNT, 'dep');
    assert.deepEqual((await origins.find([Q])).get(ACCOUNT), { signature: 'dep', amount: 5n, payers: [SENDER] });
    assert.equal(calls.histories, 0);
  });

  test('a deposit hint judged by the caller settles the lookup with no read at all', async () => {
    const { view, calls } = fakeView({}, []);
    const origins = new DepositOrigins(view, systemClock);
    origins.judge('hinted', Q, transfer(SENDER, 0n, 9n));
    assert.deepEqual((await origins.find([Q])).get(ACCOUNT), { signature: 'hinted', amount: 9n, payers: [SENDER] });
    assert.equal(calls.histories, 0);
    assert.deepEqual(calls.transactions, []);
  });

  test('a read that fails loses only the shortcut', async () => {
    const { view: base, calls } = fakeView({ dep: transfer(SENDER, 0n, 4n) }, ['dep']);
    let fail = true;
    const view = () => ({
      signatureHistories: base().signatureHistories,
      transactionsMany: async (s: string[]) => {
        if (fail) throw new Error('rpc down');
        return base().transactionsMany(s);
      },
    });
    const origins = new DepositOrigins(view, systemClock);
    origins.saw(ACCOUNT, 'dep');
    await assert.rejects(origins.find([Q]), /rpc down/);
    fail = false;
    assert.deepEqual((await origins.find([Q])).get(ACCOUNT), { signature: 'dep', amount: 4n, payers: [SENDER] });
    assert.equal(calls.histories, 1, 'only the failed attempt read the history');
  });
});

describe('the payers of a deposit', () => {
  test('are every signer and the owner of every token account the transaction debited', () => {
    const tx = {
      transaction: { message: { accountKeys: [SENDER, 'CoSigner1111111111111111111111111111111111', ACCOUNT, 'PayerAta111111111111111111111111111111111'], header: { numRequiredSignatures: 2 } } },
      meta: {
        err: null,
        preBalances: [1e9, 1e9, 0, 2e6],
        postBalances: [1e9, 1e9, 2e6, 2e6],
        preTokenBalances: [{ accountIndex: 3, owner: 'Delegator111111111111111111111111111111111', uiTokenAmount: { amount: '10' } }],
        postTokenBalances: [{ accountIndex: 2, owner: 'DepositOwner11111111111111111111111111111', uiTokenAmount: { amount: '7' } }, { accountIndex: 3, owner: 'Delegator111111111111111111111111111111111', uiTokenAmount: { amount: '3' } }],
      },
    };
    assert.deepEqual(payersOf(tx), [SENDER, 'CoSigner1111111111111111111111111111111111', 'Delegator111111111111111111111111111111111']);
  });
});
