/**
 * Class release with the partner's choice per order (docs/spec.md §9): members of one class that asked
 * for a set, bounded their wait, or chose nothing. Run pass by pass, as the worker does.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { burstGapMs, decideRelease, memberHoldMs, mergeHorizonMs, type ReleasePolicy, type WaitingPayout } from '../../src/domain/class-release.ts';
import { memberBudgetMs, type PrivacyChoice } from '../../src/domain/privacy-choice.ts';

const policy: ReleasePolicy = { targetSet: 6, fixedK: false, budgetMs: 60_000, ceilingMs: 240_000, spreadFromMs: 1_000, spreadMs: 2_000, minGapMs: 800, passEveryMs: 1_000 };
const NOW = 1_000_000;

const choiceArb: fc.Arbitrary<PrivacyChoice | undefined> = fc.oneof(
  fc.constant(undefined),
  fc.integer({ min: 1, max: 12 }).map((n) => ({ minAnonymitySet: n })),
  fc.integer({ min: 0, max: 300 }).map((s) => ({ maxDelaySeconds: s })),
);
/** Arrivals over four minutes in one or two classes, each member with its own choice. */
const arrivalsArb = fc.array(fc.record({ at: fc.integer({ min: 0, max: 240_000 }), cls: fc.integer({ min: 0, max: 1 }), choice: choiceArb }), { minLength: 1, maxLength: 30 });
const rateArb = fc.oneof(fc.constant(undefined), fc.constant(0), fc.double({ min: 1e-6, max: 1e-2, noNaN: true }));

interface Sent { at: number; releasedWith: number; decidedAt: number }

/** Every pass from the first arrival until everyone has gone; what each member was sent with. */
function run(arrivals: { at: number; cls: number; choice: PrivacyChoice | undefined }[], rate: number | undefined, p: ReleasePolicy): { waiting: WaitingPayout[]; sent: Map<string, Sent> } {
  const all: WaitingPayout[] = [...arrivals]
    .sort((a, b) => a.at - b.at)
    .map((a, i) => ({ id: `p${String(i).padStart(2, '0')}`, classKey: `c${a.cls}`, confirmedAt: a.at, ...(a.choice ? { choice: a.choice } : {}) }));
  const sent = new Map<string, Sent>();
  const lastBurst = new Map<string, number>();
  let next = 0;
  const waiting: WaitingPayout[] = [];
  for (let now = 0; now <= 240_000 + p.ceilingMs; now += p.passEveryMs) {
    while (next < all.length && all[next]!.confirmedAt <= now) waiting.push(all[next++]!);
    const out = decideRelease(waiting, now, p, () => rate, Math.random, (key) => lastBurst.get(key));
    for (const r of out.release) {
      sent.set(r.id, { at: r.at, releasedWith: r.releasedWith, decidedAt: now });
      const key = all.find((w) => w.id === r.id)!.classKey;
      lastBurst.set(key, Math.max(lastBurst.get(key) ?? 0, r.at));
    }
    for (let i = waiting.length - 1; i >= 0; i--) if (sent.has(waiting[i]!.id)) waiting.splice(i, 1);
  }
  return { waiting: all, sent };
}

