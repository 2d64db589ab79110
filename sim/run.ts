import { cpuUsage } from 'node:process';
import type { Address } from '@solana/kit';
import { SolanaChain } from '../src/chain/solana-chain.ts';
import { releasePolicy } from '../src/config/privacy-settings.ts';
import { mergeHorizonMs } from '../src/domain/class-release.ts';
import { reconcile } from '../src/ledger/reconcile.ts';
import { generateApiKey } from '../src/services/api-keys.ts';
import { addFeeRecipient, insertAccount, insertApiKey, updateAccount } from '../src/store/accounts-store.ts';
import { ChainUsers } from './chain-users.ts';
import { faultPlan, type FaultSet } from './faults.ts';
import { readStatuses } from './final-statuses.ts';
import { checkBooks, checkPartnerFees, checkPartnerPayables } from './book-invariants.ts';
import { checkMoney, checkReleases, checkScreening, checkTestSends, emptyTallies, type Tallies } from './invariants.ts';
import { operatorPass } from './operator.ts';
import { recordedPaths, transitionPath } from './path-coverage.ts';
import { checkEveryMemberReleased } from './release-invariants.ts';
import { PartnerApi } from './partner-api.ts';
import { runUntil, settle } from './settle.ts';
import { drawSessions, type Profile, type Session } from './traffic.ts';
import { InvariantBroken, runSession, type OrderTruth, type UserWorld } from './users.ts';
import { SimWallet } from './wallets.ts';
import { watchWallClock } from './wall-clock-guard.ts';
import { SIM_EPOCH, stream, World, type ProcessRole } from './world.ts';
import { backedUpIdentities, backupStore, restoreStore, wipeStore, type StoreBackup } from './store-backups.ts';

export interface RunOptions {
  seed: number;
  /** Simulated traffic, ms (the run then drains until every order has ended). */
  durationMs: number;
  profile: Profile;
  faults: FaultSet;
  /** Mean orders per second. */
  rate: number;
  partners?: number;
  /** How often users misbehave (wrong deposits, retries, sanctioned senders, late funds): 0.3 when absent. */
  mischief?: number;
  /** Only these sessions (a shrunk schedule's replay); all when absent. */
  keep?: ReadonlySet<number>;
  plant?: (sql: string) => string;
  /** HUSH_* settings over the simulation's (the suite's seeds shorten the deadlines an operator may set). */
  env?: Record<string, string>;
  databaseUrl?: string;
  /** The processes on the store (default: two partner APIs and two settlement workers, sim/world.ts). */
  processes?: readonly ProcessRole[];
  echo?: (line: string) => void;
}

/** What a run starts unless told otherwise: two API and two worker processes, each crashing on its own. */
export const DEFAULT_PROCESSES: readonly ProcessRole[] = ['api', 'api', 'worker', 'worker'];

export interface RunReport {
  seed: number;
  ok: boolean;
  failure: { invariant: string; message: string; tail: string[] } | null;
  digest: string;
  tallies: Tallies;
  sessions: Session[];
  orders: number;
  crashes: string[];
  /** The processes the run kept up, by role, and how many lives they had between them (each restart a new one). */
  processes: readonly ProcessRole[];
  lives: number;
  faults: Record<string, number>;
  simulatedMs: number;
  cpuMs: number;
  statements: number;
  rpcCalls: number;
  /** How often each path ran (path-coverage.ts): the faults dealt and what Hush did about them. */
  paths: Map<string, number>;
}

/** How long after the traffic stops the run waits at most for every order to end: its longest hold or deadline, and five minutes. */
const drainMs = (c: { privacyMaxWaitS: number; orderTtlS: number }) => (Math.max(c.privacyMaxWaitS, c.orderTtlS) + 300) * 1000;
const CHECK_EVERY_MS = 60_000;
/**
 * How far apart two payouts of one release may be due: a release starts at its decision or, while its class's last
 * burst clears, up to a spread and the gap after that one's decision (mergeHorizonMs); its payouts are spread from
 * there; and a member whose own hold runs out first goes at once.
 */
const releaseSpan = (c: World['config']) => {
  const policy = releasePolicy(c);
  return mergeHorizonMs(policy) + policy.spreadFromMs + policy.spreadMs;
};
/** The least a run goes on after its calm before the final check: longer than a node holds a send (faults.ts). */
const AFTER_CALM_MS = 120_000;
const OPERATOR_EVERY_MS = 30_000;

/**
 * One seed's run: the world, its partners, the seeded users and faults; invariants checked every simulated
 * minute and at the end, after the storm has calmed and every order has had its time to end.
 */
