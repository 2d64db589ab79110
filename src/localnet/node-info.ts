import { createHash } from 'node:crypto';
import {
  address,
  appendTransactionMessageInstruction,
  blockhash as toBlockhash,
  compileTransaction,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
} from '@solana/kit';
import { addressToText } from './base58-cache.ts';
import type { LocalChain } from './local-chain.ts';

const STAKE_PROGRAM = address('Stake11111111111111111111111111111111111111');
/** The stake program's GetMinimumDelegation instruction (bincode u32 tag 13). */
const GET_MINIMUM_DELEGATION = new Uint8Array([13, 0, 0, 0]);
/** Owners of every program on the chain: the native loader (builtins), the BPF loaders, and sysvars. */
const ROOT_OWNERS = [
  'NativeLoader1111111111111111111111111111111',
  'BPFLoader1111111111111111111111111111111111',
  'BPFLoader2111111111111111111111111111111111',
  'BPFLoaderUpgradeab1e11111111111111111111111',
  'LoaderV411111111111111111111111111111111111',
  'Sysvar1111111111111111111111111111111111111',
];

interface NodeInfo {
  identity: string;
  endpoints: { rpc: string | null; pubsub: string | null };
  supply?: { slot: bigint; lamports: bigint };
  minimumDelegation?: bigint;
}
const infos = new WeakMap<LocalChain, NodeInfo>();

function infoOf(chain: LocalChain): NodeInfo {
  let info = infos.get(chain);
  if (!info) {
    // The node's identity: a key derived from the genesis hash, so stable across restarts of one chain.
    const identity = addressToText(createHash('sha256').update(`hush-localnet-identity:${chain.genesisHash}`).digest());
    infos.set(chain, (info = { identity, endpoints: { rpc: null, pubsub: null } }));
  }
  return info;
}

export function nodeIdentity(chain: LocalChain): string {
  return infoOf(chain).identity;
}

/** Where this node serves JSON-RPC and PubSub (host:port), for getClusterNodes; set when the servers start. */
export function setEndpoints(chain: LocalChain, endpoints: { rpc: string; pubsub: string }): void {
  infoOf(chain).endpoints = endpoints;
}

export function endpointsOf(chain: LocalChain): { rpc: string | null; pubsub: string | null } {
  return infoOf(chain).endpoints;
}

/**
 * The chain's capitalization: the lamports of every account owned by a program on the chain (builtins,
 * BPF programs, sysvars), summed. Accounts assigned to an address that holds no program are not found.
 * A scan of the whole account set per owner, so cached per slot.
 */
export function totalSupply(chain: LocalChain): bigint {
  const info = infoOf(chain);
  if (info.supply && info.supply.slot === chain.slot) return info.supply.lamports;
  const seen = new Set<string>();
  let lamports = 0n;
  const owners = [...ROOT_OWNERS];
  for (let i = 0; i < owners.length; i++) {
    for (const { address: a, account } of chain.programAccounts(owners[i]!)) {
      if (seen.has(a)) continue;
      seen.add(a);
      lamports += account.lamports;
      if (account.executable && i < ROOT_OWNERS.length) owners.push(a);
    }
  }
  info.supply = { slot: chain.slot, lamports };
  return lamports;
}

/** The stake program's minimum delegation, asked of the stake program itself (a simulated GetMinimumDelegation). */
export function stakeMinimumDelegation(chain: LocalChain): bigint {
  const info = infoOf(chain);
  if (info.minimumDelegation !== undefined) return info.minimumDelegation;
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayer(chain.faucet.address, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash({ blockhash: toBlockhash(chain.latestBlockhash('processed').blockhash), lastValidBlockHeight: 0n }, m),
    (m) => appendTransactionMessageInstruction({ programAddress: STAKE_PROGRAM, data: GET_MINIMUM_DELEGATION }, m),
  );
  const bytes = new Uint8Array(Buffer.from(getBase64EncodedWireTransaction(compileTransaction(message)), 'base64'));
  const sim = chain.simulate(bytes, { sigVerify: false, replaceRecentBlockhash: true });
  const data = sim.returnData ? Buffer.from(sim.returnData.data[0], 'base64') : null;
  if (sim.err !== null || !data || data.length !== 8) throw new Error(`stake program GetMinimumDelegation failed: ${JSON.stringify(sim.err)}`);
  info.minimumDelegation = data.readBigUInt64LE(0);
  return info.minimumDelegation;
}