describe('decideRelease with mixed choices', () => {
  it('never past any member\'s bound: each is sent within its own budget (the ceiling for a set, its wait for a bound)', () => {
    fc.assert(
      fc.property(arrivalsArb, rateArb, (arrivals, rate) => {
        const { waiting, sent } = run(arrivals, rate, policy);
        assert.equal(sent.size, waiting.length, 'everyone released');
        for (const w of waiting) {
          const s = sent.get(w.id)!;
          // A member is seen by the pass after its deposit: a bound shorter than two slots and a pass cannot be met.
          const bound = Math.max(memberBudgetMs(w.choice, policy) - policy.passEveryMs, policy.minGapMs + policy.passEveryMs);
          assert.ok(s.at - w.confirmedAt <= bound + 1e-6, `${w.id} (${JSON.stringify(w.choice)}) sent ${s.at - w.confirmedAt} ms after its deposit, bound ${bound}`);
          assert.ok(s.at - w.confirmedAt >= policy.minGapMs, 'never the deposit\'s slot or the next');
        }
      }),
      { numRuns: 200 },
    );
  });

  it('never below a member\'s minimum while its ceiling allows: a smaller release only once its own hold has (nearly) run out', () => {
    fc.assert(
      fc.property(arrivalsArb, rateArb, (arrivals, rate) => {
        const { waiting, sent } = run(arrivals, rate, policy);
        for (const w of waiting) {
          if (!w.choice || !('minAnonymitySet' in w.choice)) continue;
          const s = sent.get(w.id)!;
          if (s.releasedWith < w.choice.minAnonymitySet) {
            // Nearly: within the merge horizon it joins the burst before rather than go alone right after it.
            assert.ok(s.decidedAt >= w.confirmedAt + memberHoldMs(w.choice, policy) - mergeHorizonMs(policy), `${w.id} wanted ${w.choice.minAnonymitySet}, went with ${s.releasedWith} ${w.confirmedAt + memberHoldMs(w.choice, policy) - s.decidedAt} ms early`);
          }
        }
      }),
      { numRuns: 200 },
    );
  });

  it('releases of one class never overlap on the chain: each burst starts a gap after the last payout of the one before', () => {
    fc.assert(
      fc.property(arrivalsArb, fc.double({ min: 1e-4, max: 1e-2, noNaN: true }), (arrivals, rate) => {
        const { waiting, sent } = run(arrivals, rate, { ...policy, ceilingMs: 600_000 });
        for (const cls of ['c0', 'c1']) {
          const bursts = new Map<number, number[]>();
          for (const w of waiting.filter((x) => x.classKey === cls)) {
            const s = sent.get(w.id)!;
            bursts.set(s.decidedAt, [...(bursts.get(s.decidedAt) ?? []), s.at]);
          }
          const spans = [...bursts.values()].map((ats) => [Math.min(...ats), Math.max(...ats)] as const).sort((a, b) => a[0] - b[0]);
          for (let i = 1; i < spans.length; i++) {
            // A member whose bound is nearer than the gap goes within its bound all the same (the first property): only then may bursts touch.
            const gap = spans[i]![0] - spans[i - 1]![1];
            if (gap < burstGapMs(policy)) {
              const tight = waiting.some((w) => w.classKey === cls && memberBudgetMs(w.choice, policy) < policy.budgetMs);
              assert.ok(tight, `${cls}: bursts ${gap} ms apart`);
            }
          }
        }
      }),
      { numRuns: 150 },
    );
  });

  it('no traffic and nobody asked to wait: each goes at once, unspread; a patient member holds its class', () => {
    const alone = decideRelease([{ id: 'a', classKey: 'c', confirmedAt: NOW }], NOW, policy, () => undefined, () => 0.5);
    assert.equal(alone.release.length, 1);
    assert.ok(alone.release[0]!.at - NOW <= policy.minGapMs, `sent ${alone.release[0]!.at - NOW} ms after`);
    const withPatient = decideRelease(
      [{ id: 'a', classKey: 'c', confirmedAt: NOW }, { id: 'b', classKey: 'c', confirmedAt: NOW, choice: { minAnonymitySet: 3 } }],
      NOW, policy, () => undefined, () => 0.5,
    );
    assert.equal(withPatient.release.length, 0, 'held for the member that asked');
    const three = decideRelease(
      ['a', 'b', 'c'].map((id) => ({ id, classKey: 'c', confirmedAt: NOW, choice: { minAnonymitySet: 3 } })),
      NOW, policy, () => undefined, () => 0.5,
    );
    assert.deepEqual(three.release.map((r) => r.releasedWith), [3, 3, 3], 'three that asked for three go together, below the operator\'s target');
  });
});