export async function runSeed(o: RunOptions): Promise<RunReport> {
  const cpu0 = cpuUsage();
  const wallClock = watchWallClock();
  const faults = faultPlan(o.faults, o.seed, stream(o.seed, 'faults'), { startMs: SIM_EPOCH, durationMs: o.durationMs });
  const world = await World.create({ seed: o.seed, faults, plant: o.plant, databaseUrl: o.databaseUrl, echo: o.echo, env: o.env, processes: o.processes ?? DEFAULT_PROCESSES });
  const tallies = emptyTallies();
  const truths: OrderTruth[] = [];
  const sessions = drawSessions({ profile: o.profile, durationMs: o.durationMs, rate: o.rate, partners: o.partners ?? 3, mischief: o.mischief ?? 0.3 }, stream(o.seed, 'traffic')).filter((s) => !o.keep || o.keep.has(s.id));
  let failure: RunReport['failure'] = null;
  const fail = (e: unknown) => {
    if (failure) return;
    const invariant = e instanceof InvariantBroken ? e.invariant : 'the simulation itself';
    failure = { invariant, message: (e as Error).stack ?? String(e), tail: world.log.tail() };
    world.log.add(`FAILED ${invariant}: ${(e as Error).message}`);
  };
  const stopped = () => failure !== null;
  const paths = new Map<string, number>();
  const ran = (path: string | null, n = 1) => void (path !== null && n > 0 && paths.set(path, (paths.get(path) ?? 0) + n));
  world.recordReaders.push((fields, msg) => msg === 'order transition' && ran(transitionPath(fields.from, fields.to)));
  const chainUsers = new ChainUsers(world.wire);
  // Invariant checks read the chain as the reconcile does, but without faults (they are the oracle).
  const oracleChain = new SolanaChain('http://chain.sim', world.clock, world.config.slotMs, 10_000, 0, (_u, init) => world.wire.direct(String(init?.body ?? '')).then((j) => Response.json(j)));
  try {
    await until(world, world.startAll(), stopped);
    const records = partnerRecords(world, o.partners ?? 3);
    await insertPartners(world, records);
    const partners = records.map((r) => ({ api: new PartnerApi(world, r.key.apiKey), feeRecipient: r.feeRecipient }));
    let ending = false;
    const users: UserWorld = {
      clock: world.clock,
      log: world.log,
      chain: chainUsers,
      partner: (i) => partners[i]!,
      blockSender: (a) => world.screening.block(a),
      ending: () => ending,
    };
    // The `store` fault: a backup taken mid-storm, restored later with Hush stopped meanwhile (docs/operations.md "Restore").
    const wentBack = { backupAt: Number.POSITIVE_INFINITY, restored: false, lost: false, pool: new Set<string>(), restoredAt: 0 };
    if (faults.rollback?.lose) {
      world.clock.after(faults.rollback.restoreAt - world.clock.now(), () => {
        world.log.add('store lost');
        wentBack.restored = wentBack.lost = true;
        wentBack.backupAt = world.clock.now();
        // The operator empties the store and puts back the partners' accounts and keys from its records; Hush rebuilds the rest.
        void world.downWhile(async () => {
          await wipeStore(world.store);
          await insertPartners(world, records);
        }).catch(fail);
      });
    } else if (faults.rollback) {
      const { backupAt, restoreAt } = faults.rollback;
      let backup: StoreBackup | null = null;
      world.clock.after(backupAt - world.clock.now(), () => void world.operatorTool(() => backupStore(world.store)).then((b) => ((backup = b), (wentBack.backupAt = world.clock.now()), world.log.add('store backed up'))).catch(fail));
      world.clock.after(restoreAt - world.clock.now(), () => {
        if (!backup) return;
        const taken = backup;
        world.log.add('store restored to its backup');
        wentBack.restored = true;
        wentBack.pool = backedUpIdentities(taken);
        wentBack.restoredAt = world.clock.now();
        void world.downWhile(() => restoreStore(world.store, taken)).catch(fail);
      });
    }
    // Processes killed at no point in particular (an API mid-request, a worker mid-pass), the others going on.
    const killRandom = stream(o.seed, 'kills');
    for (const k of faults.kills) {
      world.clock.after(k.at - world.clock.now(), () => {
        if (faults.calmed()) return;
        const killed = world.kill(k.role, killRandom);
        if (killed) ran(`${k.role === 'api' ? 'an API' : 'a worker'} killed${killed.beside ? ' beside another' : ''}`);
      });
    }
    // Restored: what came after the backup is forgotten; lost: everything before the loss.
    users.forgotten = (t) => wentBack.restored && (wentBack.lost ? (t.placedAt ?? 0) < wentBack.backupAt : (t.placedAt ?? 0) >= wentBack.backupAt);
    const userRandom = stream(o.seed, 'users');
    for (const s of sessions) {
      // Each user's draws come from a stream of its own: dropping one user changes nobody else's.
      const r = stream(o.seed, `user ${s.id}`);
      void userRandom;
      world.clock.after(s.at, () => void runSession(users, s, r, truths).catch(fail));
    }
    const screenedUpTo = { id: 0 };
    const check = async (final: boolean) => {
      // Every minute's checks stop a run at the first broken invariant; the tallies are the final check's.
      const t = final ? tallies : emptyTallies();
      tallies.checks++;
      const read = wallClock.first();
      if (read !== null) throw new InvariantBroken("time is the clock's", `Hush's code read the wall clock: ${read}`);
      // A forgotten order's deposit the restored store's identities name, landed before the restore, is one Hush must find
      // at its start (one still in flight then is found only through its sweep or a later start: docs/decisions.md).
      const handedBack = (x: OrderTruth) => x.depositAccount !== null && wentBack.pool.has(x.depositAccount) && x.depositAt !== null && x.depositAt <= wentBack.restoredAt;
      await checkMoney(world.store, chainUsers, truths, final, t, (x) => users.forgotten?.(x) ?? false, handedBack);
      await checkScreening(world.store, t, final ? { id: 0 } : screenedUpTo);
      const life = world.worker();
      if (life) {
        const report = await reconcile(world.store, oracleChain, life.treasury, world.config.assets);
        tallies.reconciles++;
        // Late funds the users sent are on the chain before their sweep books them: only more than that is a difference.
        const late = new Map(truths.filter((x) => x.lateFunds > 0n).map((x) => [`deposit:${x.depositAccount}`, x.lateFunds]));
        const real = report.assets.flatMap((a) => a.mismatches.filter((m) => !(BigInt(m.difference) > 0n && BigInt(m.difference) <= (late.get(m.account) ?? 0n))));
        // A lost store's ledger is whole once its opening balances are booked from the chain (Hush's own reconcile waits for it too).
        const opening = await world.store.query<{ due: boolean }>('SELECT opening_due AS due FROM chain_truth WHERE id = 1');
        const whole = opening.rows[0]?.due !== true;
        if (whole && report.consistent && report.pendingTransactions === 0 && real.length > 0) throw new InvariantBroken('the ledger matches the chain', JSON.stringify(real));
        if (final && !report.ok) throw new InvariantBroken('the ledger matches the chain', `at the end: ${JSON.stringify(report)}`);
      }
      if (final) await checkReleases(world.store, chainUsers, truths, releasePolicy(world.config).spreadMs, world.config.slotMs, tallies);
      if (final) checkTestSends(truths);
      if (final) tallies.booked = await checkBooks(world.store, chainUsers, truths, (x) => users.forgotten?.(x) ?? false);
      if (final) {
        const statusOf = await readStatuses(partners, truths);
        await checkPartnerFees(chainUsers, truths, partners.map((p) => p.feeRecipient), statusOf);
        if (!wentBack.restored) tallies.booked += await checkPartnerPayables(world.store, chainUsers, truths, records.map((r) => ({ accountId: r.id, feeRecipient: r.feeRecipient })), statusOf);
        checkEveryMemberReleased(truths, statusOf, (x) => users.forgotten?.(x) ?? false, releaseSpan(world.config));
      }
    };
    world.clock.every(CHECK_EVERY_MS, () => void check(false).catch(fail));
    const operatorRandom = stream(o.seed, 'operator');
    world.clock.every(OPERATOR_EVERY_MS, () => void operatorPass(world, operatorRandom).catch(fail));
    await runUntil(world.clock, world, SIM_EPOCH + o.durationMs, stopped);
    const allEnded = () => truths.length === sessions.length && truths.every((t) => t.done || t.last?.status === 'held');
    // The storm outlasts the traffic by the longest hold: the payouts of the orders placed in it, sent when their classes
    // release, meet its faults too (crashes at a payout's points, dropped and expired sends, re-signing).
    const stormEnd = world.clock.now() + world.config.privacyMaxDelayS * 1000;
    while (!stopped() && world.clock.now() < stormEnd && !allEnded()) await runUntil(world.clock, world, Math.min(stormEnd, world.clock.now() + 30_000), stopped);
    faults.calm();
    world.log.add('calm: no more faults');
    // What the storm left in flight lands or dies first: a send a node still holds (up to 110 s), a sweep pending.
    await runUntil(world.clock, world, world.clock.now() + AFTER_CALM_MS, stopped);
    const drainEnd = world.clock.now() + drainMs(world.config);
    while (!stopped() && world.clock.now() < drainEnd && !allEnded()) await runUntil(world.clock, world, world.clock.now() + 30_000, stopped);
    // Every process alive and settled before the final word.
    if (!world.allUp() && !stopped()) await runUntil(world.clock, world, world.clock.now() + 10_000, stopped);
    ending = true;
    if (!stopped()) await until(world, check(true), stopped).catch(fail);
  } catch (e) {
    fail(e);
  }
  // The replay hash covers every amount and address that moved: each order's terms and what its users hold on chain,
  // and every line of the books (a run that replays its events but moves other amounts is no replay).
  if (!stopped()) await until(world, foldWhatMoved(world, chainUsers, truths), stopped).catch(fail);
  // What the store's records show Hush did (a store restored or lost mid-run shows less: a floor), what the wire and the desk saw.
  for (const [path, n] of await recordedPaths(world.store).catch(() => new Map<string, number>())) ran(path, n);
  for (const [path, n] of faults.tally) ran(path, n);
  ran('screening outage', world.screening.refused);
  ran('resend', world.wire.resends);
  const report: RunReport = {
    seed: o.seed,
    ok: failure === null,
    failure,
    digest: world.log.digest(),
    tallies,
    sessions,
    orders: truths.filter((t) => t.trackingId).length,
    crashes: world.crashes,
    processes: o.processes ?? DEFAULT_PROCESSES,
    lives: world.lives,
    faults: Object.fromEntries(faults.tally),
    simulatedMs: world.clock.now() - SIM_EPOCH,
    cpuMs: 0,
    statements: world.statements(),
    rpcCalls: [...world.wire.calls.values()].reduce((a, b) => a + b, 0),
    paths,
  };
  await world.close();
  wallClock.stop();
  const cpu = cpuUsage(cpu0);
  report.cpuMs = Math.round((cpu.user + cpu.system) / 1000);
  return report;
}

