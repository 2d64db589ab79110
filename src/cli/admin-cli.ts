/**
 * The operator CLI (docs/spec.md §3): `npm run admin -- <command> [args]`.
 *
 * Two ways to reach the accounts, chosen per run:
 * - HTTP: when HUSH_ADMIN_TOKEN is set and a server's ops listener is there (HUSH_OPS_URL, else
 *   http://HUSH_OPS_HOST:HUSH_OPS_PORT as the server reads them: anything but a refused connection, since a
 *   busy server may be slow to answer GET /healthz), every command goes through its /admin/v1 API.
 * - Direct: otherwise the store is opened in this process (DATABASE_URL, else PGlite under DATA_DIR);
 *   read-only commands open only an existing, migrated store and never create or migrate one.
 *   PGlite must not be opened by two processes, so with PGlite and a running server but no admin token
 *   the CLI refuses rather than risk the store.
 *
 * stdout gets the JSON result (the same body the HTTP API answers); errors go to stderr with exit
 * code 1, usage errors with exit code 2.
 */
import { parseArgs } from 'node:util';
import { isHushError } from '../domain/errors.ts';
import { AdminService, parseExpiresAt } from '../admin/admin-service.ts';
import { webhookEgressFor } from '../webhooks/webhook-egress.ts';
import type { Db } from '../store/db.ts';
import { NoStoreError, openDb, openExistingDb } from '../store/open-db.ts';
import { ConfigError, loadConfig, opsAddress } from '../config/config.ts';
import { SolanaChain } from '../chain/solana-chain.ts';
import { Treasury } from '../treasury/treasury.ts';
import { loadTreasurySeed, TreasuryKeys } from '../treasury/treasury-keys.ts';
import { logSafeUrl } from '../config/log-safe-url.ts';
import { COMMANDS, ChainUnreachable, FileText, type Command, type HttpRequest, type OptionName, type ParsedOptions } from './admin-commands.ts';
import { QUERY_FLAG_OPTIONS, queryOf, queryUsage } from './admin-query-flags.ts';
import { systemClock } from '../support/clock.ts';
import { systemRandom } from '../support/random.ts';

export interface CliIo {
  out(text: string): void;
  err(text: string): void;
}

const defaultIo: CliIo = {
  out: (t) => process.stdout.write(t),
  err: (t) => process.stderr.write(t),
};

export function usage(): string {
  const lines = ['Usage: npm run admin -- <command> [args]', '', 'Commands:'];
  const describe = (name: string, c: Command) =>
    [name, ...c.args.map((a) => `<${a}>`), ...c.options.map((o) => `[--${o}${OPTION_VALUE[o]}]`), ...(c.csv ? ['[--csv]'] : []), ...(c.query ? ['[filters]'] : [])].join(' ');
  const rows = Object.entries(COMMANDS).map(([name, c]) => [describe(name, c), c.summary] as const);
  rows.push(['help', 'show this help']);
  const width = Math.max(...rows.map(([d]) => d.length));
  for (const [d, s] of rows) lines.push(`  ${d.padEnd(width)}  ${s}`);
  lines.push('', 'Filters (each a query parameter of the admin API; docs/compliance.md):');
  for (const [name, c] of Object.entries(COMMANDS)) if (c.query) lines.push(`  ${name}: ${queryUsage(c.query)}`);
  lines.push(
    '',
    'Environment:',
    '  HUSH_OPERATOR_TOKEN  your personal token (hush_op_…): with a running server, act as yourself, named',
    '                    in the log (approvals take it)',
    '  HUSH_ADMIN_TOKEN  with a running server: use its /admin/v1 API as the deployment\'s automation (the',
    '                    server must have been started with the same HUSH_ADMIN_TOKEN; without one its admin API is off)',
    '  HUSH_OPS_URL      the server\'s ops listener (default http://HUSH_OPS_HOST:HUSH_OPS_PORT, read from',
    '                    PORT, HUSH_OPS_PORT and HUSH_OPS_HOST as the server reads them)',
    '  DATABASE_URL      otherwise: PostgreSQL store to open directly',
    '  DATA_DIR          otherwise: PGlite store under DATA_DIR/pgdata (default ./data)',
    '',
    'Output is JSON on stdout; errors go to stderr (exit 1; usage errors exit 2).',
  );
  return `${lines.join('\n')}\n`;
}

