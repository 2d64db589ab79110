/**
 * hush — the partner CLI over the SDK, against HUSH_URL with HUSH_API_KEY:
 *   hush tokens
 *   hush quote --from <asset> [--to <asset>] --amount <base units> --sender <addr> --recipient <addr> [--mode exact_in|exact_out] [--fee-bps n --fee-recipient addr]
 *     [--min-set n | --max-delay s] [--private-only]   (the user's privacy choice; refuse an amount that is not private)
 *     (the quote as JSON on stdout; on stderr, whether the amount is private and the private amounts nearby with the set and wait each keeps 4 times in 5)
 *   hush send --keypair <file> --from <asset> [--to <asset>] --amount <base units> --recipient <addr> [--mode …] [--fee-bps n --fee-recipient addr]
 *   hush status <trackingId>
 *   hush watch <trackingId>
 *   hush webhook-test   (the same as `hush webhook test`)
 *   hush account | webhook set <url>|clear|rotate-secret|test | keys create [--expires-in s]|revoke <keyId>   (the account's own settings: cli-account.ts)
 *   hush receipt <trackingId>   (the final order's signed disclosure receipt as JSON, checked against the published keys first)
 * `send` checks the sender can pay (tokens, SOL for fees and rent) before it creates an order, verifies the
 * deposit transaction before signing it, sends it through SOLANA_RPC_URL and prints each state until the
 * order is final, with when a held private payout goes and the set it went with. Every error is one line:
 * its cause and its fix. Exit status: 0 done, 1 error, 2 usage, 3 the order ended other than completed.
 *
 * `runCli` is the whole command; `cli.ts`, the bin's entry, hands it the process's argv, environment and
 * streams. A test hands it its own (a fetch and an RPC on a simulated Hush, that clock's sleep and now), so
 * only what is about the process itself (argv, exit status) needs a process.
 */
import { readFileSync } from 'node:fs';
import { inspect, parseArgs } from 'node:util';
import { createKeyPairSignerFromBytes, createSolanaRpc, type KeyPairSigner, type Rpc, type SolanaRpcApi } from '@solana/kit';
import { createHushClient, realSleep } from './client.ts';
import { CliError, errorLine, explainError, UsageError, type CliContext } from './cli-errors.ts';
import { watchOrder, type CliStream } from './cli-progress.ts';
export type { CliStream };
import { ACCOUNT_USAGE, accountCommand } from './cli-account.ts';
import { describePrivacy, privateAmountsNearby } from './private-amounts.ts';
import { assertSenderCanPay } from './sender-funds.ts';
import { signAndSend } from './sign-and-send.ts';
import { verifyReceipt } from './receipts.ts';
import type { Quote, QuoteRequest } from './types.ts';
import { SDK_VERSION } from './version.ts';

const USAGE = `usage: hush <tokens | quote | send | status <trk> | watch <trk> | receipt <trk> | webhook-test | account | webhook … | keys …> [options]
  environment: HUSH_URL (default http://127.0.0.1:8787), HUSH_API_KEY, SOLANA_RPC_URL (send; default http://127.0.0.1:8899)
  quote/send:  --from <asset> [--to <asset>] --amount <base units> --recipient <addr> [--mode exact_in|exact_out]
               [--fee-bps <n> --fee-recipient <addr>]   quote: --sender <addr>   send: --keypair <solana keypair JSON file>
               [--min-set <n>] wait until released with at least n of its class (up to the operator's ceiling)
               [--max-delay <s>] or: wait at most s seconds    [--private-only] refuse an amount that is not private
  status/watch/send: --interval <ms> poll interval (default 3000)
  hush --help | -h   this text;   hush --version | -v   the SDK's version
${ACCOUNT_USAGE}
  examples (10 USDC: a private amount on the default menu, held and paid out with its class):
    hush quote --from usdc --amount 10000000 --sender <addr> --recipient <addr>
    hush send --keypair sender.json --from usdc --amount 10000000 --recipient <addr>
    hush watch trk_…`;

