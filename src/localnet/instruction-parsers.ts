import { getBase58Decoder } from '@solana/kit';
import { DataReader, InstructionAccounts, NotParsable, utf8 } from './instruction-bytes.ts';
import { parseTokenInstruction, type ParsedEnum } from './instruction-parser-token.ts';
import { TOKEN_2022_PROGRAM, TOKEN_PROGRAM } from './token-accounts.ts';

const SYSTEM_PROGRAM = '11111111111111111111111111111111';
const ATA_PROGRAM = 'ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL';
const MEMO_PROGRAMS = new Set(['Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo', 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr']);
const base58 = getBase58Decoder();

/** A compiled instruction: its program and accounts as indices into the transaction's account keys. */
export interface CompiledInstruction {
  programIdIndex: number;
  accounts: readonly number[];
  data: Uint8Array;
}

/** The validator's jsonParsed instruction: parsed for the programs it knows, partially decoded otherwise. */
export type UiInstruction =
  | { program: string; programId: string; parsed: unknown; stackHeight: number | null }
  | { programId: string; accounts: string[]; data: string; stackHeight: number | null };

/** System instructions (bincode: a u32 tag, then the fields) in the validator's shape. */
function parseSystem(data: Uint8Array, a: InstructionAccounts): ParsedEnum {
  const r = new DataReader(data);
  switch (r.u32()) {
    case 0:
      a.atLeast(2);
      return { type: 'createAccount', info: { source: a.key(0), newAccount: a.key(1), lamports: r.u64(), space: r.u64(), owner: r.address() } };
    case 1:
      a.atLeast(1);
      return { type: 'assign', info: { account: a.key(0), owner: r.address() } };
    case 2:
      a.atLeast(2);
      return { type: 'transfer', info: { source: a.key(0), destination: a.key(1), lamports: r.u64() } };
    case 3: {
      a.atLeast(2);
      const base = r.address();
      const seed = r.bincodeString();
      return { type: 'createAccountWithSeed', info: { source: a.key(0), newAccount: a.key(1), base, seed, lamports: r.u64(), space: r.u64(), owner: r.address() } };
    }
    case 4:
      a.atLeast(3);
      return { type: 'advanceNonce', info: { nonceAccount: a.key(0), recentBlockhashesSysvar: a.key(1), nonceAuthority: a.key(2) } };
    case 5:
      a.atLeast(5);
      return {
        type: 'withdrawFromNonce',
        info: { nonceAccount: a.key(0), destination: a.key(1), recentBlockhashesSysvar: a.key(2), rentSysvar: a.key(3), nonceAuthority: a.key(4), lamports: r.u64() },
      };
    case 6:
      a.atLeast(3);
      return { type: 'initializeNonce', info: { nonceAccount: a.key(0), recentBlockhashesSysvar: a.key(1), rentSysvar: a.key(2), nonceAuthority: r.address() } };
    case 7:
      a.atLeast(2);
      return { type: 'authorizeNonce', info: { nonceAccount: a.key(0), nonceAuthority: a.key(1), newAuthorized: r.address() } };
    case 8:
      a.atLeast(1);
      return { type: 'allocate', info: { account: a.key(0), space: r.u64() } };
    case 9: {
      a.atLeast(2);
      const base = r.address();
      const seed = r.bincodeString();
      return { type: 'allocateWithSeed', info: { account: a.key(0), base, seed, space: r.u64(), owner: r.address() } };
    }
    case 10: {
      a.atLeast(2);
      const base = r.address();
      return { type: 'assignWithSeed', info: { account: a.key(0), base, seed: r.bincodeString(), owner: r.address() } };
    }
    case 11: {
      a.atLeast(3);
      const lamports = r.u64();
      const sourceSeed = r.bincodeString();
      return { type: 'transferWithSeed', info: { source: a.key(0), sourceBase: a.key(1), destination: a.key(2), lamports, sourceSeed, sourceOwner: r.address() } };
    }
    case 12:
      a.atLeast(1);
      return { type: 'upgradeNonce', info: { nonceAccount: a.key(0) } };
    default:
      throw new NotParsable();
  }
}

/** Associated Token Account instructions (borsh: an empty body or a one-byte tag). */
function parseAssociatedToken(data: Uint8Array, a: InstructionAccounts): ParsedEnum {
  if (data.length > 1) throw new NotParsable();
  const tag = data.length === 0 ? 0 : data[0]!;
  if (tag === 0 || tag === 1) {
    a.atLeast(6);
    return {
      type: tag === 0 ? 'create' : 'createIdempotent',
      info: { source: a.key(0), account: a.key(1), wallet: a.key(2), mint: a.key(3), systemProgram: a.key(4), tokenProgram: a.key(5) },
    };
  }
  if (tag === 2) {
    a.atLeast(7);
    return {
      type: 'recoverNested',
      info: { nestedSource: a.key(0), nestedMint: a.key(1), destination: a.key(2), nestedOwner: a.key(3), ownerMint: a.key(4), wallet: a.key(5), tokenProgram: a.key(6) },
    };
  }
  throw new NotParsable();
}

/**
 * The validator's parse_ui_instruction: the programs its transaction-status crate parses that Hush's
 * transactions use (System, SPL Token and Token-2022, Associated Token Account, Memo) come out parsed,
 * everything else (Compute Budget included: the validator has no parser for it) as
 * `{ programId, accounts, data }`.
 */
export function uiInstruction(ix: CompiledInstruction, keys: readonly string[], stackHeight: number | null): UiInstruction {
  const programId = keys[ix.programIdIndex]!;
  try {
    let parsed: unknown;
    let program: string;
    if (programId === SYSTEM_PROGRAM) [program, parsed] = ['system', parseSystem(ix.data, new InstructionAccounts(ix.accounts, keys))];
    else if (programId === TOKEN_PROGRAM || programId === TOKEN_2022_PROGRAM) [program, parsed] = ['spl-token', parseTokenInstruction(ix.data, new InstructionAccounts(ix.accounts, keys))];
    else if (programId === ATA_PROGRAM) [program, parsed] = ['spl-associated-token-account', parseAssociatedToken(ix.data, new InstructionAccounts(ix.accounts, keys))];
    else if (MEMO_PROGRAMS.has(programId)) [program, parsed] = ['spl-memo', utf8(ix.data)];
    else throw new NotParsable();
    return { program, programId, parsed, stackHeight };
  } catch (e) {
    if (!(e instanceof NotParsable)) throw e;
    return { programId, accounts: ix.accounts.map((i) => keys[i]!), data: base58.decode(ix.data), stackHeight };
  }
}