/** What each option takes, for the help: a value's kind, or nothing for a flag. */
const OPTION_VALUE: Record<OptionName, string> = { 'fee-cap-bps': ' N', 'expires-at': ' ISO', email: ' ADDRESS', 'take-over': '' };

class UsageError extends Error {}

function parseCommandLine(argv: string[]): { name: string; command: Command | null; args: string[]; opts: ParsedOptions } {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: { 'fee-cap-bps': { type: 'string' }, 'expires-at': { type: 'string' }, email: { type: 'string' }, 'take-over': { type: 'boolean' }, help: { type: 'boolean', short: 'h' }, ...QUERY_FLAG_OPTIONS },
    });
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  const [name, ...args] = parsed.positionals;
  if (parsed.values.help || name === 'help') return { name: 'help', command: null, args: [], opts: {} };
  if (name === undefined) throw new UsageError('missing command');
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name]! : undefined;
  if (!command) throw new UsageError(`unknown command "${name}"`);
  if (args.length !== command.args.length) {
    throw new UsageError(`${name} takes ${command.args.length === 0 ? 'no arguments' : command.args.map((a) => `<${a}>`).join(' ')}`);
  }
  for (const [i, a] of args.entries()) if (a.length === 0) throw new UsageError(`<${command.args[i]}> must not be empty`);
  const opts: ParsedOptions = {};
  for (const o of Object.keys(OPTION_VALUE) as OptionName[]) {
    if (parsed.values[o] !== undefined && !command.options.includes(o)) throw new UsageError(`${name} does not take --${o}`);
  }
  if (parsed.values['take-over']) opts.takeOver = true;
  const cap = parsed.values['fee-cap-bps'];
  if (cap !== undefined) {
    if (!/^\d{1,9}$/.test(cap)) throw new UsageError('--fee-cap-bps must be a whole number of basis points');
    opts.feeCapBps = Number(cap);
  }
  if (parsed.values.email !== undefined) opts.email = parsed.values.email;
  const expires = parsed.values['expires-at'];
  if (expires !== undefined) {
    if (Number.isNaN(Date.parse(expires))) throw new UsageError('--expires-at must be an ISO 8601 timestamp, e.g. 2027-01-31T00:00:00Z');
    opts.expiresAt = expires;
  }
  if (name === 'set-fee-cap' && !/^\d{1,9}$/.test(args[1]!)) throw new UsageError('<bps> must be a whole number of basis points');
  const filters = queryOf(name, command.query, command.csv === true, parsed.values);
  if ('error' in filters) throw new UsageError(filters.error);
  if (Object.keys(filters.query).length > 0) opts.query = filters.query;
  if (filters.csv) opts.csv = true;
  return { name, command, args, opts };
}

// ---------------------------------------------------------------------------------------------------

/**
 * The local server's ops listener, where /admin/v1 is (docs/spec.md §4): HUSH_OPS_URL, else
 * http://HUSH_OPS_HOST:HUSH_OPS_PORT with the server's defaults (127.0.0.1, PORT + 1); wildcard hosts mean loopback.
 */
export function serverUrl(env: NodeJS.ProcessEnv): string {
  if (env.HUSH_OPS_URL) return env.HUSH_OPS_URL.replace(/\/+$/, '');
  // The server's own reading of the variables (a bad PORT is the same ConfigError it would refuse to start with).
  let { host, port } = opsAddress(env);
  if (host === '0.0.0.0') host = '127.0.0.1';
  if (host === '::' || host === '[::]') host = '::1';
  if (host.includes(':') && !host.startsWith('[')) host = `[${host}]`;
  return `http://${host}:${port}`;
}

