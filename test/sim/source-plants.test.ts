/**
 * Bugs planted in Hush's source (sim/source-plants.ts) are caught by the simulator alone, as `npm run sim` runs it:
 * a process of its own per plant, since the planted file must be loaded rewritten before anything imports it.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { SOURCE_PLANTS } from '../../sim/source-plants.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));

function sim(args: string[], preload = true): Promise<{ code: number; out: string }> {
  const hook = preload ? ['--import', './sim/source-plant-hook.ts'] : [];
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', ...hook, 'sim/cli.ts', ...args], { cwd: root, maxBuffer: 16 << 20 }, (err, stdout, stderr) => {
      resolve({ code: err ? Number((err as { code?: unknown }).code ?? 1) : 0, out: `${stdout}${stderr}` });
    });
  });
}

describe('bugs planted in the source', () => {
  for (const [key, plant] of Object.entries(SOURCE_PLANTS)) {
    it(`catches ${plant.name} within 5 half-minute seeds`, async () => {
      // One process doing both, at half the CPU of the default four: a plant breaks an invariant, not a race
      // (test/sim/sim-seeds.test.ts runs the four processes).
      const r = await sim(['--seeds', '5', '--minutes', '0.5', '--faults', plant.faults, '--mischief', '1', '--processes', 'all', '--no-shrink', '--first-failure', '--plant', key]);
      assert.equal(r.code, 1, `the planted bug ${key} survived 5 seeds:\n${r.out}`);
      const caught = /FAILED \((.+?)\)/.exec(r.out)?.[1];
      assert.ok(caught !== undefined && plant.caughtBy.includes(caught), `the planted bug ${key} was caught by another check than those it breaks (${caught}):\n${r.out}`);
    });
  }

  it('refuses a source plant in a process that did not load it rewritten, rather than run the code unplanted', async () => {
    const r = await sim(['--seeds', '1', '--minutes', '0.1', '--plant', 'wall-clock-outbox'], false);
    assert.equal(r.code, 2, r.out);
    assert.match(r.out, /rewrites Hush's source as it loads/);
  });
});
