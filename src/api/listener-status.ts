/** What /readyz and /metrics say of a listener (docs/spec.md §7: readiness reports the partner port's saturation). */
export interface ListenerStatus {
  open: number;
  limit: number;
  /** Connections over a cap being answered 429/503 right now. */
  answering: number;
  /** At or past PRESSURE_SHARE of the cap: connections without progress are being closed. */
  saturated: boolean;
  /** Requests with a bearer key answered 503 at the total cap since start, and the latest one's time (epoch ms). */
  keyedRefused: number;
  lastKeyedRefusedAt: number | null;
  /** The latest connection reset unanswered (the answering room full: near the descriptor limit), epoch ms. */
  lastResetAt: number | null;
}
