/**
 * docs/spec.md §12, "A resolution covers what it resolved", on a simulated Hush with an OFAC SDN CSV list and a
 * plain list of the operator's own: a release covers the listing it resolved for as long as that listing stands —
 * across a touch of the file, the next daily download with other entries added, and a restart — and the order is
 * paid; the same address named by another list meanwhile is a new finding, and the order is held again.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Address } from '@solana/kit';
import { listScreeningLog } from '../../src/store/screening-log-store.ts';
import { expectOk } from '../support/api-responses.ts';
import { closeSim } from '../support/sim-close.ts';
import { startSimHush, type SimAccount, type SimHush, type SimWallet } from '../support/sim-hush.ts';
import { place, resolveOrder, usdcOf } from '../support/sim-screening.ts';

const USDC = (n: number) => BigInt(n) * 1_000_000n;
/** Off the menu: paid at the floor once released (docs/spec.md §9); these tests are about screening. */
const AMOUNT = USDC(12);

/** An SDN CSV record naming a SOL address in its remarks, as OFAC publishes them. */
const sdnRow = (ent: number, name: string, address: string) =>
  `${ent},"${name}","individual","-0-","-0-","-0-","-0-","-0-","-0-","Digital Currency Address - SOL ${address}; alt. Digital Currency Address - XBT 1BQAPyku1ZibWGAgd8QePpW1vAKHowqLez;"`;

describe('a release sticks to the listing it resolved', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hush-release-lists-'));
  const sdn = join(dir, 'sdn.csv');
  const own = join(dir, 'own.txt');
  let h: SimHush;
  let acct: SimAccount;
  let bump = 0;

  /** Writes a list file (a later mtime each time, so it is read again) and runs the clock until Hush has read it. */
  async function rewrite(path: string, text: string): Promise<void> {
    const before = readAt(await readyz(), path);
    writeFileSync(path, text);
    bump += 10_000;
    utimesSync(path, new Date(), new Date(Date.now() + bump));
    await h.until(`${path} read again`, async () => readAt(await readyz(), path) !== before, 10_000, 100);
  }
  const readyz = async () => (expectOk(await h.ops.get('/readyz')) as { screening: string }).screening;
  /** When /readyz says a list was last read. */
  const readAt = (summary: string, path: string) => new RegExp(`${path.split('/').pop()!.replace('.', '\\.')}@\\S+ \\(\\d+\\) read (\\S+)`).exec(summary)?.[1] ?? null;
  const versionOf = (summary: string) => /sdn\.csv@(\S+)/.exec(summary)![1];

  before(async () => {
    writeFileSync(sdn, '');
    writeFileSync(own, '# the compliance team\'s own list\n');
    h = await startSimHush({
      seed: 23,
      env: { HUSH_SCREENING_LISTS: `${sdn},${own}`, HUSH_SCREENING_RELOAD_MS: '1000' },
    });
    acct = await h.createAccount();
  });
  after(async () => {
    await closeSim(h);
    rmSync(dir, { recursive: true, force: true });
  });

  const funded = () => h.wallet({ sol: 100_000_000n, usdc: USDC(50) });
  const order = (sender: SimWallet, recipient: Address) =>
    place(h, acct.client, { amount: AMOUNT.toString(), sourceAssetId: 'usdc', destinationAssetId: 'usdc', senderAddress: sender.address as Address, recipientAddress: recipient });
  const decisions = async (trackingId: string) =>
    (await listScreeningLog(h.db, { trackingId })).reverse().map((e) => `${e.stage}:${e.result}:${e.list ?? '-'}:${e.reason ?? '-'}`);

  test('released, then the list touched, downloaded again with new entries, and Hush restarted: the order is paid', async () => {
    const [sender, other] = [await funded(), await funded()];
    const recipient = h.address();
    const placed = await order(sender, recipient);
    // Listed between its quote and its deposit (a quote of a listed sender is refused).
    await rewrite(sdn, `${sdnRow(36216, 'SOME ENTITY', sender.address)}\n`);
    await h.deposit(placed.order, sender);
    await h.waitForOrder(acct.client, placed.trackingId, ['held'], 30_000);
    const heldWith = versionOf(await readyz());

    // The same bytes touched; then the next day's file: the entity's record edited, another entry added before it.
    await rewrite(sdn, `${sdnRow(36216, 'SOME ENTITY', sender.address)}\n`);
    assert.equal(versionOf(await readyz()), heldWith, 'a re-read of the same listings is the same version');
    await rewrite(sdn, `${sdnRow(36100, 'ANOTHER ENTITY', other.address)}\n${sdnRow(36216, 'SOME ENTITY (A.K.A. SOME OTHER)', sender.address)}\n`);
    assert.notEqual(versionOf(await readyz()), heldWith, 'the list holds something new');
    await h.crashAndRestart();

    expectOk(await resolveOrder(h, placed.trackingId, 'release', 'false positive: a different person of the same name'));
    // The release covers entry 36216 of sdn.csv, read again three times since it was held: the payout's screening passes.
    await rewrite(sdn, `${sdnRow(36100, 'ANOTHER ENTITY', other.address)}\n${sdnRow(36216, 'SOME ENTITY (A.K.A. SOME OTHER)', sender.address)}\n${sdnRow(36300, 'THIRD', h.address())}\n`);
    const done = await h.waitForOrder(acct.client, placed.trackingId, ['completed'], 60_000);
    assert.equal(done.failureReason, null);
    assert.equal(await usdcOf(h, recipient), placed.amountOut);
    const log = await decisions(placed.trackingId);
    assert.deepEqual(log.filter((d) => !d.startsWith('resolution')).map((d) => d.split(':').slice(0, 2).join(':')), ['deposit:blocked', 'payout:blocked']);
    assert.ok(log.at(-1)!.endsWith('listed (SDN entry 36216); released by an operator'), `the payout passed on the release: ${log.at(-1)}`);
  });

  test('released on the SDN list, then named by the operator\'s own list: held again, and nothing is paid', async () => {
    const sender = await funded();
    const recipient = h.address();
    const placed = await order(sender, recipient);
    // Added to the day's file (a file that loses more than half its addresses at once is refused as broken).
    const today = `${sdnRow(36100, 'ANOTHER ENTITY', h.address())}\n${sdnRow(36300, 'THIRD', h.address())}\n`;
    await rewrite(sdn, `${today}${sdnRow(36500, 'FOURTH', sender.address)}\n`);
    await h.deposit(placed.order, sender);
    await h.waitForOrder(acct.client, placed.trackingId, ['held'], 30_000);
    // Listed on the second list while the order is held: the operator's release resolves the SDN listing only.
    await rewrite(own, `# the compliance team's own list\n${sender.address}\n`);
    expectOk(await resolveOrder(h, placed.trackingId, 'release', 'false positive on the SDN entry'));
    const again = await h.waitForOrder(acct.client, placed.trackingId, ['held'], 30_000);
    assert.equal(again.failureReason, 'screening');
    assert.equal(await usdcOf(h, recipient), null, 'nothing went out');
    assert.deepEqual((await decisions(placed.trackingId)).slice(-2), ['resolution:release:-:-', 'payout:blocked:own.txt:listed']);
  });
});
