import type { SimHush } from './sim-hush.ts';

/**
 * Closes a simulated Hush while its clock runs. A graceful close waits for the worker's tick in progress, and
 * that tick may be waiting on the clock (a turn in the RPC budget, a request's timeout): closed with the clock
 * still, it would wait for ever (`SimHush.close` alone hung a file's end about one run in three).
 */
export async function closeSim(h: SimHush | undefined): Promise<void> {
  if (h) await h.drive(h.close(), 600_000);
}
