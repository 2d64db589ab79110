/**
 * docs/spec.md §12 "Console": the operator console on the ops listener, in a real browser (Debian's Chromium
 * through playwright-core) against a real Hush on the local chain with a real list file. Three deposits are
 * held by screening; the operator signs in and resolves them with the keyboard alone or the mouse: release,
 * refund (refused for a blocked sender, in the API's words, then refunded for a clear one) and freeze (confirmed on
 * the page first); the page shows each new status and drops the card's form. A partner's fee recipient held on
 * the risk API's word (put in the store: test/support/console-holds.ts says why) shares the one queue, labelled as
 * the provider with its category; the heading counts every open hold. The screening log filters by order and by address, newest first; reconcile, liquidity
 * and privacy per class show; a resolution made elsewhere leaves the page without a reload; axe finds no
 * violation; on a 390 px phone nothing scrolls sideways but the tables in their own boxes. HUSH_SCREENSHOTS=1 writes
 * the console's picture to docs/.
 */
import { namedOperator } from '../support/operators.ts';
import assert from 'node:assert/strict';
import { appendFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { expectOk, startTestHush, type TestHush } from '../support/hush-server.ts';
import { makeTempDir, pollUntil, removeDir, REPO_ROOT } from '../support/localnet.ts';
import { chainAt, depositWithRefresh, newWallet, placeOrder, waitForOrder, type PlacedOrder } from '../support/settlement.ts';
import { assertAccessible, startBrowser, tabTo, type TestBrowser } from '../support/browser.ts';
import { holdFees, providerFinding, runTogether, signIn } from '../support/console-holds.ts';

describe('the operator console', () => {
  const list = join(makeTempDir('hush-console-'), 'blocked.txt');
  let hush: TestHush;
  let browser: TestBrowser;
  let page: Page;
  /** Held at deposit: a blocked sender (released), a blocked sender (refund refused, frozen), a blocked recipient (refunded). */
  let release: PlacedOrder, freeze: PlacedOrder, refund: PlacedOrder;
  /** Held too, and resolved through the admin API while the page is open (another operator, the CLI). */
  let elsewhere: PlacedOrder;
  /** A partner's fee recipient held on the risk API's word: its hold's id. */
  let feeHold: string;
  let accountId: string;

  before(async () => {
    writeFileSync(list, '# blocked after quoting\n');
    // The browser first: without Chromium the file fails at once, with no Hush left running to hold it open.
    browser = await startBrowser();
    hush = await startTestHush({ admin: true, env: { HUSH_SCREENING_LISTS: list, HUSH_SCREENING_RELOAD_MS: '100' } });
    const acct = await hush.createAccount();
    accountId = acct.id;
    const chain = chainAt(hush.chainUrl);
    const funded = () => newWallet(chain, { sol: 100_000_000n, tokens: { usdc: 50_000_000n } });
    const [s1, s2, s3, s4] = await Promise.all([funded(), funded(), funded(), funded()]);
    const r3 = (await newWallet(chain)).address;
    const place = async (sender: typeof s1, recipient: string) => placeOrder(acct.client, { amount: '10000000', sourceAssetId: 'usdc', destinationAssetId: 'usdc', senderAddress: sender.address, recipientAddress: recipient as never });
    [release, freeze, refund, elsewhere] = [await place(s1, (await newWallet(chain)).address), await place(s2, (await newWallet(chain)).address), await place(s3, r3), await place(s4, r3)];
    appendFileSync(list, `${s1.address}\n${s2.address}\n${r3}\n`);
    await pollUntil(async () => ((await hush.ops.get('/readyz')).body?.screening ?? '').includes('(3)'), { timeoutMs: 5_000, intervalMs: 50, what: 'the list reloaded' });
    await Promise.all([[release, s1], [freeze, s2], [refund, s3], [elsewhere, s4]].map(([p, s]) => depositWithRefresh(acct.client, chain, p as PlacedOrder, s as typeof s1)));
    await Promise.all([release, freeze, refund, elsewhere].map((p) => waitForOrder(acct.client, p.trackingId, ['held'], 30_000)));
    feeHold = await holdFees(hush, acct.id, 1_500_000n, providerFinding('fee', 'feeRecipientAddress', (await newWallet(chain)).address));
    page = await browser.page();
    const admin = hush.ops.withKey(hush.adminToken!);
    [alice, bob] = [await namedOperator(admin, 'alice', 'approver'), await namedOperator(admin, 'bob', 'approver')];
  });
  let alice: Awaited<ReturnType<typeof namedOperator>>, bob: Awaited<ReturnType<typeof namedOperator>>;
  /** bob approves whatever awaits a second operator. */
  async function approveAll(who: typeof bob): Promise<void> {
    await pollUntil(async () => ((expectOk(await who.client.get('/admin/v1/approvals')) as { approvals: unknown[] }).approvals.length > 0) || null, { timeoutMs: 5_000, intervalMs: 50, what: 'a proposal' });
    for (const a of (expectOk(await who.client.get('/admin/v1/approvals')) as { approvals: { approvalId: string }[] }).approvals) {
      expectOk(await who.client.request('POST', `/admin/v1/approvals/${a.approvalId}/approve`, { body: { note: 'checked' } }));
    }
  }
  after(async () => {
    await browser?.close();
    await hush?.close();
    removeDir(dirname(list));
  });

  const card = (p: PlacedOrder) => page.locator(`[data-hold="${p.trackingId}"]`);
  const messageOf = (p: PlacedOrder) => card(p).locator('[data-message]');

  test('sign in and propose a release with the keyboard alone; a second operator approves it and the hold leaves the queue', async () => {
    await page.goto(`${hush.opsUrl}/console?refresh=1`);
    await assertAccessible(page, 'the sign-in form');
    await tabTo(page, '#token');
    await page.keyboard.insertText(alice.token);
    await page.keyboard.press('Enter');
    await page.locator('#console').waitFor();
    await card(release).waitFor();
    assert.match(await card(release).innerText(), /senderAddress/);
    assert.match(await card(release).innerText(), /blocked on list blocked\.txt \(listed\)/, 'the list and its listing');
    assert.match(await card(release).locator('small').innerText(), /^list version [0-9a-f]{16}$/, 'its version in small print (what it lists, not when it was read)');
    assert.match(await card(release).innerText(), /10 USDC in/, 'amounts in the asset\'s units');
    assert.match(await card(release).innerText(), new RegExp(`Partner account\\s+${accountId}`));
    assert.match(await card(release).locator('[data-age]').innerText(), /^held (just now|\d+ s ago|1 min ago)$/);
    await card(elsewhere).waitFor();
    // One queue: the fee recipient's hold among the held orders, the provider and its category named.
    const fee = page.locator(`#holds [data-fund-hold="${feeHold}"]`);
    assert.match(await fee.innerText(), /Why\s+blocked by the risk provider risk\.example:8443: sanctions\n/);
    assert.doesNotMatch(await fee.innerText(), /http:/, 'not "by list http:…, version http:…"');
    assert.equal(await page.locator('#holds-heading').innerText(), 'Holds (5 open)');
    assert.equal(await page.locator('#holds-more').isHidden(), true, 'all of them are listed');
    await assertAccessible(page, 'the console with four holds');
    if (process.env.HUSH_SCREENSHOTS) writeFileSync(join(REPO_ROOT, 'docs', 'console-holds.png'), await page.screenshot());

    // Past the card's links and Copy buttons, its claim and its comment box: each a stop of its own.
    await tabTo(page, `#release-${release.trackingId}`, 80);
    await page.keyboard.press('Space');
    await page.keyboard.press('Tab'); // the note (the other choices are one radio group: one Tab stop)
    await page.keyboard.insertText('false positive: a different person');
    await page.keyboard.press('Enter');
    // A release of a list's finding takes four eyes: proposed, nothing moved.
    await messageOf(release).locator('text=/Proposed/').waitFor();
    assert.match(await messageOf(release).innerText(), /^Proposed \(release\): awaiting a second operator’s approval \(proposal \d+\)\. Nothing moves until an approver other than you approves it\.$/);
    await card(release).locator('[data-approval]').waitFor();
    assert.equal(await card(release).locator('[data-status]').innerText(), 'held');
    assert.equal(await card(release).locator('[data-approval] button', { hasText: 'Approve' }).count(), 0, 'not by the one who proposed it');
    await assertAccessible(page, 'a card awaiting approval');
    await approveAll(bob);
    // Carried out by bob elsewhere: it leaves alice's queue by itself.
    await card(release).waitFor({ state: 'detached', timeout: 10_000 });
    await page.locator('#holds-heading', { hasText: '(4 open)' }).waitFor();
    assert.deepEqual(await runTogether(page), [], 'sentences spaced');
  });

  test('on a 390 px phone the page never scrolls sideways: a table wider than the screen scrolls in its own box', async () => {
    const phone = await browser.page();
    await phone.setViewportSize({ width: 390, height: 844 });
    await signIn(phone, hush, 'carol');
    await phone.locator(`[data-hold="${freeze.trackingId}"]`).waitFor();
    await phone.locator(`[data-fund-hold="${feeHold}"]`).waitFor();
    const filled = async () => (await Promise.all(['#log', '#reconcile', '#liquidity'].map(async (t) => (await phone.locator(`${t} tr`).count()) > 0))).every(Boolean) || null;
    await pollUntil(filled, { timeoutMs: 10_000, intervalMs: 100, what: 'every table filled' });
    const width = await phone.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(width <= 390, `the page is ${width} px wide on a 390 px screen`);
    const log = phone.getByRole('region', { name: 'The screening log' });
    assert.ok(await log.evaluate((box) => box.scrollWidth > box.clientWidth), 'the log, wider than the screen, scrolls inside its box');
    await assertAccessible(phone, 'the console on a phone');
    await phone.close();
  });

  test('a refund the API refuses is shown in its words; freeze and refund then resolve', async () => {
    await card(freeze).locator(`#refund-${freeze.trackingId}`).check();
    await card(freeze).locator('input[name="note"]').fill('sender on the list');
    await card(freeze).locator('button', { hasText: 'Resolve' }).click();
    await messageOf(freeze).locator('text=/Refused/').waitFor();
    assert.equal(await messageOf(freeze).innerText(), 'Refused: The sender is blocked: a refund cannot go to it; freeze the funds or release the order (ADDRESS_BLOCKED)');
    assert.equal(await card(freeze).locator('[data-status]').innerText(), 'held');

    await card(freeze).locator(`#freeze-${freeze.trackingId}`).check();
    await card(freeze).locator('input[name="note"]').fill('OFAC match confirmed');
    await card(freeze).locator('button', { hasText: 'Resolve' }).click();
    // Final, so asked first: nothing is posted until the operator confirms.
    const confirm = card(freeze).locator('[data-confirm]');
    assert.match(await confirm.innerText(), /Freeze the deposit of trk_\w+\? A freeze is final/);
    assert.equal(await card(freeze).locator('[data-status]').innerText(), 'held');
    assert.equal((await hush.db.query(`SELECT status FROM orders WHERE tracking_id = $1`, [freeze.trackingId])).rows[0]!.status, 'held', 'not frozen before the confirmation');
    await confirm.locator('button', { hasText: 'Freeze for good' }).click();
    await messageOf(freeze).locator('text=/Proposed \\(freeze\\)/').waitFor();
    assert.equal((await hush.db.query(`SELECT status FROM orders WHERE tracking_id = $1`, [freeze.trackingId])).rows[0]!.status, 'held', 'not frozen on one pair of eyes');
    await approveAll(bob);
    await card(freeze).waitFor({ state: 'detached', timeout: 10_000 });

    await card(refund).locator(`#refund-${refund.trackingId}`).check();
    await card(refund).locator('input[name="note"]').fill('recipient sanctioned; sender clear');
    await card(refund).locator('button', { hasText: 'Resolve' }).click();
    await messageOf(refund).locator('text=/Resolved/').waitFor();
    assert.equal(await card(refund).locator('[data-status]').innerText(), 'refunding');

    const rows = await page.locator('#resolved tr').evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].slice(0, 3).map((td) => td.textContent)));
    assert.deepEqual(rows, [[refund.trackingId, 'refund', 'refunding']]);
    // What the page did went through the service: the log has the freeze proposed by alice, approved by bob, with her note.
    const log = await hush.db.query<{ result: string; actor: string; approved_by: string; note: string }>(`SELECT result, actor, approved_by, note FROM screening_log WHERE tracking_id = $1 AND stage = 'resolution'`, [freeze.trackingId]);
    assert.deepEqual(log.rows.map((e) => [e.result, e.actor, e.approved_by, e.note]), [['freeze', `operator:alice (${alice.operatorId})`, `operator:bob (${bob.operatorId})`, 'OFAC match confirmed']]);
  });

  test('the screening log: newest first, filtered by order and by address', async () => {
    const ids = async () => page.locator('#log tr').evaluateAll((trs) => trs.map((tr) => Number(tr.getAttribute('data-log'))));
    await pollUntil(async () => (await page.locator('#log tr', { hasText: 'resolution' }).count()) >= 3 || null, { timeoutMs: 5_000, intervalMs: 100, what: 'the resolutions in the log' });
    const all = await ids();
    assert.deepEqual(all, [...all].sort((a, b) => b - a), 'newest first');

    await page.locator('#filter-order').fill(freeze.trackingId);
    await pollUntil(async () => (await page.locator('#log tr').allInnerTexts()).every((t) => t.includes(freeze.trackingId)) || null, { timeoutMs: 5_000, intervalMs: 100, what: 'the order filter' });
    assert.deepEqual((await page.locator('#log tr td:nth-child(3)').allInnerTexts()), ['resolution', 'deposit'], 'its decision, then the resolution above it');

    await page.locator('#filter-order').fill('');
    const sender = freeze.req.senderAddress;
    await page.locator('#filter-address').fill(sender);
    await pollUntil(async () => {
      const rows = await page.locator('#log tr td:nth-child(5)').allInnerTexts();
      return (rows.length > 0 && rows.every((a) => a === sender)) || null;
    }, { timeoutMs: 5_000, intervalMs: 100, what: 'the address filter' });
    await page.locator('#filter-address').fill('');
  });

  test('reconcile, liquidity and privacy per class show; a resolution made elsewhere leaves the page without a reload', async () => {
    // Read at sign-in, before the freeze: asked again, it shows the frozen deposit (in USDC).
    await page.locator('#reconcile-again').click();
    const usdc = page.locator('#reconcile tr[data-asset="usdc"]');
    await pollUntil(async () => /^usdc\s+(yes|no)\s+[\d,.]+\s+[\d,.]+\s+10\s/.test(await usdc.innerText()) || null, { timeoutMs: 10_000, intervalMs: 100, what: 'reconcile showing the frozen deposit' });
    assert.match(await page.locator('#reconcile-summary').innerText(), /transaction\(s\) in flight/);
    const liquidity = await page.locator('#liquidity tr[data-asset="usdc"] td').allInnerTexts();
    assert.equal(liquidity.length, 6);
    assert.ok(Number(liquidity[1]!.replaceAll(',', '')) > 0, 'the pools hold USDC');
    // The released order goes with its class (10 USDC, a menu amount): its release appears as a chart.
    const cls = page.locator('[data-class="usdc/usdc/exact_in/10000000"]');
    await pollUntil(async () => (await cls.count()) > 0 && /Release sizes/.test((await cls.locator('svg').first().getAttribute('aria-label')) ?? '') && !(await cls.locator('svg').first().getAttribute('aria-label'))!.endsWith('none') || null, { timeoutMs: 40_000, intervalMs: 250, what: 'the class release charted' });
    assert.match(await cls.innerText(), /10 USDC send \(exact_in\)/);
    await assertAccessible(page, 'the console after resolutions');
    if (process.env.HUSH_SCREENSHOTS) writeFileSync(join(REPO_ROOT, 'docs', 'console-reports.png'), await page.locator('#reports').screenshot());

    // Resolved through the admin API (another operator, the CLI): the page drops it by itself, no reload.
    const before = await page.evaluate(() => performance.timeOrigin);
    expectOk(await bob.client.request('POST', `/admin/v1/orders/${elsewhere.trackingId}/resolve`, { body: { action: 'refund', note: 'bob decided' } }));
    await card(elsewhere).waitFor({ state: 'detached', timeout: 10_000 });
    assert.equal(await page.evaluate(() => performance.timeOrigin), before, 'the same page, not reloaded');
    assert.equal(await card(refund).count(), 1, 'what was resolved here stays, with its status');
  });

});
