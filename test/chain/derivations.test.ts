/**
 * The hand-written fast paths for addresses agree with @solana/kit: public keys of deposit owners (JWK
 * import instead of PKCS#8), program-derived addresses (sync hash and curve check) and the hand-assembled
 * deposit transaction.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import {
  appendTransactionMessageInstructions,
  blockhash as toBlockhash,
  compileTransaction,
  createKeyPairSignerFromPrivateKeyBytes,
  createNoopSigner,
  createTransactionMessage,
  generateKeyPairSigner,
  getAddressDecoder,
  getAddressEncoder,
  getBase64EncodedWireTransaction,
  isOffCurveAddress,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  type Address,
} from '@solana/kit';
import { getSetComputeUnitLimitInstruction, getSetComputeUnitPriceInstruction } from '@solana-program/compute-budget';
import { getTransferSolInstruction } from '@solana-program/system';
import { findAssociatedTokenPda, getCreateAssociatedTokenInstruction, getSyncNativeInstruction, getTransferCheckedInstruction } from '@solana-program/token';
import { buildDepositTransaction } from '../../src/chain/deposit-transaction.ts';
import { associatedTokenAddressSync, findProgramAddress, isOnCurve } from '../../src/domain/program-derived-address.ts';
import { addressOfSeed } from '../../src/treasury/treasury-keys.ts';

const MINTS = [
  'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
  'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB',
  'DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263',
  'So11111111111111111111111111111111111111112',
] as Address[];
const TOKEN_PROGRAMS = ['TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA', 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb'] as Address[];

describe('address derivations', () => {
  it('addressOfSeed gives the same public key as kit for random seeds', async () => {
    for (let i = 0; i < 64; i++) {
      const seed = new Uint8Array(randomBytes(32));
      const signer = await createKeyPairSignerFromPrivateKeyBytes(seed);
      assert.equal(addressOfSeed(seed), signer.address);
    }
  });

  it('associated token addresses match kit for random owners, mints and both token programs', async () => {
    for (let i = 0; i < 120; i++) {
      const owner = (await generateKeyPairSigner()).address;
      const mint = MINTS[i % MINTS.length]!;
      const tokenProgram = TOKEN_PROGRAMS[i % 2]!;
      const [want] = await findAssociatedTokenPda({ owner, mint, tokenProgram });
      assert.equal(associatedTokenAddressSync(owner, mint, tokenProgram), want);
    }
  });

  it('isOnCurve accepts real public keys and rejects the addresses PDAs land on', async () => {
    const enc = getAddressEncoder();
    for (let i = 0; i < 32; i++) assert.equal(isOnCurve(new Uint8Array(enc.encode((await generateKeyPairSigner()).address))), true);
    for (let i = 0; i < 32; i++) {
      const [pda] = findProgramAddress([randomBytes(16)], TOKEN_PROGRAMS[0]!);
      assert.equal(isOnCurve(new Uint8Array(enc.encode(pda))), false);
    }
  });

  it('isOnCurve agrees with kit on random bytes and on the edge encodings (y = ±1, y = 0, sign bits, y ≥ p)', () => {
    const dec = getAddressDecoder();
    const edge = (y: bigint, sign: boolean) => {
      const b = new Uint8Array(32);
      for (let i = 0; i < 32; i++) b[i] = Number((y >> BigInt(8 * i)) & 0xffn);
      if (sign) b[31]! |= 0x80;
      return b;
    };
    const p = 2n ** 255n - 19n;
    const cases = [
      ...[0n, 1n, p - 1n, 2n, p, p + 1n, 2n ** 255n - 1n].flatMap((y) => [edge(y, false), edge(y, true)]),
      ...Array.from({ length: 2000 }, () => new Uint8Array(randomBytes(32))),
    ];
    let onCurve = 0;
    for (const b of cases) {
      const want = !isOffCurveAddress(dec.decode(b));
      assert.equal(isOnCurve(b), want, Buffer.from(b).toString('hex'));
      if (want) onCurve++;
    }
    assert.ok(onCurve > 500 && onCurve < cases.length - 500, 'both answers are exercised');
  });
});

describe('deposit transaction', () => {
  it('is byte for byte what kit compiles for the same instructions (SPL and SOL, both token programs)', async () => {
    for (let i = 0; i < 40; i++) {
      const sender = (await generateKeyPairSigner()).address;
      const depositOwner = (await generateKeyPairSigner()).address;
      const native = i % 4 === 3;
      const input = {
        sender,
        depositOwner,
        mint: native ? MINTS[3]! : MINTS[i % 3]!,
        tokenProgram: native ? TOKEN_PROGRAMS[0]! : TOKEN_PROGRAMS[i % 2]!,
        decimals: [6, 6, 5, 9][i % 4]!,
        native,
        amount: BigInt(1 + Math.floor(Math.random() * 1e15)),
        blockhash: (await generateKeyPairSigner()).address as string,
        lastValidBlockHeight: BigInt(1000 + i),
        computeUnitLimit: 40_000 + i,
        computeUnitPriceMicroLamports: BigInt(i * 1000),
      };
      const fast = await buildDepositTransaction(input);
      const [depositAccount] = await findAssociatedTokenPda({ owner: depositOwner, mint: input.mint, tokenProgram: input.tokenProgram });
      assert.equal(fast.depositAccount, depositAccount);
      assert.equal(fast.base64, await kitDepositTransaction(input, depositAccount));
    }
  });
});

/** The deposit transaction the straightforward kit way, as the reference. */
async function kitDepositTransaction(input: Parameters<typeof buildDepositTransaction>[0], depositAccount: Address): Promise<string> {
  const sender = createNoopSigner(input.sender);
  const create = getCreateAssociatedTokenInstruction({ payer: sender, ata: depositAccount, owner: input.depositOwner, mint: input.mint, tokenProgram: input.tokenProgram });
  const transfer = input.native
    ? [
        getTransferSolInstruction({ source: sender, destination: depositAccount, amount: input.amount }),
        getSyncNativeInstruction({ account: depositAccount }, { programAddress: input.tokenProgram }),
      ]
    : [
        getTransferCheckedInstruction(
          {
            source: (await findAssociatedTokenPda({ owner: input.sender, mint: input.mint, tokenProgram: input.tokenProgram }))[0],
            mint: input.mint,
            destination: depositAccount,
            authority: sender,
            amount: input.amount,
            decimals: input.decimals,
          },
          { programAddress: input.tokenProgram },
        ),
      ];
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayer(input.sender, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash({ blockhash: toBlockhash(input.blockhash), lastValidBlockHeight: input.lastValidBlockHeight }, m),
    (m) =>
      appendTransactionMessageInstructions(
        [getSetComputeUnitLimitInstruction({ units: input.computeUnitLimit }), getSetComputeUnitPriceInstruction({ microLamports: input.computeUnitPriceMicroLamports }), create, ...transfer],
        m,
      ),
  );
  return getBase64EncodedWireTransaction(compileTransaction(message));
}
