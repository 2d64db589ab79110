/** Small builders for store tests: accounts and orders with unique, well-formed values. */
import { randomBytes, randomInt } from 'node:crypto';
import type { Address } from '@solana/kit';
import { insertAccount } from '../../src/store/accounts-store.ts';
import type { Queryable } from '../../src/store/db.ts';
import type { NewOrder } from '../../src/store/orders-store.ts';

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

export function base58(n: number): string {
  let s = '';
  for (let i = 0; i < n; i++) s += BASE58[randomInt(58)];
  return s;
}

/** Something shaped like a Solana address (not necessarily on the curve; the store does not care). */
export function fakeAddress(): Address {
  return base58(44) as Address;
}

export function uniqueSuffix(): string {
  return randomBytes(4).toString('hex');
}

/** Inserts an account row directly and returns its id. */
export async function createTestAccount(db: Queryable, opts: { name?: string; feeCapBps?: number } = {}): Promise<string> {
  const id = `acc_${base58(16)}`;
  await insertAccount(db, { id, name: opts.name ?? `test-${uniqueSuffix()}`, feeCapBps: opts.feeCapBps ?? 100 });
  return id;
}

export const U64_MAX = (1n << 64n) - 1n;

/** A valid order for `accountId`; every unique column gets a fresh value. */
export function newOrder(accountId: string, overrides: Partial<NewOrder> = {}): NewOrder {
  const createdAt = new Date(Math.floor(Date.now() / 1000) * 1000);
  return {
    trackingId: `trk_${base58(22)}`,
    accountId,
    quoteKey: randomBytes(16).toString('hex'),
    quote: { quoteId: `q_${uniqueSuffix()}`, amountIn: '1000000' },
    sourceAssetId: 'usdc',
    destinationAssetId: 'usdc',
    mode: 'exact_in',
    amountIn: 1_000_000n,
    amountOut: 990_000n,
    serviceFee: 3_000n,
    partnerFee: 5_000n,
    networkFee: 2_000n,
    feeBps: 50,
    feeRecipient: fakeAddress(),
    sender: fakeAddress(),
    recipient: fakeAddress(),
    depositOwner: fakeAddress(),
    depositAccount: fakeAddress(),
    expiration: new Date(createdAt.getTime() + 1_800_000),
    txBlockhash: base58(44),
    txLastValidBlockHeight: 1_000n,
    txExpiresAtSlot: 1_200n,
    createdAt,
    ...overrides,
  };
}