const OPTIONS = {
  from: { type: 'string' },
  to: { type: 'string' },
  amount: { type: 'string' },
  sender: { type: 'string' },
  recipient: { type: 'string' },
  mode: { type: 'string' },
  'fee-bps': { type: 'string' },
  'fee-recipient': { type: 'string' },
  keypair: { type: 'string' },
  interval: { type: 'string' },
  'min-set': { type: 'string' },
  'max-delay': { type: 'string' },
  'private-only': { type: 'boolean' },
  'expires-in': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values'];

function need(values: Values, name: keyof Values): string {
  const v = values[name];
  if (typeof v !== 'string' || v === '') throw new UsageError(`--${name} is required`);
  return v;
}

function quoteRequest(values: Values, sender: string): QuoteRequest {
  const from = need(values, 'from');
  const mode = values.mode;
  if (mode !== undefined && mode !== 'exact_in' && mode !== 'exact_out') throw new UsageError('--mode is exact_in or exact_out');
  const feeBps = values['fee-bps'] === undefined ? undefined : Number(values['fee-bps']);
  if (feeBps !== undefined && !Number.isInteger(feeBps)) throw new UsageError('--fee-bps is an integer');
  const amount = need(values, 'amount');
  if (!/^\d+$/.test(amount)) throw new UsageError(`--amount is base units, digits only (10 USDC = 10000000), got "${amount}"`);
  const privacy = privacyChoice(values);
  return {
    amount,
    sourceAssetId: from,
    destinationAssetId: values.to ?? from,
    senderAddress: sender,
    recipientAddress: need(values, 'recipient'),
    ...(mode ? { mode } : {}),
    ...(feeBps !== undefined ? { feeBps } : {}),
    ...(values['fee-recipient'] ? { feeRecipientAddress: values['fee-recipient'] } : {}),
    ...(privacy ? { privacy } : {}),
  };
}

/** --min-set or --max-delay: the user's trade between privacy and time (at most one). */
function privacyChoice(values: Values): QuoteRequest['privacy'] {
  const [minSet, maxDelay] = [values['min-set'], values['max-delay']];
  if (minSet !== undefined && maxDelay !== undefined) throw new UsageError('--min-set and --max-delay are one choice: pass one of them');
  if (minSet !== undefined) {
    if (!/^\d+$/.test(minSet) || Number(minSet) < 1 || Number(minSet) > 1000) throw new UsageError(`--min-set is a set size, 1 to 1000, got "${minSet}"`);
    return { minAnonymitySet: Number(minSet) };
  }
  if (maxDelay !== undefined) {
    if (!/^\d+$/.test(maxDelay)) throw new UsageError(`--max-delay is whole seconds, got "${maxDelay}"`);
    return { maxDelaySeconds: Number(maxDelay) };
  }
  return undefined;
}

/** --private-only: an amount its size alone links is refused before any order, naming the private ones nearby. */
function refuseIfNotPrivate(values: Values, quote: Quote): void {
  if (!values['private-only'] || quote.privacy.standard) return;
  throw new CliError(
    `${quote.amountIn} ${quote.sourceAssetId} is not a private amount (--private-only)`,
    `send a private amount instead: ${quote.privacy.suggestedAmounts.join(', ')} (base units)`,
  );
}

/** A Solana CLI key pair file: a JSON array of 64 bytes (secret then public key). */
async function readKeypair(path: string): Promise<KeyPairSigner> {
  const fix = 'pass --keypair a Solana key pair JSON file (solana-keygen new -o sender.json)';
  let bytes: unknown;
  try {
    bytes = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    const code = (e as { code?: string }).code;
    throw new CliError(`cannot read the key pair ${path} (${code ?? (e as Error).message})`, fix);
  }
  if (!Array.isArray(bytes) || bytes.length !== 64 || !bytes.every((b) => Number.isInteger(b) && b >= 0 && b < 256)) {
    throw new CliError(`${path} is not a key pair (a JSON array of 64 bytes)`, fix);
  }
  try {
    return await createKeyPairSignerFromBytes(Uint8Array.from(bytes as number[]));
  } catch (e) {
    throw new CliError(`${path} is not a valid key pair (${(e as Error).message})`, fix);
  }
}

/** What the CLI runs with: the process's own (cli.ts), or a test's. */
export interface CliIo {
  /** HUSH_URL, HUSH_API_KEY, SOLANA_RPC_URL, HUSH_DEBUG. */
  env: Record<string, string | undefined>;
  stdout: CliStream;
  stderr: CliStream;
  /** Hush's HTTP client's fetch (default the global one). */
  fetch?: typeof globalThis.fetch;
  /** The Solana RPC `send` uses (default one on SOLANA_RPC_URL). */
  rpc?: Rpc<SolanaRpcApi>;
  /** Every wait (polls, Retry-After, the spinner) and every reading of the time (default the real ones). */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  now?: () => number;
}

interface Run {
  io: CliIo;
  ctx: CliContext;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  now: () => number;
  json(v: unknown): void;
  err(line: string): void;
}

/** Runs `hush <argv>`: its exit status; an error is printed as its one line, never thrown. */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const ctx: CliContext = { hushUrl: io.env.HUSH_URL ?? 'http://127.0.0.1:8787', rpcUrl: io.env.SOLANA_RPC_URL ?? 'http://127.0.0.1:8899' };
  const run: Run = {
    io,
    ctx,
    sleep: io.sleep ?? realSleep,
    now: io.now ?? Date.now,
    json: (v) => io.stdout.write(`${JSON.stringify(v, null, 2)}\n`),
    err: (line) => io.stderr.write(`${line}\n`),
  };
  try {
    return await main(argv, run);
  } catch (e) {
    const x = explainError(e, ctx);
    run.err(errorLine(x));
    if (io.env.HUSH_DEBUG === '1') run.err(inspect(e));
    return x.exit;
  }
}

