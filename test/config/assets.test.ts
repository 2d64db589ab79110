/** The asset configuration's private amounts (the menu, docs/spec.md §9) and swap grid: checked at load, never quoted wrong. */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, it } from 'node:test';
import { loadAssets } from '../../src/config/assets.ts';

const shipped = JSON.parse(readFileSync(new URL('../../config/assets.json', import.meta.url), 'utf8')) as { assets: Record<string, unknown>[] };

const dirs: string[] = [];
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function withAsset(over: Record<string, unknown>): string {
  const dir = mkdtempSync(join(tmpdir(), 'hush-assets-'));
  dirs.push(dir);
  const file = join(dir, 'assets.json');
  writeFileSync(file, JSON.stringify({ assets: [{ ...shipped.assets[1], ...over }] }));
  return file;
}

it('by default every shipped asset offers one private amount per decade within its bounds (a short menu), and a swap grid', () => {
  for (const a of loadAssets().list) {
    assert.ok(a.denominations.length >= 3 && a.denominations.length <= 6, `${a.assetId}: ${a.denominations.length} private amounts`);
    for (const d of a.denominations) {
      assert.ok(d >= a.min && d <= a.max, `${a.assetId} ${d} within ${a.min}..${a.max}`);
      assert.match(d.toString(), /^10*$/, `${a.assetId} ${d} is a power of ten`);
    }
    assert.ok(a.swapGrid >= 1n);
  }
  assert.deepEqual(loadAssets().get('usdc')!.denominations, [1n, 10n, 100n, 1000n, 10_000n, 100_000n].map((d) => d * 1_000_000n), '1 / 10 / … / 100,000 USDC');
  assert.deepEqual(loadAssets().get('sol')!.denominations, [7n, 8n, 9n, 10n, 11n, 12n].map((e) => 10n ** e), '0.01 / 0.1 / … / 1,000 SOL');
});

it('HUSH_DENOMINATIONS=1-2-5 triples the menu; list takes the asset file\'s own, none when it has none', () => {
  const usdc125 = loadAssets(undefined, '1-2-5').get('usdc')!.denominations;
  assert.equal(usdc125.length, 16);
  for (const d of usdc125) assert.match(d.toString(), /^[125]0*$/);
  assert.deepEqual(loadAssets(withAsset({ denominations: ['2000000', '7000000'] }), 'list').list[0]!.denominations, [2_000_000n, 7_000_000n]);
  assert.deepEqual(loadAssets(withAsset({}), 'list').list[0]!.denominations, []);
  assert.deepEqual(loadAssets(withAsset({ denominations: ['2000000', '7000000'] }), 'decade').list[0]!.denominations.slice(0, 2), [1_000_000n, 10_000_000n], 'a list is used only under list');
});

it('refuses a listed menu out of order or out of bounds, and a zero grid; no grid by default', () => {
  for (const bad of [{ denominations: ['2000000', '1000000'] }, { denominations: ['1'] }, { denominations: ['1000000', '1000000'] }, { swapGrid: '0' }]) {
    assert.throws(() => loadAssets(withAsset(bad)), /denominations|swapGrid/, JSON.stringify(bad));
  }
  const bare = loadAssets(withAsset({ swapGrid: undefined })).list[0]!;
  assert.equal(bare.swapGrid, 1n);
});

it('refuses a mint or token program that is not a Solana address, at load rather than at the first order', () => {
  for (const bad of [{ mint: 'not-an-address' }, { mint: 'EPjFWdd5AufqSSqeM2qN' }, { tokenProgram: '0x1234' }]) {
    assert.throws(() => loadAssets(withAsset(bad)), /is not a Solana address/, JSON.stringify(bad));
  }
  assert.equal(loadAssets(withAsset({})).list[0]!.mint, shipped.assets[1]!.mint);
});
