import { DataReader, InstructionAccounts, NotParsable, utf8 } from './instruction-bytes.ts';
import { uiTokenAmount } from './token-accounts.ts';

type Info = Record<string, unknown>;
export interface ParsedEnum {
  type: string;
  info: Info;
}

/** Token-2022's SetAuthority kinds, in their on-chain order (u8), as the validator names them. */
const AUTHORITY_TYPES = [
  'mintTokens', 'freezeAccount', 'accountOwner', 'closeAccount', 'transferFeeConfig', 'withheldWithdraw', 'closeMint',
  'interestRate', 'permanentDelegate', 'confidentialTransferMint', 'transferHookProgramId', 'confidentialTransferFeeConfig',
  'metadataPointer', 'groupPointer', 'groupMemberPointer', 'scaledUiAmount', 'pause',
];
/** Token-2022's extension types, in their on-chain order (u16), as the validator names them. */
const EXTENSION_TYPES = [
  'uninitialized', 'transferFeeConfig', 'transferFeeAmount', 'mintCloseAuthority', 'confidentialTransferMint',
  'confidentialTransferAccount', 'defaultAccountState', 'immutableOwner', 'memoTransfer', 'nonTransferable',
  'interestBearingConfig', 'cpiGuard', 'permanentDelegate', 'nonTransferableAccount', 'transferHook', 'transferHookAccount',
  'confidentialTransferFeeConfig', 'confidentialTransferFeeAmount', 'metadataPointer', 'tokenMetadata', 'groupPointer',
  'groupMemberPointer', 'tokenGroup', 'tokenGroupMember', 'confidentialMintBurn', 'scaledUiAmount', 'pausable', 'pausableAccount',
];

/**
 * The authority of a token instruction: one signer at `at`, or a multisig account there followed by its
 * signers (the validator's parse_signers).
 */
function signers(info: Info, a: InstructionAccounts, at: number, single: string, multisig: string): Info {
  if (a.length > at + 1) {
    info[multisig] = a.key(at);
    info.signers = a.from(at + 1);
  } else if (a.length > at) info[single] = a.key(at);
  return info;
}

/**
 * SPL Token and Token-2022 instructions in the validator's jsonParsed shape (both programs are
 * "spl-token" there). The base instruction set (tags 0–24) is parsed; Token-2022's extension
 * instructions (25 and up) throw NotParsable and go out partially decoded.
 */
