import type { Base64EncodedWireTransaction } from '@solana/kit';

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/**
 * A signed transaction as the RPC takes it. Hush keeps wires as text (built by fast-transaction.ts, stored
 * in chain_txs): this is the one place such text becomes kit's branded type, checked for its alphabet.
 */
export function asWireTransaction(wire: string): Base64EncodedWireTransaction {
  if (!BASE64.test(wire)) throw new Error('not a base64 wire transaction');
  return wire as Base64EncodedWireTransaction;
}
