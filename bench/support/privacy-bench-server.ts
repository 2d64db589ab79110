/**
 * The Hush under measurement for bench:privacy: role `all` with its embedded local chain, configured from
 * the environment the bench sets (slot time, delay window, sweep interval). Creates three bench partners
 * (each with a fee recipient, rate limits high enough for the run) and a separate adversary account, then prints
 * one JSON line: URLs, keys, Hush's public accounts, and the release policy as Hush's own configuration
 * states it — the adversary reads the policy from here, never from a constant of its own.
 */
import { generateKeyPairSigner } from '@solana/kit';
import { loadConfig } from '../../src/config/config.ts';
import { startHush } from '../../src/runtime/start-hush.ts';
import { minGapMs } from '../../src/domain/settlement/payout-delay.ts';
import { generateApiKey } from '../../src/services/api-keys.ts';
import { addFeeRecipient, insertAccount, insertApiKey, updateAccount } from '../../src/store/accounts-store.ts';
import { systemClock } from '../../src/support/clock.ts';
import { systemRandom } from '../../src/support/random.ts';

const config = loadConfig({ ...process.env, HUSH_ROLE: 'all', PORT: '0', LOCALNET_PORT: '0' });
// Thousands of orders: their transition records would bury the bench's own lines (ALERTs and errors stay).
const hush = await startHush(config, { clock: systemClock, random: systemRandom, log: (m) => void (m.startsWith('order transition') || process.stderr.write(`hush: ${m}\n`)) });
const limits = { quote: 1_000_000, order: 1_000_000, status: 1_000_000, tokens: 1_000_000 };

async function account(name: string): Promise<{ id: string; apiKey: string }> {
  const id = `acc_${name}${Date.now()}`;
  await insertAccount(hush.db, { id, name: id, feeCapBps: 100 });
  await updateAccount(hush.db, id, { rateLimits: limits });
  const key = generateApiKey(systemRandom);
  await insertApiKey(hush.db, { keyId: key.keyId, accountId: id, secretHash: key.secretHash, expiresAt: null });
  return { id, apiKey: key.apiKey };
}

/** A partner account with a fee recipient of its own. */
async function partnerAccount(name: string): Promise<{ apiKey: string; feeRecipient: string }> {
  const a = await account(name);
  const feeRecipient = (await generateKeyPairSigner()).address;
  await addFeeRecipient(hush.db, a.id, feeRecipient);
  return { apiKey: a.apiKey, feeRecipient };
}

// Three partners: most rows use the first; a row may spread its orders over them (the cold crowd of partners).
const partners = [await partnerAccount('partner'), await partnerAccount('partnerb'), await partnerAccount('partnerc')];
const adversary = await account('adversary');

console.log(
  JSON.stringify({
    hushUrl: hush.url,
    rpcUrl: hush.localnet?.url ?? config.solanaRpcUrl,
    partnerKey: partners[0]!.apiKey,
    adversaryKey: adversary.apiKey,
    feeRecipient: partners[0]!.feeRecipient,
    partners,
    feePayer: hush.treasury.feePayer.address,
    pools: [...new Set(hush.treasury.allPools().map((p) => p.address))],
    slotMs: config.localnetSlotMs,
    // The published rules, not the randomness: the target, the budget, the window, the
    // two-slot gap and the ceiling. A release comes at most the budget less the window's max after its
    // oldest deposit that asked for nothing, the ceiling less it after one that asked to wait.
    policy: {
      delayWindowS: config.payoutDelayS,
      classRelease: {
        targetSet: config.privacyK ?? config.privacyTargetSet,
        maxDelayS: config.privacyMaxDelayS - config.payoutDelayS.max,
        minGapS: minGapMs(config.localnetSlotMs) / 1000,
        ceilingS: config.privacyMaxWaitS - config.payoutDelayS.max,
      },
    },
  }),
);

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  await hush.close();
  process.exit(0);
};
process.on('SIGTERM', stop);
// The bench holds the other end of stdin: it is gone when that closes (driver.ts startServer).
process.stdin.on('end', stop).on('error', stop).resume();
