/** Late refund parts ('late:<sweep signature>:<n>') are retried this long, then given up. */
export const LATE_REFUND_RETRY_DAYS = 7;

/** The latest attempt of each late refund part created in the last `days` days. */
export const latestLateRefundAttempts = (days: number) => `SELECT DISTINCT ON (order_id, meta ->> 'part')
    id, order_id, meta ->> 'part' AS part, status, amount, asset_id, created_at FROM chain_txs
  WHERE kind = 'refund' AND meta ->> 'part' LIKE 'late:%' AND created_at > now() - interval '${days} days'
  ORDER BY order_id, meta ->> 'part', id DESC`;
