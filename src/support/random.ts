import { randomBytes, randomInt, randomUUID } from 'node:crypto';
import { seeded } from './seeded-random.ts';

/**
 * The randomness port, beside the clock port (clock.ts): every draw Hush makes — a payout's delay, a release's
 * order, the pool a payout or sweep uses, a loop's jitter, a tracking id, a key's secret — comes from a `Random`
 * handed down from the runtime. Production wires `systemRandom` (node:crypto); the simulator wires a seeded one
 * so that one seed replays a whole run (docs/architecture.md, "Simulation"). Nothing falls back to Math.random
 * or node:crypto's generators outside this file (test/runtime/clock-port.test.ts).
 */
export interface Random {
  /** A uniform float in [0, 1). */
  float(): number;
  /** A uniform integer in [0, n), n ≥ 1. */
  int(n: number): number;
  /** `n` random bytes. */
  bytes(n: number): Buffer;
  /** A random RFC 4122 version 4 UUID. */
  uuid(): string;
}

const FLOAT_STEPS = 2 ** 48 - 1;

/** The operating system's cryptographic randomness: the one production wires (src/runtime), and no part's default. */
export const systemRandom: Random = {
  // randomInt's range is at most 2^48 − 1 wide: randomInt(2 ** 48) throws.
  float: () => randomInt(FLOAT_STEPS) / FLOAT_STEPS,
  int: (n) => randomInt(n),
  bytes: (n) => randomBytes(n),
  uuid: () => randomUUID(),
};

/**
 * A seeded generator with the port's shape, for the simulator and property tests only: it replays, and so it
 * must never make a production key or id (its secrets are as guessable as its seed).
 */
export function seededRandom(seed: number): Random {
  const next = seeded(seed);
  const int = (n: number) => Math.floor(next() * n);
  const bytes = (n: number) => {
    const b = Buffer.allocUnsafe(n);
    for (let i = 0; i < n; i++) b[i] = int(256);
    return b;
  };
  return {
    float: next,
    int,
    bytes,
    uuid() {
      const b = bytes(16);
      b[6] = (b[6]! & 0x0f) | 0x40;
      b[8] = (b[8]! & 0x3f) | 0x80;
      const h = b.toString('hex');
      return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
    },
  };
}
