/**
 * Hush's settings in a simulated run: the defaults an operator runs, on the world's chain, store and risk provider,
 * with the deadlines that bound how long a run must drain shortened, and `extra` (a test's HUSH_* choices) over them.
 */
export function simEnv(
  w: { secret: (name: string) => string; dataDir: string; chainUrl: string; screeningUrl: string; slotMs: number },
  extra: Record<string, string> = {},
): NodeJS.ProcessEnv {
  return {
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: w.dataDir,
    SOLANA_RPC_URL: w.chainUrl,
    // No sockets in a simulated run: the worker polls the chain over HTTP, as with a provider without PubSub.
    SOLANA_WS_URL: 'none',
    HUSH_SLOT_MS: String(w.slotMs),
    TREASURY_SEED: w.secret('treasury'),
    HUSH_QUOTE_KEY: w.secret('quote-key'),
    HUSH_RECEIPT_KEY: w.secret('receipt-key'),
    HUSH_ADMIN_TOKEN: w.secret('admin-token'),
    HUSH_SCREENING_URL: w.screeningUrl,
    HUSH_DRAIN_GRACE_MS: '0',
    // Partners of the simulation send far more than a real one's default share.
    HUSH_RATE_LIMITS: 'quote=1000,order=1000,status=1000,tokens=1000,account=100',
    // The least a deployment may keep: a simulated run's rate is refilled in time, and a start derives less.
    HUSH_DEPOSIT_IDENTITY_TARGET: '64',
    // Operators' settings that bound how long a run must drain: the ceiling on any member's hold (default
    // 6 h: a partner that asks for a set its class cannot bring waits this long) and the order deadline
    // (default 30 min: an order never funded ends then).
    HUSH_PRIVACY_MAX_WAIT_S: '900',
    HUSH_ORDER_TTL_S: '600',
    // Partners' fees are paid out within a run (default hourly), screened as every flow.
    HUSH_PARTNER_PAYOUT_INTERVAL_S: '60',
    ...extra,
  };
}