/** How to turn a server's admin API on, for messages. */
const TURN_ADMIN_ON = 'restart it with HUSH_ADMIN_TOKEN set (make one with: openssl rand -base64 32) and give this CLI the same HUSH_ADMIN_TOKEN';

/** Failures that mean nothing listens there: every other failure (a timeout, a reset) may be a busy server. */
const NOTHING_THERE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL']);

/**
 * Whether a server may be at `baseUrl`: only an address that refuses the connection (or does not resolve)
 * has none. Any HTTP answer, whatever its status, or a probe that timed out, counts as one: a loaded server
 * that is slow to answer /healthz is still there, and taking it for absent sent an operator with
 * HUSH_ADMIN_TOKEN to a local store of their own (an empty PGlite created under DATA_DIR) instead of the server's.
 */
async function serverThere(baseUrl: string): Promise<boolean> {
  try {
    const res = await fetch(`${baseUrl}/healthz`, { signal: systemClock.timeout(1500) });
    await res.arrayBuffer().catch(() => undefined);
    return true;
  } catch (e) {
    for (let c: unknown = e; c; c = (c as { cause?: unknown }).cause) {
      if (NOTHING_THERE.has((c as { code?: string }).code ?? '')) return false;
    }
    return true;
  }
}

type Mode = { kind: 'http'; baseUrl: string; token: string } | { kind: 'direct' } | { kind: 'refuse'; message: string };

async function chooseMode(env: NodeJS.ProcessEnv): Promise<Mode> {
  // A person's own token first: what they do is then theirs in the log.
  const token = env.HUSH_OPERATOR_TOKEN || env.HUSH_ADMIN_TOKEN || undefined;
  const usesPglite = !env.DATABASE_URL;
  if (!token && !usesPglite) return { kind: 'direct' };
  const baseUrl = serverUrl(env);
  const up = await serverThere(baseUrl);
  if (up && token) return { kind: 'http', baseUrl, token };
  if (up && usesPglite) {
    return {
      kind: 'refuse',
      message:
        `A Hush server is listening at ${baseUrl} and the store is PGlite (no DATABASE_URL), which two processes must not open at once.\n` +
        `Set HUSH_ADMIN_TOKEN to the server's admin token to go through its admin API (a server started without one has its admin API off: ${TURN_ADMIN_ON}), or stop the server first.\n`,
    };
  }
  return { kind: 'direct' };
}

function errorText(code: string | undefined, message: string, requestId?: string): string {
  return `error${code ? ` ${code}` : ''}: ${message}${requestId ? ` (requestId ${requestId})` : ''}\n`;
}

