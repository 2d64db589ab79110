import {
  getBase58Decoder,
  getCompiledTransactionMessageDecoder,
  getTransactionDecoder,
  type Address,
} from '@solana/kit';

/** What the chain needs to know about a wire transaction before it runs it. */
export interface WireTransaction {
  readonly bytes: Uint8Array;
  readonly signature: string;
  readonly signatureCount: number;
  readonly version: 0 | 'legacy';
  readonly feePayer: Address;
  readonly staticKeys: readonly Address[];
  readonly writableStatic: readonly boolean[];
  readonly recentBlockhash: string;
  readonly instructions: readonly { programAddressIndex: number; accountIndices?: number[]; data?: Uint8Array }[];
  readonly lookups: readonly { lookupTableAddress: Address; writableIndexes: number[]; readonlyIndexes: number[] }[];
  readonly header: { numSignerAccounts: number; numReadonlySignerAccounts: number; numReadonlyNonSignerAccounts: number };
}

const txDecoder = getTransactionDecoder();
const messageDecoder = getCompiledTransactionMessageDecoder();
const base58 = getBase58Decoder();

export class WireDecodeError extends Error {}

/** Decodes and sanity-checks a serialized transaction the way an RPC node does before it looks at state. */
export function decodeWireTransaction(bytes: Uint8Array): WireTransaction {
  let decoded;
  let message;
  try {
    decoded = txDecoder.decode(bytes);
    message = messageDecoder.decode(decoded.messageBytes);
  } catch (e) {
    throw new WireDecodeError(`failed to deserialize transaction: ${(e as Error).message}`);
  }
  if (message.version !== 0 && message.version !== 'legacy') {
    throw new WireDecodeError(`unsupported transaction version ${String(message.version)}`);
  }
  const signatures = Object.values(decoded.signatures);
  const header = message.header;
  const keys = message.staticAccounts;
  if (signatures.length === 0 || signatures.length !== header.numSignerAccounts || keys.length < header.numSignerAccounts) {
    throw new WireDecodeError('invalid transaction: Transaction failed to sanitize accounts offsets correctly');
  }
  const first = signatures[0];
  const signature = first ? base58.decode(first) : base58.decode(new Uint8Array(64));
  const writableSigners = header.numSignerAccounts - header.numReadonlySignerAccounts;
  const writableStatic = keys.map(
    (_, i) => i < writableSigners || (i >= header.numSignerAccounts && i < keys.length - header.numReadonlyNonSignerAccounts),
  );
  const lookups = (message.version === 0 ? message.addressTableLookups ?? [] : []).map((l) => ({
    lookupTableAddress: l.lookupTableAddress,
    writableIndexes: [...l.writableIndexes],
    readonlyIndexes: [...l.readonlyIndexes],
  }));
  return {
    bytes,
    signature,
    signatureCount: signatures.length,
    version: message.version,
    feePayer: keys[0]!,
    staticKeys: keys,
    writableStatic,
    recentBlockhash: message.lifetimeToken,
    instructions: message.instructions.map((ix) => ({
      programAddressIndex: ix.programAddressIndex,
      accountIndices: ix.accountIndices ? [...ix.accountIndices] : undefined,
      data: ix.data ? new Uint8Array(ix.data) : undefined,
    })),
    lookups,
    header,
  };
}
