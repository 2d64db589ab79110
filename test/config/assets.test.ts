/** The asset configuration's standard amounts and swap grid (SPEC §9): checked at load, never quoted wrong. */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { it } from 'node:test';
import { loadAssets } from '../../src/config/assets.ts';

const shipped = JSON.parse(readFileSync(new URL('../../config/assets.json', import.meta.url), 'utf8')) as { assets: Record<string, unknown>[] };

function withAsset(over: Record<string, unknown>): string {
  const file = join(mkdtempSync(join(tmpdir(), 'hush-assets-')), 'assets.json');
  writeFileSync(file, JSON.stringify({ assets: [{ ...shipped.assets[1], ...over }] }));
  return file;
}

it('every shipped asset has a 1-2-5 series of standard amounts within its bounds, and a swap grid', () => {
  for (const a of loadAssets().list) {
    assert.ok(a.denominations.length >= 10, `${a.assetId}: ${a.denominations.length} denominations`);
    for (const d of a.denominations) {
      assert.ok(d >= a.min && d <= a.max, `${a.assetId} ${d} within ${a.min}..${a.max}`);
      assert.match(d.toString(), /^[125]0*$/, `${a.assetId} ${d} is 1, 2 or 5 times a power of ten`);
    }
    assert.ok(a.swapGrid >= 1n);
  }
});

it('refuses denominations out of order or out of bounds, and a zero grid; defaults to none and no grid', () => {
  for (const bad of [{ denominations: ['2000000', '1000000'] }, { denominations: ['1'] }, { denominations: ['1000000', '1000000'] }, { swapGrid: '0' }]) {
    assert.throws(() => loadAssets(withAsset(bad)), /denominations|swapGrid/, JSON.stringify(bad));
  }
  const bare = loadAssets(withAsset({ denominations: undefined, swapGrid: undefined })).list[0]!;
  assert.deepEqual(bare.denominations, []);
  assert.equal(bare.swapGrid, 1n);
});
