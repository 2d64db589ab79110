/**
 * The partner SDK (packages/sdk) and its CLI against a simulated Hush (test/support/sim-hush.ts): a client
 * whose requests reach the partner port by inject and whose waits (polls, Retry-After) are the simulated
 * clock's, kit signers that sign synchronously, and the CLI run in this process with the same fetch, RPC,
 * sleep and clock. What a partner's code does is unchanged; only where its time and network come from is.
 */
import { createHash, sign } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import bs58 from 'bs58';
import type { Address, SignatureBytes, TransactionPartialSigner } from '@solana/kit';
import { createHushClient, type HushClient, type HushClientOptions } from '../../packages/sdk/src/index.ts';
import { runCli } from '../../packages/sdk/src/cli-main.ts';
import { MINTS } from '../../sim/chain-users.ts';
import { SOL, SimWallet, type SimHush } from './sim-hush.ts';

/** Any host: the simulated fetch ignores it. */
export const SIM_HUSH_URL = 'http://hush.sim';

/** An SDK client of the simulated Hush, on its clock. */
export function simSdk(h: SimHush, apiKey: string, opts: Partial<HushClientOptions> = {}): HushClient {
  return createHushClient({ baseUrl: SIM_HUSH_URL, apiKey, fetch: h.fetch, sleep: (ms, signal) => h.clock.sleep(ms, signal), now: () => h.now(), ...opts });
}

/** The key id an API key names (`hush_<keyId>_<secret>`). */
export const keyIdOf = (apiKey: string): string => apiKey.slice('hush_'.length, 'hush_'.length + 12);

/** A sender the test holds the seed of (for a key pair file), funded and confirmed like `h.wallet`. */
export interface SeededWallet {
  wallet: SimWallet;
  seed: Uint8Array;
  signer: TransactionPartialSigner;
  address: Address;
}

let drawn = 0;

/** A new wallet from a seed of its own, with `sol` lamports (none when 0n) and `usdc` base units. */
export async function seededWallet(h: SimHush, funds: { sol?: bigint; usdc?: bigint } = {}): Promise<SeededWallet> {
  const seed = createHash('sha256').update(`sim-sdk wallet ${h.world.opts.seed} ${++drawn}`).digest();
  const wallet = new SimWallet(seed);
  const sol = funds.sol ?? 5n * SOL;
  if (sol > 0n) await h.drive(h.chain.confirmed(await h.drive(h.chain.airdrop(wallet.address, sol)), h.clock));
  if (funds.usdc) await h.drive(h.chain.confirmed(await h.drive(h.chain.tokenAirdrop(wallet.address, MINTS.usdc, funds.usdc)), h.clock));
  return { wallet, seed, signer: kitSigner(wallet), address: wallet.address as Address };
}

/**
 * The wallet as a kit TransactionPartialSigner (what signAndSend takes): it signs the message bytes with
 * node:crypto at once, so no signature waits on the thread pool while the simulated clock runs.
 */
export function kitSigner(wallet: SimWallet): TransactionPartialSigner {
  const address = wallet.address as Address;
  return {
    address,
    signTransactions: async (txs) => txs.map((tx) => ({ [address]: new Uint8Array(sign(null, tx.messageBytes as unknown as Uint8Array, wallet.privateKey)) as SignatureBytes })),
  };
}

/** The wallet's key pair as the Solana CLI writes it (`--keypair`): 64 bytes, the seed then the public key. */
export function keypairFile(dir: string, name: string, w: SeededWallet): string {
  const path = join(dir, `${name}.json`);
  writeFileSync(path, JSON.stringify([...w.seed, ...bs58.decode(w.address)]));
  return path;
}

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * `hush <args>` in this process against the simulated Hush: HUSH_URL, HUSH_API_KEY and SOLANA_RPC_URL as
 * `env` says (a key by default), the chain through `h.rpc`, every wait and time the simulated clock's; the
 * run is driven, so its polls move simulated time. Streams are not terminals, as under a pipe.
 */
export async function simCli(h: SimHush, args: string[], env: Record<string, string>): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const code = await h.drive(
    runCli(args, {
      env: { HUSH_URL: SIM_HUSH_URL, SOLANA_RPC_URL: 'http://chain.sim', ...env },
      stdout: { write: (s: string) => (stdout += s), isTTY: false },
      stderr: { write: (s: string) => (stderr += s), isTTY: false },
      fetch: h.fetch,
      rpc: h.rpc,
      sleep: (ms, signal) => h.clock.sleep(ms, signal),
      now: () => h.now(),
    }),
  );
  return { code, stdout, stderr };
}

/** The orders in the store (a refusal "before any order" leaves it unchanged). */
export async function simOrderCount(h: SimHush): Promise<number> {
  const { rows } = await h.drive(h.db.query<{ n: string | number }>('SELECT count(*) AS n FROM orders'));
  return Number(rows[0]!.n);
}
