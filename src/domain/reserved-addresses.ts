/**
 * Addresses no transfer may name as sender, recipient or fee recipient (docs/spec.md §4), whatever the
 * chain holds there: the cluster's reserved keys and the programs every cluster deploys. A static list,
 * so the check costs no chain call. Sources: Agave's `reserved_account_keys.rs` (builtins, precompiles
 * and sysvars, which the runtime makes read-only in every transaction) and the SPL programs' declared ids.
 * A program deployed by anyone else is not here: see docs/decisions.md (address rules).
 */
const PROGRAMS: readonly string[] = [
  // Builtins and precompiles (reserved_account_keys.rs)
  '11111111111111111111111111111111', // system
  'Vote111111111111111111111111111111111111111',
  'Stake11111111111111111111111111111111111111',
  'StakeConfig11111111111111111111111111111111',
  'Config1111111111111111111111111111111111111',
  'ComputeBudget111111111111111111111111111111',
  'AddressLookupTab1e1111111111111111111111111',
  'BPFLoader1111111111111111111111111111111111',
  'BPFLoader2111111111111111111111111111111111',
  'BPFLoaderUpgradeab1e11111111111111111111111',
  'LoaderV411111111111111111111111111111111111',
  'NativeLoader1111111111111111111111111111111',
  'Feature111111111111111111111111111111111111',
  'Ed25519SigVerify111111111111111111111111111',
  'KeccakSecp256k11111111111111111111111111111',
  'Secp256r1SigVerify1111111111111111111111111',
  'ZkTokenProof1111111111111111111111111111111',
  'ZkE1Gama1Proof11111111111111111111111111111',
  // Not a program, but whatever reaches it is burnt.
  '1nc1nerator11111111111111111111111111111111',
  // SPL and other well-known programs
  'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA', // token
  'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb', // token-2022
  'ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL', // associated token account
  'Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo', // memo v1
  'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr', // memo v2
  'namesLPneVptA9Z5rqUDD9tMTWEJwofgaYwp8cawRkX', // name service
  'metaqbxxUerdq28cj1RbAWkYQm3ybzjb6a8bt518x1s', // token metadata
];

/** The native mints: wrapped SOL (token and token-2022), refused even when no asset is configured with them. */
export const NATIVE_MINTS: readonly string[] = ['So11111111111111111111111111111111111111112', '9pan9bMn5HatX4EJdBwg9VgCa7Uz5HL8N1m5D3NdXejP'];

const PROGRAM_SET: ReadonlySet<string> = new Set(PROGRAMS);

export type ReservedKind = 'sysvar' | 'program';

/**
 * Every sysvar id starts with "Sysvar" (the sysvar owner id, Sysvar111…, too): the prefix covers sysvars
 * added after this list. A wallet whose key happens to start so is refused as well (1 in 58^6).
 */
export function reservedKind(address: string): ReservedKind | null {
  if (address.startsWith('Sysvar')) return 'sysvar';
  return PROGRAM_SET.has(address) ? 'program' : null;
}

/** The static list, for tests and docs. */
export function reservedPrograms(): readonly string[] {
  return PROGRAMS;
}
