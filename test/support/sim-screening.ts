/**
 * Screening (docs/spec.md §12), late funds and partner fees on a simulated Hush (test/support/sim-hush.ts): a
 * risk API stand-in a test steers address by address (blocked, failing, failing while a condition holds, never
 * answering), a list file whose reloads run on the simulated clock, a user's own transfers into a deposit
 * account (top-ups, co-signed deposits), reads of what landed, and the operator's views (holds, reconcile).
 * Every helper runs the clock while it waits (`h.drive`, `h.until`); nothing sleeps on the wall clock.
 */
import { resolvedByTeam, teamOf } from './operators.ts';
import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sign } from 'node:crypto';
import bs58 from 'bs58';
import type { Address, Instruction } from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { getCreateAssociatedTokenIdempotentInstruction, getTransferCheckedInstruction } from '@solana-program/token';
import { compileMessage, wireTransaction } from '../../src/chain/fast-transaction.ts';
import { associatedTokenAddress } from '../../src/domain/associated-token-address.ts';
import { ChainRefused, DECIMALS, MINTS, TOKEN_PROGRAM } from '../../sim/chain-users.ts';
import { expectOk } from './api-responses.ts';
import type { HushClient } from './hush-client.ts';
import { withSimFetch, type SimHush, type SimWallet } from './sim-hush.ts';
import { placeOrder } from './settlement.ts';
import type { PlacedOrder, QuoteReq } from './settlement-chain.ts';

export { MINTS, TOKEN_PROGRAM } from '../../sim/chain-users.ts';

// ------------------------------------------------------------------------------------------ the risk API

type DeskFetch = (url: string, init?: RequestInit) => Promise<Response>;

/**
 * The risk API in the common shape (the simulator's `ScreeningDesk`, HUSH_SCREENING_URL), steered per address:
 * `blocked` (severe, blocked), `failing` (HTTP 500), `failWhile` (500 while the condition answers true, asked per
 * request) and `slow` (no answer until the caller gives up: Hush's timeout, on the simulated clock).
 */
export class RiskStandIn {
  readonly blocked = new Set<string>();
  readonly failing = new Set<string>();
  readonly failWhile = new Map<string, () => Promise<boolean>>();
  readonly slow = new Set<string>();

  constructor(h: SimHush) {
    const desk = h.world.screening as unknown as { fetch: DeskFetch };
    desk.fetch = (url, init) => this.answer(url, init);
  }

  private async answer(url: string, init?: RequestInit): Promise<Response> {
    const address = decodeURIComponent(url.slice(url.lastIndexOf('/') + 1));
    if (this.slow.has(address)) {
      return new Promise<Response>((_resolve, reject) => {
        const signal = init?.signal;
        if (!signal) return;
        if (signal.aborted) return reject(signal.reason);
        signal.addEventListener('abort', () => reject(signal.reason), { once: true });
      });
    }
    if (this.failing.has(address) || (await this.failWhile.get(address)?.())) return new Response('{}', { status: 500 });
    const blocked = this.blocked.has(address);
    return Response.json({ address, risk: blocked ? 'severe' : 'none', blocked, reason: 'sanctions' });
  }
}

// ------------------------------------------------------------------------------------------ list files

/**
 * A list file of blocked addresses (HUSH_SCREENING_LISTS) in a directory of its own; `block` appends an address
 * and runs the clock until Hush has reloaded it (/readyz counts the list's addresses).
 */
export class ScreeningList {
  readonly dir: string;
  readonly path: string;
  private listed = 0;

  constructor(name = 'blocked.txt', header = '# listed during the tests\n') {
    this.dir = mkdtempSync(join(tmpdir(), 'hush-sim-lists-'));
    this.path = join(this.dir, name);
    writeFileSync(this.path, header);
  }

  /** The settings that load it, checked every `reloadMs` of simulated time. */
  env(reloadMs = 100): Record<string, string> {
    return { HUSH_SCREENING_LISTS: this.path, HUSH_SCREENING_RELOAD_MS: String(reloadMs) };
  }

