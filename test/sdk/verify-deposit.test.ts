/**
 * verifyDepositTransaction (packages/sdk) against the transactions Hush's own builder makes
 * (src/chain/deposit-transaction.ts, the code behind POST /order), with fast-check: every such
 * transaction — each asset, any amount, any compute budget under the caps — is accepted, and every
 * mutation of one that docs/spec.md §4 forbids is refused: another fee payer, an extra signer, an extra or
 * reordered instruction, another program, another destination, amount ± n, the idempotent create, a
 * lookup table, a legacy message, wrong decimals, a budget over the cap, the recipient named.
 * (That transactions Hush really issues through POST /order are accepted, refreshed ones too, is in
 * sdk-end-to-end.test.ts, on the simulated Hush.)
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import {
  AccountRole,
  appendTransactionMessageInstructions,
  compileTransaction,
  compressTransactionMessageUsingAddressLookupTables,
  createTransactionMessage,
  decompileTransactionMessage,
  getBase64EncodedWireTransaction,
  getBase64Encoder,
  getCompiledTransactionMessageDecoder,
  getTransactionDecoder,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  type Address,
  type Blockhash,
  type Instruction,
} from '@solana/kit';
import { getRequestHeapFrameInstruction, getSetComputeUnitLimitInstruction } from '@solana-program/compute-budget';
import { getTransferSolInstruction } from '@solana-program/system';
import { buildDepositTransaction } from '../../src/chain/deposit-transaction.ts';
import { loadAssets } from '../../src/config/assets.ts';
import { DEPOSIT_RECORD_LENGTH, DepositVerificationError, MEMO_PROGRAM_ADDRESS, verifyDepositTransaction, type DepositRefusal } from '../../packages/sdk/src/index.ts';
import { depositRecordPublicKey, openDepositRecord, sealDepositRecord, SEALED_DEPOSIT_RECORD_LENGTH } from '../../src/treasury/deposit-record-box.ts';
import { addressBytes } from '../../src/domain/address-codec.ts';
import { randomBytes } from 'node:crypto';
import bs58 from 'bs58';

const ASSETS = loadAssets().list.filter((a) => ['sol', 'usdc', 'bonk'].includes(a.assetId));
const RUNS = Number(process.env.HUSH_PROPERTY_RUNS ?? 150);

const addressArb = fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => bs58.encode(b) as Address);

interface Case {
  asset: (typeof ASSETS)[number];
  sender: Address;
  recipient: Address;
  amount: bigint;
  base64: string;
  blockhash: Blockhash;
  instructions: Instruction[];
}

const caseArb = fc
  .record({
    asset: fc.constantFrom(...ASSETS),
    sender: addressArb,
    recipient: addressArb,
    owner: addressArb,
    amount: fc.bigInt({ min: 1n, max: 10n ** 15n }),
    blockhash: addressArb,
    limit: fc.integer({ min: 1000, max: 200_000 }),
    price: fc.bigInt({ min: 0n, max: 1_000_000n }),
  })
  .filter((c) => new Set([c.sender, c.recipient, c.owner]).size === 3);

type Raw = typeof caseArb extends fc.Arbitrary<infer T> ? T : never;

const RECORD_SECRET = randomBytes(32);
const RANDOM = { bytes: (n: number) => randomBytes(n) } as never;
const recordOf = (c: Raw) =>
  sealDepositRecord(depositRecordPublicKey(RECORD_SECRET), { kind: 'deposit', part: 0, trackingId: 'trk_1111111111111111111111', accountId: 'acct_1', mode: 'exact_in', sourceAssetId: c.asset.assetId, destinationAssetId: c.asset.assetId, recipient: addressBytes(c.recipient), amountOut: c.amount }, RANDOM);

async function build(c: Raw, memo: string | undefined = recordOf(c)): Promise<Case> {
  const { base64 } = await buildDepositTransaction({
    memo,
    sender: c.sender,
    depositOwner: c.owner,
    mint: c.asset.mint as Address,
    tokenProgram: c.asset.tokenProgram as Address,
    decimals: c.asset.decimals,
    native: c.asset.native,
    amount: c.amount,
    blockhash: c.blockhash,
    lastValidBlockHeight: 1000n,
    computeUnitLimit: c.limit,
    computeUnitPriceMicroLamports: c.price,
  });
  const compiled = getCompiledTransactionMessageDecoder().decode(getTransactionDecoder().decode(getBase64Encoder().encode(base64)).messageBytes);
  const message = decompileTransactionMessage(compiled as Parameters<typeof decompileTransactionMessage>[0]);
  return { asset: c.asset, sender: c.sender, recipient: c.recipient, amount: c.amount, base64, blockhash: c.blockhash as unknown as Blockhash, instructions: [...message.instructions] as Instruction[] };
}

/** The message kit compiles from these instructions (the builder is byte for byte kit's output). */
function compile(c: Case, instructions: Instruction[], opts: { feePayer?: Address; version?: 0 | 'legacy'; lookup?: Address } = {}): string {
  let message: any = pipe(
    createTransactionMessage({ version: opts.version ?? 0 }),
    (m) => setTransactionMessageFeePayer(opts.feePayer ?? c.sender, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash({ blockhash: c.blockhash, lastValidBlockHeight: 1000n }, m),
    (m) => appendTransactionMessageInstructions(instructions, m),
  );
  if (opts.lookup) {
    const candidates = [...new Set(instructions.flatMap((ix) => (ix.accounts ?? []).filter((a) => a.role === AccountRole.WRITABLE || a.role === AccountRole.READONLY).map((a) => a.address)))];
    message = compressTransactionMessageUsingAddressLookupTables(message, { [opts.lookup]: candidates });
  }
  return getBase64EncodedWireTransaction(compileTransaction(message));
}

const verify = (c: Case, base64: string) =>
  verifyDepositTransaction(base64, { quote: { amountIn: c.amount.toString(), sourceAssetId: c.asset.assetId }, senderAddress: c.sender, recipientAddress: c.recipient, asset: c.asset });

async function refused(c: Case, base64: string): Promise<DepositRefusal> {
  const e = await verify(c, base64).then(
    () => null,
    (e: unknown) => e,
  );
  assert.ok(e instanceof DepositVerificationError, `accepted a forbidden transaction: ${base64}`);
  return e.reason;
}

const withAccounts = (ix: Instruction, map: (a: NonNullable<Instruction['accounts']>[number], i: number) => NonNullable<Instruction['accounts']>[number]): Instruction => ({ ...ix, accounts: ix.accounts!.map(map) });
/** Index of the first instruction past the compute budget: the create; the transfer follows. */
const CREATE = 2;
const TRANSFER = 3;
/** How many instructions from the create on name accounts: all but the memo, last. */
const named = (ixs: readonly Instruction[]) => ixs.length - CREATE - 1;
const u64 = (b: Uint8Array, at: number) => Buffer.from(b).readBigUInt64LE(at);
function withAmount(ix: Instruction, amount: bigint, at: number): Instruction {
  const data = Buffer.from(ix.data!);
  data.writeBigUInt64LE(amount, at);
  return { ...ix, data };
}

test('every deposit transaction Hush builds is accepted, and compiles identically with kit', async () => {
  await fc.assert(
    fc.asyncProperty(caseArb, async (raw) => {
      const c = await build(raw);
      const ok = await verify(c, c.base64);
      assert.equal(ok.computeUnitLimit, raw.limit);
      assert.equal(ok.computeUnitPriceMicroLamports, raw.price);
      assert.equal(compile(c, c.instructions), c.base64, 'the mutation harness starts from the very transaction');
    }),
    { numRuns: RUNS },
  );
});

type Mutation = (c: Case, extra: Address, n: bigint, pick: number) => string;
const MUTATIONS: Record<string, Mutation> = {
  'another fee payer': (c, extra) => compile(c, c.instructions, { feePayer: extra }),
  'an extra signer': (c, extra, _n, pick) => {
    const ixs = [...c.instructions];
    const i = CREATE + (pick % named(ixs));
    ixs[i] = { ...ixs[i]!, accounts: [...ixs[i]!.accounts!, { address: extra, role: AccountRole.READONLY_SIGNER }] };
    return compile(c, ixs);
  },
  'an extra system transfer': (c, extra, n, pick) => {
    const ixs = [...c.instructions];
    ixs.splice(pick % (ixs.length + 1), 0, getTransferSolInstruction({ source: { address: c.sender } as never, destination: extra, amount: n }) as Instruction);
    return compile(c, ixs);
  },
  'a duplicated instruction': (c, _e, _n, pick) => {
    const ixs = [...c.instructions];
    const i = CREATE + (pick % (ixs.length - CREATE));
    ixs.splice(i, 0, ixs[i]!);
    return compile(c, ixs);
  },
  'a reordered instruction': (c, _e, _n, pick) => {
    const ixs = [...c.instructions];
    const i = CREATE + (pick % (ixs.length - CREATE));
    const j = i === ixs.length - 1 ? pick % CREATE : i + 1; // a later one, or a compute-budget one for the last
    [ixs[i], ixs[j]] = [ixs[j]!, ixs[i]!];
    return compile(c, ixs);
  },
  'another program': (c, extra, _n, pick) => {
    const ixs = [...c.instructions];
    const i = pick % ixs.length;
    ixs[i] = { ...ixs[i]!, programAddress: extra };
    return compile(c, ixs);
  },
  'another destination': (c, extra) => {
    const ixs = [...c.instructions];
    const destinationIndex = c.asset.native ? 1 : 2;
    ixs[TRANSFER] = withAccounts(ixs[TRANSFER]!, (a, i) => (i === destinationIndex ? { ...a, address: extra } : a));
    return compile(c, ixs);
  },
  'amount ± n': (c, _e, n) => {
    const ixs = [...c.instructions];
    const at = c.asset.native ? 4 : 1;
    const amount = u64(ixs[TRANSFER]!.data as Uint8Array, at);
    ixs[TRANSFER] = withAmount(ixs[TRANSFER]!, n % 2n === 0n ? amount + n / 2n + 1n : amount > n ? amount - n : amount + 1n, at);
    return compile(c, ixs);
  },
  'the idempotent create': (c) => {
    const ixs = [...c.instructions];
    ixs[CREATE] = { ...ixs[CREATE]!, data: Uint8Array.from([1]) };
    return compile(c, ixs);
  },
  'a lookup table': (c, extra) => compile(c, c.instructions, { lookup: extra }),
  'a legacy message': (c) => compile(c, c.instructions, { version: 'legacy' }),
  'a compute budget over the cap': (c, _e, n) => compile(c, [getSetComputeUnitLimitInstruction({ units: 200_001 + Number(n % 1_000_000n) }) as Instruction, ...c.instructions.slice(1)]),
  'a heap-frame request': (c) => compile(c, [getRequestHeapFrameInstruction({ bytes: 64 * 1024 }) as Instruction, ...c.instructions]),
  'the recipient named': (c, _e, _n, pick) => {
    const ixs = [...c.instructions];
    const i = CREATE + (pick % named(ixs));
    ixs[i] = { ...ixs[i]!, accounts: [...ixs[i]!.accounts!, { address: c.recipient, role: AccountRole.READONLY }] };
    return compile(c, ixs);
  },
  'a second memo': (c, _e, _n, pick) => {
    const ixs = [...c.instructions];
    ixs.splice(CREATE + (pick % (ixs.length - CREATE)), 0, ixs[ixs.length - 1]!);
    return compile(c, ixs);
  },
  'a memo of another length': (c, _e, n) => {
    const ixs = [...c.instructions];
    const memo = ixs[ixs.length - 1]!;
    const len = Number(n % 400n);
    ixs[ixs.length - 1] = { ...memo, data: Buffer.from('A'.repeat(len === DEPOSIT_RECORD_LENGTH ? len + 1 : len)) };
    return compile(c, ixs);
  },
  'a memo in the clear': (c) => {
    const ixs = [...c.instructions];
    ixs[ixs.length - 1] = { ...ixs[ixs.length - 1]!, data: Buffer.from(`to ${c.recipient}`.padEnd(DEPOSIT_RECORD_LENGTH, '!').slice(0, DEPOSIT_RECORD_LENGTH)) };
    return compile(c, ixs);
  },
  'a memo naming an account': (c, extra) => {
    const ixs = [...c.instructions];
    ixs[ixs.length - 1] = { ...ixs[ixs.length - 1]!, accounts: [{ address: extra, role: AccountRole.READONLY }] };
    return compile(c, ixs);
  },
  'wrong decimals': (c, _e, n) => {
    if (c.asset.native) return compile(c, c.instructions, { version: 'legacy' }); // SOL has no decimals field: another refusal
    const ixs = [...c.instructions];
    const data = Buffer.from(ixs[TRANSFER]!.data!);
    data[9] = (c.asset.decimals + 1 + Number(n % 200n)) % 256;
    ixs[TRANSFER] = { ...ixs[TRANSFER]!, data };
    return compile(c, ixs);
  },
};

test('every forbidden mutation of a real deposit transaction is refused', async () => {
  await fc.assert(
    fc.asyncProperty(caseArb, fc.constantFrom(...Object.keys(MUTATIONS)), addressArb, fc.bigInt({ min: 1n, max: 10n ** 12n }), fc.nat(), async (raw, name, extra, n, pick) => {
      const c = await build(raw);
      fc.pre(extra !== c.sender && extra !== c.recipient);
      await refused(c, MUTATIONS[name]!(c, extra, n, pick));
    }),
    { numRuns: RUNS * 3 },
  );
});

test('the refusal names the rule: a few fixed cases', async () => {
  const c = await build({ asset: ASSETS.find((a) => a.assetId === 'usdc')!, sender: bs58.encode(Buffer.alloc(32, 1)) as Address, recipient: bs58.encode(Buffer.alloc(32, 2)) as Address, owner: bs58.encode(Buffer.alloc(32, 3)) as Address, amount: 25_000_000n, blockhash: bs58.encode(Buffer.alloc(32, 4)) as Address, limit: 100_000, price: 1000n });
  const extra = bs58.encode(Buffer.alloc(32, 5)) as Address;
  assert.equal(await refused(c, MUTATIONS['the idempotent create']!(c, extra, 1n, 0)), 'create_account');
  assert.equal(await refused(c, MUTATIONS['a lookup table']!(c, extra, 1n, 0)), 'lookup_tables');
  assert.equal(await refused(c, MUTATIONS['another fee payer']!(c, extra, 1n, 0)), 'fee_payer');
  assert.equal(await refused(c, MUTATIONS['amount ± n']!(c, extra, 1n, 0)), 'transfer');
  assert.equal(await refused(c, MUTATIONS['a legacy message']!(c, extra, 1n, 0)), 'not_v0');
  assert.equal(await refused(c, 'not a transaction'), 'undecodable');
  const sol = ASSETS.find((a) => a.assetId === 'sol')!;
  await assert.rejects(verifyDepositTransaction(c.base64, { quote: { amountIn: '25000000', sourceAssetId: 'sol' }, senderAddress: c.sender, asset: sol }), DepositVerificationError, 'a USDC deposit is not a SOL one');
  await assert.rejects(verifyDepositTransaction(c.base64, { quote: { amountIn: '25000000', sourceAssetId: 'sol' }, senderAddress: c.sender, asset: ASSETS.find((a) => a.assetId === 'usdc')! }), /asset_mismatch/);
});

test("the deposit's record: one memo last, of the SDK's length, sealed to the worker's key alone; a deposit without one is accepted too", async () => {
  assert.equal(DEPOSIT_RECORD_LENGTH, SEALED_DEPOSIT_RECORD_LENGTH, 'the SDK and Hush agree on the length');
  const raw = { asset: ASSETS.find((a) => a.assetId === 'usdc')!, sender: bs58.encode(Buffer.alloc(32, 1)) as Address, recipient: bs58.encode(Buffer.alloc(32, 2)) as Address, owner: bs58.encode(Buffer.alloc(32, 3)) as Address, amount: 25_000_000n, blockhash: bs58.encode(Buffer.alloc(32, 4)) as Address, limit: 100_000, price: 1000n };
  const c = await build(raw);
  const memo = c.instructions[c.instructions.length - 1]!;
  assert.equal(memo.programAddress, MEMO_PROGRAM_ADDRESS);
  const text = Buffer.from(memo.data!).toString('utf8');
  assert.equal(text.length, DEPOSIT_RECORD_LENGTH);
  const opened = openDepositRecord(RECORD_SECRET, text);
  assert.equal(opened?.amountOut, raw.amount);
  assert.deepEqual(opened?.recipient, addressBytes(raw.recipient));
  assert.equal(openDepositRecord(randomBytes(32), text), null, 'another key opens nothing');
  assert.ok(!text.includes('trk_') && !text.includes(Buffer.from(addressBytes(raw.recipient)).toString('base64').slice(0, 12)), 'nothing of it in the clear');
  const again = await build(raw);
  const other = Buffer.from(again.instructions[again.instructions.length - 1]!.data!).toString('utf8');
  assert.notEqual(other, text, 'two records of one order are unrelated bytes');
  await verify(c, c.base64);
  await verify(c, (await build(raw, undefined)).base64);
  assert.equal(await refused(c, MUTATIONS['a memo of another length']!(c, raw.owner, 10n, 0)), 'record');
  assert.equal(await refused(c, MUTATIONS['a memo naming an account']!(c, raw.owner, 1n, 0)), 'record');
  assert.equal(await refused(c, MUTATIONS['a second memo']!(c, raw.owner, 1n, 0)), 'unexpected_program');
});