async function main(argv: string[], run: Run): Promise<number> {
  const { io, ctx, json } = run;
  const { values, positionals } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  const [command, ...rest] = positionals;
  if (values.version || command === 'version') return io.stdout.write(`${SDK_VERSION}\n`), 0;
  if (values.help || !command || command === 'help') {
    io.stdout.write(`${USAGE}\n`);
    return values.help || command === 'help' ? 0 : 2;
  }
  const apiKey = io.env.HUSH_API_KEY;
  if (!apiKey) throw new CliError('HUSH_API_KEY is not set', 'export HUSH_API_KEY=<your key> (`npm start` prints the demo key)');
  const client = createHushClient({ baseUrl: ctx.hushUrl, apiKey, sleep: run.sleep, now: run.now, ...(io.fetch ? { fetch: io.fetch } : {}) });
  const intervalMs = values.interval ? Number(values.interval) : 3000;
  if (!Number.isFinite(intervalMs) || intervalMs < 100) throw new UsageError('--interval is milliseconds, at least 100');
  const watch = (trackingId: string) => watchOrder(client, trackingId, { intervalMs, out: io.stdout, sleep: run.sleep, now: run.now });
  const trackingId = () => rest[0] ?? (() => { throw new UsageError(`${command} needs a trackingId`); })();
  switch (command) {
    case 'tokens':
      return json(await client.tokens()), 0;
    case 'quote': {
      const request = quoteRequest(values, need(values, 'sender'));
      const quote = await client.quote(request);
      for (const l of describePrivacy(request, quote, await privateAmountsNearby(client, request, quote))) run.err(l);
      // Refused before anything reaches stdout (issue 53: the quote was printed, then the command failed).
      refuseIfNotPrivate(values, quote);
      json(quote);
      return 0;
    }
    case 'status': {
      const r = await client.status(trackingId());
      return json(r.notModified ? null : r.order), 0;
    }
    case 'watch':
      return watch(trackingId());
    case 'webhook-test':
      return json(await client.testWebhook()), 0;
    case 'receipt': {
      // Checked before it is handed on: a receipt the published keys do not verify is no proof of anything.
      const [receipt, keys] = await Promise.all([client.receipt(trackingId()), client.receiptKeys()]);
      const check = await verifyReceipt(receipt, keys);
      if (!check.valid) throw new CliError(`the receipt of ${receipt.document.trackingId} does not verify (${check.reason})`, 'report it to the operator; do not hand it on');
      json(receipt);
      run.err(`verified: signed by receipt key ${check.keyId}`);
      return 0;
    }
    case 'send':
      return send(client, values, run, watch);
    case 'account':
    case 'webhook':
    case 'keys':
      return accountCommand(client, command, rest, { expiresIn: values['expires-in'] }, { json, err: run.err });
    default:
      throw new UsageError(`unknown command ${command}`);
  }
}

async function send(client: ReturnType<typeof createHushClient>, values: Values, run: Run, watch: (trackingId: string) => Promise<number>): Promise<number> {
  const { ctx } = run;
  const out = (line: string) => run.io.stdout.write(`${line}\n`);
  const signer = await readKeypair(need(values, 'keypair'));
  const request = quoteRequest(values, signer.address);
  const rpc = run.io.rpc ?? createSolanaRpc(ctx.rpcUrl);
  const [quote, tokens] = await Promise.all([client.quote(request), client.tokens()]);
  // Decided before any line: a refused send prints no quote a person (or a script) could take for a go-ahead.
  refuseIfNotPrivate(values, quote);
  out(`quote ${quote.amountIn} ${quote.sourceAssetId} → ${quote.amountOut} ${quote.destinationAssetId} (fee ${quote.fee}, ~${quote.duration} s)`);
  out(describePrivacy(request, quote, [])[0]!);
  const asset = tokens.find((t) => t.assetId === quote.sourceAssetId);
  if (!asset) throw new CliError(`Hush does not list ${quote.sourceAssetId}`, 'run `hush tokens` for the asset ids');
  // Before the order exists: a sender that cannot pay leaves nothing behind.
  await assertSenderCanPay(rpc, signer.address, quote, asset);
  const { amount: _a, sourceAssetId: _s, destinationAssetId: _d, mode: _m, privacy: _p, ...terms } = request;
  const order = await client.order(quote, terms);
  out(`order ${order.trackingId}`);
  try {
    const sent = await signAndSend(client, order, signer, { rpc, asset });
    out(`deposit verified, signed and sent: ${sent.signature}`);
  } catch (e) {
    const x = explainError(e, ctx);
    throw new CliError(`the deposit of ${order.trackingId} was not sent: ${x.cause}`, `${x.fix}; the order expires unpaid at ${order.expiration}`);
  }
  return watch(order.trackingId);
}
