#!/usr/bin/env node
/**
 * hush — the partner CLI over the SDK, against HUSH_URL with HUSH_API_KEY:
 *   hush tokens
 *   hush quote --from <asset> [--to <asset>] --amount <base units> --sender <addr> --recipient <addr> [--mode exact_in|exact_out] [--fee-bps n --fee-recipient addr]
 *     (the quote as JSON on stdout; on stderr, whether the amount is private and the private amounts nearby with their expected sets)
 *   hush send --keypair <file> --from <asset> [--to <asset>] --amount <base units> --recipient <addr> [--mode …] [--fee-bps n --fee-recipient addr]
 *   hush status <trackingId>
 *   hush watch <trackingId>
 *   hush webhook-test
 * `send` verifies the deposit transaction before signing it, sends it through SOLANA_RPC_URL and prints
 * each state until the order is final. Exit status: 0 done, 1 error, 2 usage, 3 the order ended other
 * than completed.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { createKeyPairSignerFromBytes, createSolanaRpc } from '@solana/kit';
import { createHushClient, type HushClient } from './client.ts';
import { HushApiError, HushTransportError } from './errors.ts';
import { describePrivacy, privateAmountsNearby } from './private-amounts.ts';
import { signAndSend } from './sign-and-send.ts';
import { statusDetail } from './status-detail.ts';
import type { QuoteRequest, StatusRecord } from './types.ts';
import { DepositVerificationError } from './verify-deposit.ts';

const USAGE = `usage: hush <tokens | quote | send | status <trk> | watch <trk> | webhook-test> [options]
  environment: HUSH_URL (default http://127.0.0.1:8787), HUSH_API_KEY, SOLANA_RPC_URL (send; default http://127.0.0.1:8899)
  quote/send:  --from <asset> [--to <asset>] --amount <base units> --recipient <addr> [--mode exact_in|exact_out]
               [--fee-bps <n> --fee-recipient <addr>]   quote: --sender <addr>   send: --keypair <solana keypair JSON file>
  status/watch/send: --interval <ms> poll interval (default 3000)`;

class UsageError extends Error {}

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
  help: { type: 'boolean', short: 'h' },
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values'];

/**
 * One line rewritten in place on a terminal (a spinner beside the latest state), plain lines otherwise
 * (logs, pipes, CI). Hand-written: a dozen lines, not worth a dependency.
 */
function progress(out: NodeJS.WriteStream) {
  const frames = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
  let text = '';
  let frame = 0;
  const timer = out.isTTY ? setInterval(() => out.write(`\r\x1b[2K${frames[frame++ % frames.length]} ${text}`), 100) : undefined;
  timer?.unref();
  return {
    line(s: string) {
      if (out.isTTY) out.write(`\r\x1b[2K${s}\n`);
      else out.write(`${s}\n`);
    },
    spin(s: string) {
      text = s;
    },
    stop() {
      if (timer) clearInterval(timer);
      if (out.isTTY) out.write('\r\x1b[2K');
    },
  };
}

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
  return {
    amount: need(values, 'amount'),
    sourceAssetId: from,
    destinationAssetId: values.to ?? from,
    senderAddress: sender,
    recipientAddress: need(values, 'recipient'),
    ...(mode ? { mode } : {}),
    ...(feeBps !== undefined ? { feeBps } : {}),
    ...(values['fee-recipient'] ? { feeRecipientAddress: values['fee-recipient'] } : {}),
  };
}

function describe(s: StatusRecord): string {
  const detail = statusDetail(s);
  return `${s.trackingId} ${s.status}${detail ? ` ${detail}` : ''}`;
}

async function watch(client: HushClient, trackingId: string, intervalMs: number): Promise<number> {
  const p = progress(process.stdout);
  try {
    const final = await client.waitForFinal(trackingId, {
      intervalMs,
      onStatus: (s) => {
        p.line(`${new Date().toISOString()} ${describe(s)}`);
        p.spin(`${s.status}…`);
      },
    });
    return final.status === 'completed' ? 0 : 3;
  } finally {
    p.stop();
  }
}

const json = (v: unknown) => console.log(JSON.stringify(v, null, 2));

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  const [command, ...rest] = positionals;
  if (values.help || !command) {
    console.log(USAGE);
    return values.help ? 0 : 2;
  }
  const apiKey = process.env.HUSH_API_KEY;
  if (!apiKey) throw new UsageError('HUSH_API_KEY is not set');
  const client = createHushClient({ baseUrl: process.env.HUSH_URL ?? 'http://127.0.0.1:8787', apiKey });
  const intervalMs = values.interval ? Number(values.interval) : 3000;
  const trackingId = () => rest[0] ?? (() => { throw new UsageError(`${command} needs a trackingId`); })();
  switch (command) {
    case 'tokens':
      return json(await client.tokens()), 0;
    case 'quote': {
      const request = quoteRequest(values, need(values, 'sender'));
      const quote = await client.quote(request);
      json(quote);
      for (const l of describePrivacy(request, quote, await privateAmountsNearby(client, request, quote))) console.error(l);
      return 0;
    }
    case 'status': {
      const r = await client.status(trackingId());
      return json(r.notModified ? null : r.order), 0;
    }
    case 'watch':
      return watch(client, trackingId(), intervalMs);
    case 'webhook-test':
      return json(await client.testWebhook()), 0;
    case 'send': {
      const signer = await createKeyPairSignerFromBytes(Uint8Array.from(JSON.parse(readFileSync(need(values, 'keypair'), 'utf8')) as number[]));
      const request = quoteRequest(values, signer.address);
      const quote = await client.quote(request);
      console.log(`quote ${quote.amountIn} ${quote.sourceAssetId} → ${quote.amountOut} ${quote.destinationAssetId} (fee ${quote.fee}, ~${quote.duration} s)`);
      const { amount: _a, sourceAssetId: _s, destinationAssetId: _d, mode: _m, ...terms } = request;
      const order = await client.order(quote, terms);
      console.log(`order ${order.trackingId}`);
      const sent = await signAndSend(client, order, signer, { rpc: createSolanaRpc(process.env.SOLANA_RPC_URL ?? 'http://127.0.0.1:8899') });
      console.log(`deposit verified, signed and sent: ${sent.signature}`);
      return watch(client, order.trackingId, intervalMs);
    }
    default:
      throw new UsageError(`unknown command ${command}`);
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e: unknown) => {
    if (e instanceof UsageError || (e as { code?: string }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
      console.error(`hush: ${(e as Error).message}\n${USAGE}`);
      process.exit(2);
    }
    const known = e instanceof HushApiError || e instanceof HushTransportError || e instanceof DepositVerificationError;
    console.error(`hush: ${known ? (e as Error).message : ((e as Error).stack ?? String(e))}${e instanceof HushApiError && e.requestId ? ` (request ${e.requestId})` : ''}`);
    process.exit(1);
  },
);
