import type { Clock } from '../src/support/clock.ts';
import type { FaultPlan } from './faults.ts';

/**
 * The address-risk provider of the simulation (docs/spec.md §12's HTTP shape): it blocks the addresses the
 * traffic marked sanctioned, and is down when the fault plan says so (Hush then holds, its default).
 */
export class ScreeningDesk {
  private readonly blocked = new Set<string>();
  /** Questions asked, and those answered with an outage. */
  asked = 0;
  refused = 0;

  constructor(
    private readonly faults: FaultPlan,
    private readonly clock: Clock,
  ) {}

  block(address: string): void {
    this.blocked.add(address);
  }

  isBlocked(address: string): boolean {
    return this.blocked.has(address);
  }

  /** `init` carries the caller's signal: a stand-in that answers late (test/support/sim-screening.ts) honours it. */
  async fetch(url: string, _init?: RequestInit): Promise<Response> {
    this.asked++;
    if (this.faults.providerDown(this.clock.now())) {
      this.refused++;
      return new Response('{"error":"unavailable"}', { status: 503 });
    }
    const address = decodeURIComponent(url.slice(url.lastIndexOf('/') + 1));
    const blocked = this.blocked.has(address);
    return Response.json({ address, risk: blocked ? 'severe' : 'none', blocked, ...(blocked ? { reason: 'sanctioned (simulated)' } : {}) });
  }
}