async function runHttp(baseUrl: string, token: string, req: HttpRequest): Promise<{ ok: true; body: unknown } | { ok: false; text: string }> {
  let res: Response;
  try {
    res = await fetch(`${baseUrl}${req.path}`, {
      method: req.method,
      headers: { authorization: `Bearer ${token}`, ...(req.body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: req.body === undefined ? undefined : JSON.stringify(req.body),
      signal: systemClock.timeout(30_000),
    });
  } catch (e) {
    return { ok: false, text: errorText(undefined, `cannot reach the server at ${baseUrl}: ${(e as Error).message}`) };
  }
  const raw = await res.text();
  if (req.text && res.ok) return { ok: true, body: new FileText(raw) };
  let body: { success?: unknown; error?: { code?: string; message?: string; requestId?: string } } | undefined;
  try {
    body = JSON.parse(raw);
  } catch {
    body = undefined;
  }
  if (body && body.success === true && res.ok) return { ok: true, body };
  // Every admin path exists when the admin API is on: a route-level 404 means it is off.
  if (res.status === 404 && body?.error?.message?.startsWith('No route for')) {
    return { ok: false, text: errorText(undefined, `the server at ${baseUrl} answers, but its admin API is off: ${TURN_ADMIN_ON}`) };
  }
  if (body && body.success === false && body.error) {
    return { ok: false, text: errorText(body.error.code, body.error.message ?? `HTTP ${res.status}`, body.error.requestId) };
  }
  return { ok: false, text: errorText(undefined, `unexpected answer from ${req.method} ${req.path}: HTTP ${res.status}`) };
}

/** Runs one CLI invocation; returns the process exit code. */
export async function runAdminCli(argv: string[], env: NodeJS.ProcessEnv = process.env, io: CliIo = defaultIo): Promise<number> {
  let cmd: ReturnType<typeof parseCommandLine>;
  try {
    cmd = parseCommandLine(argv);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    io.err(`${e.message}\n\n${usage()}`);
    return 2;
  }
  if (!cmd.command) {
    io.out(usage());
    return 0;
  }
  const { command, args, opts } = cmd;

  // Validate locally what can be, so both modes answer bad input the same way before touching anything.
  if (opts.expiresAt !== undefined) {
    try {
      parseExpiresAt(opts.expiresAt, systemClock.date());
    } catch (e) {
      if (isHushError(e)) {
        io.err(errorText(e.code, e.message));
        return 1;
      }
      throw e;
    }
  }

  let mode: Mode;
  try {
    mode = await chooseMode(env);
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    io.err(errorText(undefined, e.message));
    return 1;
  }
  let result: unknown;
  if (mode.kind === 'refuse') {
    io.err(errorText(undefined, mode.message.trimEnd()));
    return 1;
  }
  if (mode.kind === 'http') {
    const r = await runHttp(mode.baseUrl, mode.token, command.http(args, opts));
    if (!r.ok) {
      io.err(r.text);
      return 1;
    }
    result = r.body;
  } else {
    let db: Db | undefined;
    try {
      const where = { databaseUrl: env.DATABASE_URL || undefined, dataDir: env.DATA_DIR || './data', poolSize: 2, schema: env.DATABASE_SCHEMA || undefined, clock: systemClock };
      db = command.readOnly ? await openExistingDb(where) : await openDb(where);
      const store = db;
      // Webhook URLs as the server would take them: this machine only beside the embedded chain.
      // A composition root of its own: the system's clock and randomness (ids, keys and secrets it issues).
      const admin = new AdminService(db, { clock: systemClock, random: systemRandom, webhookEgress: webhookEgressFor({ solanaRpcUrl: env.SOLANA_RPC_URL || undefined }) });
      result = await command.direct(admin, args, opts, {
        db: store,
        clock: systemClock,
        random: systemRandom,
        config: () => loadConfig(env),
        async treasury() {
          const config = loadConfig(env);
          const chain = new SolanaChain(config.solanaRpcUrl ?? `http://127.0.0.1:${config.localnetPort}`, systemClock, config.slotMs, config.rpcTimeoutMs, config.rpcMaxRps);
          await chain.rpc
            .getSlot()
            .send()
            .catch(() => {
              throw new ChainUnreachable(
                `chain: no Solana RPC answers at ${logSafeUrl(chain.url)}${config.solanaRpcUrl ? '' : ' (the embedded chain runs inside Hush: with Hush stopped, run `npm run localnet` with the same DATA_DIR and LOCALNET_PORT)'}`,
              );
            });
          const keys = new TreasuryKeys(loadTreasurySeed({ treasurySeed: config.treasurySeed, dataDir: config.dataDir }));
          return { chain, treasury: await Treasury.load(keys, config.assets), config };
        },
      });
    } catch (e) {
      if (isHushError(e)) io.err(errorText(e.code, e.message));
      else if (e instanceof ChainUnreachable || e instanceof NoStoreError) io.err(errorText(undefined, e.message));
      else io.err(errorText(undefined, `store: ${(e as Error).message ?? String(e)}`));
      return 1;
    } finally {
      await db?.close().catch(() => {});
    }
  }
  io.out(result instanceof FileText ? result.text : `${JSON.stringify(result, null, 2)}\n`);
  if (command.issuesSecret) io.err(`Note: ${command.issuesSecret}\n`);
  return 0;
}
