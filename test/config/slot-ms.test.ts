import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config/config.ts';
import { duePolicy, releasePolicy } from '../../src/config/privacy-settings.ts';
import { minGapMs } from '../../src/domain/settlement/payout-delay.ts';

describe('HUSH_SLOT_MS: the slot time Hush assumes, apart from the embedded chain’s', () => {
  it('against a real cluster, 400 ms whatever LOCALNET_SLOT_MS says (that setting drives the embedded chain only)', () => {
    const c = loadConfig({ SOLANA_RPC_URL: 'https://rpc.example', LOCALNET_SLOT_MS: '50' });
    assert.equal(c.localnetSlotMs, 50);
    assert.equal(c.slotMs, 400);
    assert.equal(releasePolicy(c).minGapMs, minGapMs(400));
    assert.equal(duePolicy(c).slotMs, 400);
  });

  it('beside the embedded chain, that chain’s slot time', () => {
    const c = loadConfig({ LOCALNET_SLOT_MS: '50' });
    assert.equal(c.slotMs, 50);
    assert.equal(loadConfig({}).slotMs, 400);
  });

  it('set, it wins; out of range, it is refused', () => {
    assert.equal(loadConfig({ SOLANA_RPC_URL: 'https://rpc.example', HUSH_SLOT_MS: '450' }).slotMs, 450);
    assert.equal(loadConfig({ LOCALNET_SLOT_MS: '50', HUSH_SLOT_MS: '100' }).slotMs, 100);
    assert.throws(() => loadConfig({ HUSH_SLOT_MS: '5' }), ConfigError);
  });
});