export function parseTokenInstruction(data: Uint8Array, a: InstructionAccounts): ParsedEnum {
  const r = new DataReader(data);
  const tag = r.u8();
  const amount = () => r.u64().toString();
  const checked = () => {
    const raw = r.u64();
    return uiTokenAmount(raw, r.u8());
  };
  switch (tag) {
    case 0:
    case 20: {
      a.atLeast(tag === 0 ? 2 : 1);
      const decimals = r.u8();
      const mintAuthority = r.address();
      const freezeAuthority = r.optionalAddress();
      const info: Info = { mint: a.key(0), decimals, mintAuthority };
      if (tag === 0) info.rentSysvar = a.key(1);
      if (freezeAuthority !== null) info.freezeAuthority = freezeAuthority;
      return { type: tag === 0 ? 'initializeMint' : 'initializeMint2', info };
    }
    case 1:
      a.atLeast(4);
      return { type: 'initializeAccount', info: { account: a.key(0), mint: a.key(1), owner: a.key(2), rentSysvar: a.key(3) } };
    case 16:
      a.atLeast(3);
      return { type: 'initializeAccount2', info: { account: a.key(0), mint: a.key(1), owner: r.address(), rentSysvar: a.key(2) } };
    case 18:
      a.atLeast(2);
      return { type: 'initializeAccount3', info: { account: a.key(0), mint: a.key(1), owner: r.address() } };
    case 2:
      a.atLeast(3);
      return { type: 'initializeMultisig', info: { multisig: a.key(0), rentSysvar: a.key(1), signers: a.from(2), m: r.u8() } };
    case 19:
      a.atLeast(2);
      return { type: 'initializeMultisig2', info: { multisig: a.key(0), signers: a.from(1), m: r.u8() } };
    case 3:
      a.atLeast(3);
      return { type: 'transfer', info: signers({ source: a.key(0), destination: a.key(1), amount: amount() }, a, 2, 'authority', 'multisigAuthority') };
    case 4:
      a.atLeast(3);
      return { type: 'approve', info: signers({ source: a.key(0), delegate: a.key(1), amount: amount() }, a, 2, 'owner', 'multisigOwner') };
    case 5:
      a.atLeast(2);
      return { type: 'revoke', info: signers({ source: a.key(0) }, a, 1, 'owner', 'multisigOwner') };
    case 6: {
      a.atLeast(2);
      const kind = AUTHORITY_TYPES[r.u8()];
      if (kind === undefined) throw new NotParsable();
      const owned = kind === 'accountOwner' || kind === 'closeAccount' ? 'account' : 'mint';
      const info: Info = { [owned]: a.key(0), authorityType: kind, newAuthority: r.optionalAddress() };
      return { type: 'setAuthority', info: signers(info, a, 1, 'authority', 'multisigAuthority') };
    }
    case 7:
      a.atLeast(3);
      return { type: 'mintTo', info: signers({ mint: a.key(0), account: a.key(1), amount: amount() }, a, 2, 'mintAuthority', 'multisigMintAuthority') };
    case 8:
      a.atLeast(3);
      return { type: 'burn', info: signers({ account: a.key(0), mint: a.key(1), amount: amount() }, a, 2, 'authority', 'multisigAuthority') };
    case 9:
      a.atLeast(3);
      return { type: 'closeAccount', info: signers({ account: a.key(0), destination: a.key(1) }, a, 2, 'owner', 'multisigOwner') };
    case 10:
    case 11:
      a.atLeast(3);
      return { type: tag === 10 ? 'freezeAccount' : 'thawAccount', info: signers({ account: a.key(0), mint: a.key(1) }, a, 2, 'freezeAuthority', 'multisigFreezeAuthority') };
    case 12:
      a.atLeast(4);
      return { type: 'transferChecked', info: signers({ source: a.key(0), mint: a.key(1), destination: a.key(2), tokenAmount: checked() }, a, 3, 'authority', 'multisigAuthority') };
    case 13:
      a.atLeast(4);
      return { type: 'approveChecked', info: signers({ source: a.key(0), mint: a.key(1), delegate: a.key(2), tokenAmount: checked() }, a, 3, 'owner', 'multisigOwner') };
    case 14:
      a.atLeast(3);
      return { type: 'mintToChecked', info: signers({ mint: a.key(0), account: a.key(1), tokenAmount: checked() }, a, 2, 'mintAuthority', 'multisigMintAuthority') };
    case 15:
      a.atLeast(3);
      return { type: 'burnChecked', info: signers({ account: a.key(0), mint: a.key(1), tokenAmount: checked() }, a, 2, 'authority', 'multisigAuthority') };
    case 17:
      a.atLeast(1);
      return { type: 'syncNative', info: { account: a.key(0) } };
    case 21: {
      a.atLeast(1);
      const info: Info = { mint: a.key(0) };
      if (r.remaining % 2 !== 0) throw new NotParsable();
      const types: string[] = [];
      while (r.remaining > 0) {
        const t = EXTENSION_TYPES[r.u16()];
        if (t === undefined) throw new NotParsable();
        types.push(t);
      }
      if (types.length > 0) info.extensionTypes = types;
      return { type: 'getAccountDataSize', info };
    }
    case 22:
      a.atLeast(1);
      return { type: 'initializeImmutableOwner', info: { account: a.key(0) } };
    case 23:
      a.atLeast(1);
      return { type: 'amountToUiAmount', info: { mint: a.key(0), amount: amount() } };
    case 24:
      a.atLeast(1);
      return { type: 'uiAmountToAmount', info: { mint: a.key(0), uiAmount: utf8(r.rest()) } };
    default:
      throw new NotParsable();
  }
}
