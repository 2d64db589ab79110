import { envInt } from './env-int.ts';
import { envUrl } from './env-url.ts';
import { wsUrlFromRpcUrl } from './ws-url.ts';
import { ConfigError } from './config-error.ts';

/** The Solana cluster Hush talks to (or the embedded one), its pace, and what every transaction pays (docs/spec.md §11). */
export interface ChainSettings {
  solanaRpcUrl?: string;
  /**
   * PubSub endpoint (SOLANA_WS_URL); unset → derived from SOLANA_RPC_URL, or the embedded chain's; null
   * (`none`): no PubSub, the worker polls over HTTP (a provider without it; the simulator, which has no sockets).
   */
  solanaWsUrl?: string | null;
  localnetPort: number;
  /** Embedded chain's PubSub port (LOCALNET_WS_PORT); unset → LOCALNET_PORT + 1. */
  localnetWsPort?: number;
  /** The embedded chain's slot time (LOCALNET_SLOT_MS): drives that chain only. */
  localnetSlotMs: number;
  /**
   * The embedded chain's congestion and lagging endpoint (LOCALNET_CONGESTION, …_SEED, LOCALNET_DROP_RATE,
   * LOCALNET_QUEUE_SLOTS, LOCALNET_HOT_ACCOUNTS, LOCALNET_LAGGING_PORT, LOCALNET_LAG_SLOTS) as set: the chain
   * reads them itself at start (src/localnet/localnet-config.ts), as `npm run localnet` does.
   */
  localnetEnv?: Readonly<Record<string, string>>;
  /**
   * Hush's assumption of the cluster's slot time (HUSH_SLOT_MS): polls, blockhash life, payout delays and the
   * two-slot gap of class release. Default 400 (a real cluster's target); beside the embedded chain, its LOCALNET_SLOT_MS.
   */
  slotMs: number;
  /** Bound on one Solana RPC round trip (HUSH_RPC_TIMEOUT_MS). */
  rpcTimeoutMs: number;
  /** Request budget of all Solana RPC calls, calls per second (HUSH_RPC_MAX_RPS; 0 = none). */
  rpcMaxRps: number;
  /** Compute budget every Hush-built transaction carries (deposit included). */
  computeUnitLimit: number;
  computeUnitPriceMicroLamports: bigint;
  /**
   * HUSH_EXPLORER_TX_URL: the transaction page the receipt-check page and the console link each signature to,
   * `{signature}` replaced (docs/compliance.md); null (`none`): no links. Default: Solana Explorer on the cluster.
   */
  explorerTxUrl: string | null;
  /** HUSH_EXPLORER_ADDRESS_URL: the console's address page, `{address}` replaced; null (`none`): no links. */
  explorerAddressUrl: string | null;
}

/**
 * HUSH_RPC_MAX_RPS default: 10, a common paid tier. The worker follows slots, deposit accounts and its
 * signatures over PubSub, so an idle Hush makes under 1 call/s; its polls stretch to stay within a share
 * of the budget. A chain without limits (the local one, a private node) can set 0.
 */
export const DEFAULT_RPC_MAX_RPS = 10;

const LOCALNET_EXTRAS = ['LOCALNET_CONGESTION', 'LOCALNET_CONGESTION_SEED', 'LOCALNET_DROP_RATE', 'LOCALNET_QUEUE_SLOTS', 'LOCALNET_HOT_ACCOUNTS', 'LOCALNET_LAGGING_PORT', 'LOCALNET_LAG_SLOTS'];

export function chainSettings(env: NodeJS.ProcessEnv): ChainSettings {
  const localnetSlotMs = envInt(env, 'LOCALNET_SLOT_MS', 400, 10, 60_000);
  return {
    solanaRpcUrl: envUrl(env, 'SOLANA_RPC_URL', ['http:', 'https:']),
    solanaWsUrl: env.SOLANA_WS_URL === 'none' ? null : (envUrl(env, 'SOLANA_WS_URL', ['ws:', 'wss:']) ?? (env.SOLANA_RPC_URL ? wsUrlFromRpcUrl(env.SOLANA_RPC_URL) : undefined)),
    localnetPort: envInt(env, 'LOCALNET_PORT', 8899, 0, 65535),
    ...(env.LOCALNET_WS_PORT ? { localnetWsPort: envInt(env, 'LOCALNET_WS_PORT', 0, 0, 65535) } : {}),
    localnetSlotMs,
    localnetEnv: Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => LOCALNET_EXTRAS.includes(e[0]) && e[1] !== undefined)),
    slotMs: envInt(env, 'HUSH_SLOT_MS', env.SOLANA_RPC_URL ? 400 : localnetSlotMs, 10, 60_000),
    rpcTimeoutMs: envInt(env, 'HUSH_RPC_TIMEOUT_MS', 10_000, 100, 120_000),
    rpcMaxRps: envInt(env, 'HUSH_RPC_MAX_RPS', DEFAULT_RPC_MAX_RPS, 0, 100_000),
    computeUnitLimit: envInt(env, 'HUSH_COMPUTE_UNIT_LIMIT', 100_000, 1000, 1_400_000),
    computeUnitPriceMicroLamports: BigInt(envInt(env, 'HUSH_COMPUTE_UNIT_PRICE', 1000, 0, 1_000_000_000)),
    explorerTxUrl: explorerUrl(env, 'HUSH_EXPLORER_TX_URL', 'tx', '{signature}'),
    explorerAddressUrl: explorerUrl(env, 'HUSH_EXPLORER_ADDRESS_URL', 'address', '{address}'),
  };
}

/**
 * An explorer page template (docs/spec.md §11): the operator's own (http or https, with its placeholder), `none`
 * for no links at all (an explorer learns what its visitors look up: an operator may keep the addresses of held
 * orders to itself), else Solana Explorer on the cluster Hush uses. Never built from the operator's RPC URL (it
 * may carry a provider's key): only its host's cluster name is read, devnet or testnet, else mainnet.
 */
function explorerUrl(env: NodeJS.ProcessEnv, name: string, kind: 'tx' | 'address', placeholder: string): string | null {
  const set = env[name];
  if (set === 'none') return null;
  if (set !== undefined && set !== '') {
    if (!/^https?:\/\/[^\s]+$/.test(set) || !set.includes(placeholder)) throw new ConfigError(`${name} must be an http(s) URL containing ${placeholder}, or none`);
    return set;
  }
  return `https://explorer.solana.com/${kind}/${placeholder}${clusterQuery(env)}`;
}

/** Solana Explorer's `cluster` for this chain: the embedded one by its local URL, a public one by its host's name. */
function clusterQuery(env: NodeJS.ProcessEnv): string {
  if (!env.SOLANA_RPC_URL) return `?cluster=custom&customUrl=${encodeURIComponent(`http://127.0.0.1:${env.LOCALNET_PORT || '8899'}`)}`;
  const host = URL.canParse(env.SOLANA_RPC_URL) ? new URL(env.SOLANA_RPC_URL).hostname : '';
  const cluster = /(^|[.-])devnet([.-]|$)/.test(host) ? 'devnet' : /(^|[.-])testnet([.-]|$)/.test(host) ? 'testnet' : null;
  return cluster ? `?cluster=${cluster}` : '';
}
