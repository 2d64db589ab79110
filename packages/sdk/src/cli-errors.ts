import { isSolanaError } from '@solana/kit';
import { HushApiError, HushTransportError } from './errors.ts';
import { InsufficientFundsError } from './sender-funds.ts';
import type { ErrorCode } from './types.ts';
import { DepositVerificationError } from './verify-deposit.ts';

/** A mistake in the command line (exit 2). */
export class UsageError extends Error {}

/** An error already phrased for the person at the terminal: its cause and its fix. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly fix: string,
  ) {
    super(message);
  }
}

export interface CliContext {
  hushUrl: string;
  rpcUrl: string;
}

/** What to do about each docs/spec.md §6 code, from where a `hush` user sits. */
const FIXES: Partial<Record<ErrorCode, string>> = {
  UNAUTHORIZED: 'set HUSH_API_KEY to a key of this Hush (the operator issues one; `npm start` prints the demo key)',
  ACCOUNT_SUSPENDED: 'ask the operator to reactivate the account',
  INVALID_REQUEST: 'check the options (hush --help); --amount is base units, digits only (10 USDC = 10000000)',
  INVALID_ADDRESS: 'pass base58 Solana addresses to --recipient, --sender and --fee-recipient',
  UNSUPPORTED_ASSET: 'run `hush tokens` for the asset ids this Hush serves',
  UNSUPPORTED_MODE: 'use --mode exact_in or exact_out as `hush tokens` lists for the asset',
  PAIR_NOT_SUPPORTED: 'run `hush tokens` for the assets that swap (--to another asset needs both swappable)',
  AMOUNT_TOO_LOW: "raise --amount to at least the asset's min (`hush tokens`; base units)",
  AMOUNT_TOO_HIGH: "lower --amount to at most the asset's max (`hush tokens`; base units)",
  FEE_BPS_TOO_HIGH: "lower --fee-bps to the account's fee cap",
  FEE_RECIPIENT_REQUIRED: 'pass --fee-recipient with --fee-bps',
  FEE_RECIPIENT_NOT_REGISTERED: 'pass a --fee-recipient the operator registered for the account',
  ADDRESS_BLOCKED: 'this Hush cannot serve that address (its operator screens addresses); the field is named in the error',
  NOT_FOUND: "check the tracking id (trk_…): it must be an order of this key's account",
  QUOTE_NOT_FOUND: 'run the command again: it takes a fresh quote',
  QUOTE_EXPIRED: 'run the command again: it takes a fresh quote',
  QUOTE_ALREADY_USED: 'run the command again: it takes a fresh quote',
  QUOTE_MISMATCH: 'run the command again with the same options: it takes a fresh quote',
  ORDER_EXPIRED: 'start a new `hush send`',
  RATE_LIMITED: 'wait and run it again (fewer calls per second)',
  TOO_MANY_OPEN_ORDERS: 'finish or let expire the open orders, then run it again',
  CHAIN_UNAVAILABLE: 'try again in a minute; Hush cannot reach its chain now',
  SERVICE_UNAVAILABLE: 'try again in a minute',
  INSUFFICIENT_LIQUIDITY: 'try a smaller --amount or again later',
  INTERNAL_ERROR: 'try again; if it persists give the operator the request id',
  WEBHOOK_URL_REFUSED: 'give an https URL at a public address (not private, loopback or metadata): hush webhook set https://…',
  LAST_ACTIVE_KEY: 'create another key first (hush keys create), deploy it, then revoke this one',
  TOO_MANY_KEYS: 'revoke a key no longer used first (hush account lists them; hush keys revoke <keyId>)',
};

const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();

/** The cause of a network failure (ECONNREFUSED, ENOTFOUND, …; else the innermost message), from an undici `fetch failed` chain. */
function networkCause(e: unknown): string | undefined {
  let fetchFailed = false;
  let innermost: string | undefined;
  for (let c: unknown = e, depth = 0; c && depth < 6; c = (c as { cause?: unknown }).cause, depth++) {
    const code = (c as { code?: unknown }).code;
    if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return code;
    if (c instanceof TypeError && /fetch failed/.test(c.message)) fetchFailed = true;
    if (c instanceof Error) innermost = c.message;
  }
  return fetchFailed ? innermost : undefined;
}

export interface Explained {
  cause: string;
  fix: string;
  exit: number;
}

/** The one line `hush` prints for an error: the cause, then the fix. */
export const errorLine = (x: Explained) => `hush: ${x.cause} — ${x.fix}`;

/** Any error as its cause and fix (one line each, never a stack) and the exit status. */
export function explainError(e: unknown, ctx: CliContext): Explained {
  const line = (cause: string, fix: string, exit = 1): Explained => ({ cause: oneLine(cause), fix: oneLine(fix), exit });
  const code = (e as { code?: unknown } | null)?.code;
  if (e instanceof UsageError || (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS'))) return line((e as Error).message, 'see hush --help', 2);
  if (e instanceof CliError) return line(e.message, e.fix);
  if (e instanceof InsufficientFundsError) return line(`${e.message}; nothing was created`, `fund ${e.sender} (SOL for fees and rent, and the tokens to send), then run it again`);
  if (e instanceof HushApiError) {
    const wait = e.retryAfterS !== undefined ? ` (Hush asks to wait ${e.retryAfterS} s)` : '';
    const request = e.requestId ? ` [request ${e.requestId}]` : '';
    // NOT_FOUND is also a webhook command on an account without a webhook, or a key id: no tracking id was involved there.
    const fix = e.code !== 'NOT_FOUND' ? FIXES[e.code] : /webhook/i.test(e.message) ? 'set the webhook first: hush webhook set https://…' : /API key/.test(e.message) ? "run `hush account` for this account's key ids" : FIXES[e.code];
    return line(`${e.code}: ${e.message}${wait}${request}`, fix ?? 'see the message; quote the request id to the operator');
  }
  if (e instanceof HushTransportError) {
    if (e.status !== undefined) return line(`${ctx.hushUrl} answered HTTP ${e.status}, not as Hush does`, 'check HUSH_URL points at Hush (e.g. http://127.0.0.1:8787)');
    return line(`cannot reach ${ctx.hushUrl} (${networkCause(e) ?? e.message})`, 'start it with npm start or set HUSH_URL');
  }
  if (e instanceof DepositVerificationError) return line(`${e.message}; nothing was signed`, 'do not sign this transaction anywhere; report it to the operator of this Hush');
  if (isSolanaError(e)) {
    const net = networkCause(e);
    if (net) return line(`cannot reach the Solana RPC at ${ctx.rpcUrl} (${net})`, 'start the local chain (npm start runs one) or set SOLANA_RPC_URL');
    return line(`the Solana RPC at ${ctx.rpcUrl} refused: ${e.message}`, 'check SOLANA_RPC_URL and the sender’s balance, then run it again');
  }
  const net = networkCause(e);
  // Outside Hush's client only the Solana RPC is fetched.
  if (net) return line(`cannot reach the Solana RPC at ${ctx.rpcUrl} (${net})`, 'start the local chain (npm start runs one) or set SOLANA_RPC_URL');
  const err = e instanceof Error ? e : new Error(String(e));
  return line(`unexpected ${err.name}: ${err.message}`, 'run it again with HUSH_DEBUG=1 for the stack, and report it');
}
