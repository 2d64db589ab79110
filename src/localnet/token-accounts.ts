import { address, getAddressDecoder, type Address } from '@solana/kit';

export const TOKEN_PROGRAM = address('TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA');
export const TOKEN_2022_PROGRAM = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb';
export const NATIVE_MINT = 'So11111111111111111111111111111111111111112';
export const TOKEN_ACCOUNT_SIZE = 165;
export const MINT_SIZE = 82;

const addressDecoder = getAddressDecoder();

export function isTokenProgram(owner: string): boolean {
  return owner === TOKEN_PROGRAM || owner === TOKEN_2022_PROGRAM;
}

export interface TokenAccountState {
  mint: Address;
  owner: Address;
  amount: bigint;
  delegate: Address | null;
  state: 'uninitialized' | 'initialized' | 'frozen';
  isNative: bigint | null;
  delegatedAmount: bigint;
  closeAuthority: Address | null;
}

export interface MintState {
  mintAuthority: Address | null;
  supply: bigint;
  decimals: number;
  isInitialized: boolean;
  freezeAuthority: Address | null;
}

function view(data: Uint8Array): DataView {
  return new DataView(data.buffer, data.byteOffset, data.byteLength);
}

function optionAddress(data: Uint8Array, at: number): Address | null {
  return view(data).getUint32(at, true) === 1 ? addressDecoder.decode(data.subarray(at + 4, at + 36)) : null;
}

/** Parses an SPL Token (or Token-2022 base) account; null for anything that is not one. */
export function parseTokenAccount(owner: string, data: Uint8Array): TokenAccountState | null {
  if (!isTokenProgram(owner) || data.length < TOKEN_ACCOUNT_SIZE) return null;
  if (data.length > TOKEN_ACCOUNT_SIZE && data[TOKEN_ACCOUNT_SIZE] !== 2) return null;
  const v = view(data);
  const stateByte = data[108];
  if (stateByte === 0 || stateByte === undefined || stateByte > 2) return null;
  const nativeTag = v.getUint32(109, true);
  return {
    mint: addressDecoder.decode(data.subarray(0, 32)),
    owner: addressDecoder.decode(data.subarray(32, 64)),
    amount: v.getBigUint64(64, true),
    delegate: optionAddress(data, 72),
    state: stateByte === 1 ? 'initialized' : 'frozen',
    isNative: nativeTag === 1 ? v.getBigUint64(113, true) : null,
    delegatedAmount: v.getBigUint64(121, true),
    closeAuthority: optionAddress(data, 129),
  };
}

export function parseMint(owner: string, data: Uint8Array): MintState | null {
  if (!isTokenProgram(owner) || data.length < MINT_SIZE) return null;
  if (data.length !== MINT_SIZE && data[TOKEN_ACCOUNT_SIZE] !== 1) return null;
  if (data[45] !== 1) return null;
  return {
    mintAuthority: optionAddress(data, 0),
    supply: view(data).getBigUint64(36, true),
    decimals: data[44]!,
    isInitialized: true,
    freezeAuthority: optionAddress(data, 46),
  };
}

export function encodeMint(m: { mintAuthority: Address | null; supply: bigint; decimals: number; freezeAuthority: Address | null }, encodeAddress: (a: Address) => Uint8Array): Uint8Array {
  const data = new Uint8Array(MINT_SIZE);
  const v = view(data);
  if (m.mintAuthority) {
    v.setUint32(0, 1, true);
    data.set(encodeAddress(m.mintAuthority), 4);
  }
  v.setBigUint64(36, m.supply, true);
  data[44] = m.decimals;
  data[45] = 1;
  if (m.freezeAuthority) {
    v.setUint32(46, 1, true);
    data.set(encodeAddress(m.freezeAuthority), 50);
  }
  return data;
}

/** The RPC's `uiTokenAmount`: exact decimal string plus the lossy float the real node also returns. */
export function uiTokenAmount(amount: bigint, decimals: number) {
  const s = amount.toString().padStart(decimals + 1, '0');
  const whole = s.slice(0, s.length - decimals);
  const frac = decimals > 0 ? s.slice(s.length - decimals).replace(/0+$/, '') : '';
  const uiAmountString = frac ? `${whole}.${frac}` : whole;
  return { amount: amount.toString(), decimals, uiAmount: Number(uiAmountString), uiAmountString };
}

export function jsonParsedTokenAccount(t: TokenAccountState, decimals: number, programName: string) {
  const info: Record<string, unknown> = {
    isNative: t.isNative !== null,
    mint: t.mint,
    owner: t.owner,
    state: t.state,
    tokenAmount: uiTokenAmount(t.amount, decimals),
  };
  if (t.delegate) {
    info.delegate = t.delegate;
    info.delegatedAmount = uiTokenAmount(t.delegatedAmount, decimals);
  }
  if (t.isNative !== null) info.rentExemptReserve = uiTokenAmount(t.isNative, 9);
  if (t.closeAuthority) info.closeAuthority = t.closeAuthority;
  return { program: programName, parsed: { info, type: 'account' }, space: BigInt(TOKEN_ACCOUNT_SIZE) };
}

export function jsonParsedMint(m: MintState, programName: string, space: number) {
  return {
    program: programName,
    parsed: {
      info: {
        decimals: m.decimals,
        freezeAuthority: m.freezeAuthority,
        isInitialized: m.isInitialized,
        mintAuthority: m.mintAuthority,
        supply: m.supply.toString(),
      },
      type: 'mint',
    },
    space: BigInt(space),
  };
}