async function foldWhatMoved(world: World, chain: ChainUsers, truths: readonly OrderTruth[]): Promise<void> {
  for (const t of truths) {
    if (t.trackingId === null) continue;
    const received = await chain.holding(t.recipient, t.session.destination);
    const sender = await chain.holding(t.sender.address, t.session.source);
    world.log.fold(`${t.trackingId} ${t.quote.amountIn} ${t.quote.amountOut} ${t.deposited} ${t.lateFunds} ${t.recipient} ${received} ${t.sender.address} ${sender}`);
  }
  const { rows } = await world.store.query<{ line: string }>(`SELECT concat_ws(' ', movement, account, asset_id, amount::text) AS line FROM ledger_entries ORDER BY id`);
  for (const r of rows) world.log.fold(r.line);
}

/** Awaits `p` while the clock runs: what it waits for (a start's retries, a check's reads) happens in simulated time. */
async function until<T>(world: World, p: Promise<T>, stopped: () => boolean): Promise<T> {
  let done = false;
  const settled = p.finally(() => (done = true));
  settled.catch(() => {});
  await settle(world);
  while (!done && !stopped()) {
    if (!world.clock.runNext()) break;
    await settle(world);
  }
  return settled;
}

/** Partners as an operator keeps them on record: an account, a fee recipient and a key each. */
function partnerRecords(world: World, n: number): { id: string; feeRecipient: Address; key: ReturnType<typeof generateApiKey> }[] {
  const random = stream(world.opts.seed, 'partners');
  return Array.from({ length: n }, (_, i) => ({ id: `acc_sim${i}`, feeRecipient: SimWallet.draw(random).address as Address, key: generateApiKey(random) }));
}

/** The partners' records put into the store, as an operator creates them (or puts them back after a lost store). */
async function insertPartners(world: World, records: ReturnType<typeof partnerRecords>): Promise<void> {
  for (const [i, r] of records.entries()) {
    await insertAccount(world.store, { id: r.id, name: `partner ${i}`, feeCapBps: 100 });
    await updateAccount(world.store, r.id, { rateLimits: { quote: 1000, order: 1000, status: 1000, tokens: 1000, account: 100 } });
    await addFeeRecipient(world.store, r.id, r.feeRecipient);
    await insertApiKey(world.store, { keyId: r.key.keyId, accountId: r.id, secretHash: r.key.secretHash, expiresAt: null });
  }
}
