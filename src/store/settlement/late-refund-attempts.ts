/** Late refund parts (meta.lateOf and meta.part) are retried this long, then given up. */
export const LATE_REFUND_RETRY_DAYS = 7;

/** The latest attempt of each late refund part created in the last `days` days. */
export const latestLateRefundAttempts = (days: number) => `SELECT DISTINCT ON (order_id, meta ->> 'lateOf', meta ->> 'part')
    id, order_id, meta ->> 'lateOf' AS late_of, (meta ->> 'part')::int AS part, status, amount, asset_id, created_at FROM chain_txs
  WHERE kind = 'refund' AND meta ? 'lateOf' AND created_at > now() - interval '${days} days'
  ORDER BY order_id, meta ->> 'lateOf', meta ->> 'part', id DESC`;
