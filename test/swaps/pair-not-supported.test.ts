import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { generateKeyPairSigner } from '@solana/kit';
import { startTestHush, type TestHush } from '../support/hush-server.ts';

// An asset marked not swappable may be sent but never swapped to or from.
describe('PAIR_NOT_SUPPORTED', () => {
  let hush: TestHush;
  before(async () => {
    const assets = JSON.parse(readFileSync(new URL('../../config/assets.json', import.meta.url), 'utf8')) as { assets: { assetId: string; swappable: boolean }[] };
    for (const a of assets.assets) if (a.assetId === 'usdt') a.swappable = false;
    const file = join(mkdtempSync(join(tmpdir(), 'hush-assets-')), 'assets.json');
    writeFileSync(file, JSON.stringify(assets));
    hush = await startTestHush({ env: { HUSH_ASSETS_FILE: file } });
  });
  after(async () => hush?.close());

  test('a pair with a non-swappable side is refused, both directions; sends and other swaps still quote', async () => {
    const acct = await hush.createAccount();
    const sender = (await generateKeyPairSigner()).address;
    const recipient = (await generateKeyPairSigner()).address;
    const quote = (sourceAssetId: string, destinationAssetId: string, amount: string) =>
      acct.client.quote({ amount, sourceAssetId, destinationAssetId, senderAddress: sender, recipientAddress: recipient });
    for (const [src, dst] of [['sol', 'usdt'], ['usdt', 'usdc']] as const) {
      const r = await quote(src, dst, src === 'sol' ? '1000000000' : '10000000');
      assert.equal(r.status, 400);
      assert.equal(r.body.error.code, 'PAIR_NOT_SUPPORTED');
      assert.deepEqual(r.body.error.details, { sourceAssetId: src, destinationAssetId: dst });
    }
    assert.equal((await quote('usdt', 'usdt', '10000000')).status, 200);
    assert.equal((await quote('sol', 'usdc', '1000000000')).status, 200);
  });
});