  async block(h: SimHush, address: string): Promise<void> {
    appendFileSync(this.path, `${address}\n`);
    const n = ++this.listed;
    await h.until('the list reloaded', async () => ((expectOk(await h.ops.get('/readyz')) as { screening?: string }).screening ?? '').includes(`(${n})`), 5_000, 50);
  }

  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

// ------------------------------------------------------------------------------------------ the chain

/** kit's builders want a signer for a signing account; only its address reaches the compiled message. */
export function signerOf(address: string) {
  return { address: address as Address, signTransactions: async () => [] } as never;
}

export function usdcAccount(owner: string): Address {
  return associatedTokenAddress(owner as Address, MINTS.usdc as Address, TOKEN_PROGRAM);
}

/**
 * Compiles `ixs` with `feePayer` paying, signs with it and every co-signer (synchronously, node:crypto), sends
 * and waits (simulated time) until confirmed; the signature. Not driven: a caller already inside `h.drive`
 * (a hook Hush calls) awaits it as is.
 */
export async function sendSignedRaw(h: SimHush, feePayer: SimWallet, ixs: Instruction[], cosigners: SimWallet[] = []): Promise<string> {
  const compiled = compileMessage(feePayer.address as Address, ixs, await h.chain.blockhash());
  assert.ok(compiled, 'the transaction compiles');
  const keys = new Map([feePayer, ...cosigners].map((w) => [w.address, w.privateKey]));
  const sigs = compiled.signers.map((s) => {
    const key = keys.get(s);
    assert.ok(key, `no key for the signer ${s}`);
    return sign(null, compiled.message, key);
  });
  const sent = await h.chain.send(wireTransaction(compiled, sigs).toString('base64'));
  assert.equal(sent, bs58.encode(sigs[0]!));
  assert.ok(await h.chain.confirmed(sent, h.clock), `${sent} confirmed`);
  return sent;
}

export function sendSigned(h: SimHush, feePayer: SimWallet, ixs: Instruction[], cosigners: SimWallet[] = []): Promise<string> {
  return h.drive(sendSignedRaw(h, feePayer, ixs, cosigners));
}

/** `from`'s USDC transfer of `amount` into a deposit account, creating it (idempotent) if a sweep closed it. */
export function usdcTopUpIxs(from: SimWallet, to: { owner: string; account: string }, amount: bigint): Instruction[] {
  const payer = signerOf(from.address);
  return [
    getCreateAssociatedTokenIdempotentInstruction({ payer, ata: to.account as Address, owner: to.owner as Address, mint: MINTS.usdc as Address }),
    getTransferCheckedInstruction({ source: usdcAccount(from.address), mint: MINTS.usdc as Address, destination: to.account as Address, authority: payer, amount, decimals: DECIMALS.usdc }),
  ];
}

/** `from`'s plain SOL transfer of `lamports` to `to` (no SyncNative: e.g. from an exchange). */
export function solTransferIxs(from: SimWallet, to: string, lamports: bigint): Instruction[] {
  return [getTransferSolInstruction({ source: signerOf(from.address), destination: to as Address, amount: lamports })];
}

/** The owner's USDC at `confirmed`; null when it has no token account. */
export async function usdcOf(h: SimHush, owner: string): Promise<bigint | null> {
  try {
    const r = await h.drive(h.chain.call<{ value: { amount: string } }>('getTokenAccountBalance', [usdcAccount(owner), { commitment: 'confirmed' }]));
    return BigInt(r.value.amount);
  } catch (e) {
    if (e instanceof ChainRefused) return null;
    throw e;
  }
}

export function lamportsOf(h: SimHush, address: string): Promise<bigint> {
  return h.drive(h.chain.lamports(address));
}

/** What the owner holds of an asset: lamports for SOL, its USDC account's balance (0 when none) otherwise. */
export async function holdingOf(h: SimHush, owner: string, asset: 'sol' | 'usdc'): Promise<bigint> {
  return asset === 'sol' ? lamportsOf(h, owner) : ((await usdcOf(h, owner)) ?? 0n);
}

export async function accountExists(h: SimHush, address: string): Promise<boolean> {
  const { value } = await h.drive(h.chain.call<{ value: unknown }>('getAccountInfo', [address, { commitment: 'confirmed', encoding: 'base64' }]));
  return value !== null;
}

// ------------------------------------------------------------------------------------------ orders

/** POST /quote then POST /order (test/support/settlement.ts's placeOrder, on the simulated clock). */
export function place(h: SimHush, client: HushClient, req: QuoteReq): Promise<PlacedOrder> {
  return h.drive(placeOrder(client, req));
}

/** An order's status record (GET /status). */
export async function statusOf(client: HushClient, trackingId: string): Promise<any> {
  return expectOk(await client.status(trackingId)).order;
}

/** The order's status in the store. */
export async function storedStatus(h: SimHush, trackingId: string): Promise<string | undefined> {
  return (await h.db.query<{ status: string }>('SELECT status FROM orders WHERE tracking_id = $1', [trackingId])).rows[0]?.status;
}

/**
 * Runs sweep passes until the order's deposit is swept (a pass may defer itself while deposits arrive). A deposit
 * is sweepable once every transaction handed out for its order is dead at `finalized`: its blockhash's 150
 * blocks and the 32 of finality, about 73 s of 400 ms slots after the order was placed.
 */
export async function sweep(h: SimHush, trackingId: string): Promise<void> {
  const swept = async () => (await h.db.query<{ swept: boolean }>('SELECT swept FROM orders WHERE tracking_id = $1', [trackingId])).rows[0]?.swept ?? false;
  await h.until('the sweep of the deposit', async () => (await swept()) || ((await h.hush.worker!.sweepTick()) >= 0 && null), 180_000, 1_000);
}

/** One late-deposit pass of Hush's own worker. */
export function lateTick(h: SimHush): Promise<unknown> {
  return h.drive(h.hush.worker!.lateDepositTick());
}

// ------------------------------------------------------------------------------------------ the operator

/** GET /admin/v1/reconcile until it is clean (ok) with nothing pending; fails with the last report. */
export async function cleanReconcile(h: SimHush, maxMs = 30_000): Promise<any> {
  let last: any = null;
  try {
    return await h.until('a clean reconcile', async () => {
      const res = await h.ops.get('/admin/v1/reconcile');
      last = res.body;
      return res.status === 200 && last.ok === true && last.pendingTransactions === 0 ? last : null;
    }, maxMs, 250);
  } catch (e) {
    throw new Error(`${(e as Error).message}; last report: ${JSON.stringify(last)}`);
  }
}

/** What reconcile shows for USDC under `field` (held, frozen). */
export async function usdcLedger(h: SimHush, field: 'held' | 'frozen'): Promise<string> {
  return (await cleanReconcile(h)).assets.find((a: { assetId: string }) => a.assetId === 'usdc')[field];
}

/** GET /admin/v1/holds: held orders and fund holds (late funds, fees). */
export async function holdQueue(h: SimHush): Promise<{ holds: any[]; fundHolds: any[] }> {
  const q = expectOk(await h.ops.get('/admin/v1/holds')) as { holds?: any[]; fundHolds?: any[] };
  return { holds: q.holds ?? [], fundHolds: q.fundHolds ?? [] };
}

/** alice resolves the held order; what takes four eyes, bob approves (test/support/operators.ts). */
export async function resolveOrder(h: SimHush, trackingId: string, action: string, note = 'reviewed') {
  return resolvedByTeam(await teamOf(h, h.ops), `/admin/v1/orders/${trackingId}/resolve`, action, note);
}

export async function resolveHold(h: SimHush, holdId: string, action: string, note: string) {
  return resolvedByTeam(await teamOf(h, h.ops), `/admin/v1/holds/${holdId}/resolve`, action, note);
}

/**
 * The operator's admin CLI (src/cli/admin-cli.ts) in this process, in its HTTP mode, reaching the simulated
 * Hush's ops listener: its requests (it calls the global fetch) go through `h.fetch` while it runs, the clock
 * running until it has answered. Its exit code and what it wrote.
 */
export async function simAdminCli(h: SimHush, args: string[], env: Record<string, string> = {}): Promise<{ code: number; out: string }> {
  const { runAdminCli } = await import('../../src/cli/admin-cli.ts');
  const io = { lines: [] as string[], out(t: string) { this.lines.push(t); }, err(t: string) { this.lines.push(t); } };
  const code = await withSimFetch(h, () => h.drive(runAdminCli(args, { HUSH_OPS_URL: 'http://ops.sim', HUSH_ADMIN_TOKEN: h.world.adminToken, ...env }, io)));
  return { code, out: io.lines.join('') };
}
