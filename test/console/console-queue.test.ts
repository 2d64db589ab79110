/**
 * docs/spec.md §12 "Console" (issue 70): the operator console's one queue, in a real browser (Debian's Chromium
 * through playwright-core) against a real Hush. Held late funds and a held fee recipient (put in the store by the
 * worker's own functions: test/support/console-holds.ts says why) show beside each other with how long ago,
 * the partner account and why (a list by its listing, the risk API as the provider with its category); each is
 * resolved from its card, a freeze only once confirmed on the page; a refresh that fails is said in an alert
 * until the next one succeeds; more holds than the API lists are said; both pages carry a favicon.
 */
import { namedOperator } from '../support/operators.ts';
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { address, expectOk, startTestHush, type TestHush } from '../support/hush-server.ts';
import { placeOrder, type PlacedOrder } from '../support/settlement.ts';
import { assertAccessible, startBrowser, tabTo, type TestBrowser } from '../support/browser.ts';
import { holdFees, holdLate, listFinding, providerFinding, runTogether, signIn } from '../support/console-holds.ts';

describe("the console's one queue: held funds, a freeze asked first, failed refreshes said", () => {
  let hush: TestHush;
  let browser: TestBrowser;
  let page: Page;
  let accountId: string;
  /** An open order whose deposit account late funds reached. */
  let order: PlacedOrder;
  /** The holds' ids: a fee recipient on a list file, late funds found by the risk API. */
  let fee: string, late: string;
  let bob: Awaited<ReturnType<typeof namedOperator>>;

  before(async () => {
    // The browser first: without Chromium the file fails at once, with no Hush left running to hold it open.
    browser = await startBrowser();
    hush = await startTestHush({ admin: true });
    const acct = await hush.createAccount();
    accountId = acct.id;
    order = await placeOrder(acct.client, { amount: '10000000', sourceAssetId: 'usdc', destinationAssetId: 'usdc', senderAddress: await address(), recipientAddress: await address() });
    fee = await holdFees(hush, acct.id, 2_500_000n, providerFinding('fee', 'feeRecipientAddress', await address(), 'mixer'));
    // Three minutes old, so the card's "how long ago" is known.
    await hush.db.query(`UPDATE screening_holds SET created_at = now() - interval '190 seconds' WHERE id = $1`, [fee]);
    late = await holdLate(hush, order.trackingId, 4_000_000n, listFinding('late', 'lateFundsPayer', await address()));
    bob = await namedOperator(hush.ops.withKey(hush.adminToken!), 'bob', 'approver');
    page = await browser.page();
  });
  after(async () => {
    await browser?.close();
    await hush?.close();
  });

  const card = (holdId: string) => page.locator(`#holds [data-fund-hold="${holdId}"]`);
  const statusOf = async (holdId: string) => (await hush.db.query<{ status: string }>(`SELECT status FROM screening_holds WHERE id = $1`, [holdId])).rows[0]!.status;

  test('held late funds and a held fee recipient share the queue: how long ago, the partner account, why, and the decisions each allows', async () => {
    await signIn(page, hush, 'carol');
    await card(late).waitFor();
    await card(fee).waitFor();
    assert.equal(await page.locator('#holds-heading').innerText(), 'Holds (2 open)');
    const feeText = await card(fee).innerText();
    assert.match(feeText, /^A partner’s fee recipient: held before a fee payout\n+held 3 min ago\n/);
    assert.match(feeText, new RegExp(`Partner account\\s+${accountId}\\n`));
    assert.match(feeText, /Why\s+blocked by the risk provider risk\.example:8443: mixer\n/, 'the provider and its category');
    assert.doesNotMatch(feeText, /http:/);
    assert.match(feeText, /Fees owed\s+2\.5 USDC/);
    const lateText = await card(late).innerText();
    assert.match(lateText, new RegExp(`^Late funds to ${order.trackingId}: held on late funds\\n+held (just now|\\d+ s ago)\\n`));
    assert.match(lateText, /Why\s+blocked on list sdn\.csv \(listed \(SDN entry 36216\)\)\n/, 'the list and its listing');
    assert.equal(await card(late).locator('small').innerText(), 'list version 0123456789abcdef', 'the version in small print');
    assert.match(lateText, new RegExp(`Partner account\\s+${accountId}\\n`), "the account of the order the funds reached");
    assert.match(lateText, /Amount held\s+4 USDC/);
    const choices = (holdId: string) => card(holdId).locator('input[type="radio"]').evaluateAll((rs) => rs.map((r) => (r as HTMLInputElement).value));
    assert.deepEqual(await choices(fee), ['release'], "a fee recipient's hold is released only");
    assert.deepEqual(await choices(late), ['refund', 'release', 'freeze']);
    assert.deepEqual(await runTogether(page), [], 'sentences spaced');
    await assertAccessible(page, 'the queue with held funds');
  });

  test("a fee recipient's hold is released from its card, which then has nothing left to post", async () => {
    await card(fee).locator(`#release-hold-${fee}`).check();
    await card(fee).locator('input[name="note"]').fill('a different entity');
    await card(fee).locator('button', { hasText: 'Resolve' }).click();
    await card(fee).locator('[data-message]', { hasText: 'Resolved' }).waitFor();
    assert.equal(await card(fee).locator('[data-message]').innerText(), 'Resolved (release): the hold is now released.');
    assert.equal(await card(fee).locator('[data-status]').innerText(), 'released');
    assert.equal(await card(fee).locator('form, input, button:not([data-copy])').count(), 0);
    assert.equal(await statusOf(fee), 'released');
    await page.locator('#holds-heading', { hasText: '(1 open)' }).waitFor();
    assert.deepEqual(await page.locator('#resolved tr td').allInnerTexts(), [`fee recipient of ${accountId} (hold ${fee})`, 'release', 'released', 'a different entity']);
  });

  test('a freeze is asked first, on the page and with the keyboard: Escape posts nothing, "Freeze for good" freezes', async () => {
    await tabTo(page, `#refund-hold-${late}`);
    // One radio group: the arrows choose within it.
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    assert.equal(await card(late).locator(`#freeze-hold-${late}`).isChecked(), true);
    await page.keyboard.press('Tab');
    await page.keyboard.insertText('sanctioned payer');
    await page.keyboard.press('Enter');
    const confirm = card(late).locator('[data-confirm]');
    await confirm.waitFor();
    assert.equal(await confirm.locator('[data-confirm-question]').innerText(), 'Freeze these late funds (4 USDC)? A freeze is final: the funds are kept apart for good, and no later decision can release or refund them.');
    assert.equal(await page.evaluate(() => document.activeElement?.hasAttribute('data-confirm-question')), true, 'the question has the focus');
    await assertAccessible(page, 'the freeze confirmation');

    await page.keyboard.press('Escape');
    await confirm.waitFor({ state: 'detached' });
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Resolve', 'back on Resolve');
    assert.equal(await statusOf(late), 'held', 'nothing posted');

    await page.keyboard.press('Enter');
    await confirm.waitFor();
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Freeze for good');
    await page.keyboard.press('Enter');
    // Four eyes: proposed, and frozen only once another operator approves.
    await card(late).locator('[data-message]', { hasText: 'Proposed (freeze)' }).waitFor();
    assert.equal(await card(late).locator('[data-confirm]').count(), 0, 'no question left');
    await card(late).locator('[data-approval]').waitFor();
    assert.equal(await statusOf(late), 'held');
    const { approvals } = expectOk(await bob.client.get('/admin/v1/approvals')) as { approvals: { approvalId: string; fundHoldId: string }[] };
    assert.deepEqual(approvals.map((a) => a.fundHoldId), [late]);
    expectOk(await bob.client.request('POST', `/admin/v1/approvals/${approvals[0]!.approvalId}/approve`, { body: {} }));
    await card(late).waitFor({ state: 'detached', timeout: 10_000 });
    assert.equal(await statusOf(late), 'frozen');
  });

  test('a refresh that fails is said in an alert with the last good refresh, and the alert goes at the next success', async () => {
    const alert = page.getByRole('alert').filter({ hasText: 'could not be refreshed' });
    assert.equal(await alert.count(), 0);
    await page.route('**/admin/v1/holds', (r) => r.fulfill({ status: 503, contentType: 'application/json', body: JSON.stringify({ success: false, error: { code: 'SERVICE_UNAVAILABLE', message: 'The store is not answering' } }) }));
    await alert.waitFor();
    assert.match(await alert.innerText(), /^The holds could not be refreshed: The store is not answering \(HTTP 503\)\. Last good refresh: \d{1,2} [A-Z][a-z]{2} \d{4}, \d\d:\d\d:\d\d UTC\. The page keeps trying\.$/);
    assert.ok(await alert.isVisible());
    await assertAccessible(page, 'the refresh failure alert');
    await page.unroute('**/admin/v1/holds');
    await alert.waitFor({ state: 'detached' });
    assert.equal(await page.locator('#refresh-alert').isHidden(), true, 'nothing left of it');
  });

  test("a favicon is served beside the console and the receipt page, and linked from both (the receipt page's by its version)", async () => {
    const icon = await page.locator('link[rel="icon"]').getAttribute('href');
    assert.equal(icon, '/console/favicon.svg');
    const served = await fetch(`${hush.opsUrl}${icon}`);
    assert.equal(served.status, 200);
    assert.equal(served.headers.get('content-type'), 'image/svg+xml');
    assert.match(await served.text(), /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    const receipt = await browser.page();
    await receipt.goto(`${hush.url}/receipt-check`);
    const versioned = (await receipt.locator('link[rel="icon"]').getAttribute('href'))!;
    await receipt.close();
    assert.match(versioned, /^\/receipt-check\/favicon\.svg\?v=[\w-]{16}$/);
    const res = await fetch(`${hush.url}${versioned}`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'image/svg+xml');
    assert.match(res.headers.get('cache-control')!, /immutable/, 'named by its content, cached for a year');
  });

  test('more holds than the API lists: the heading counts them all, the page says it shows the oldest 100, and the next page shows the rest', async () => {
    for (let i = 0; i < 101; i++) await holdFees(hush, `acc_queue${i}`, 1_000n, listFinding('fee', 'feeRecipientAddress', await address()));
    const listed = expectOk(await hush.ops.withKey(hush.adminToken!).get('/admin/v1/holds')) as unknown as { fundHolds: unknown[]; counts: { holds: number; fundHolds: number } };
    assert.deepEqual([listed.fundHolds.length, listed.counts], [100, { holds: 0, fundHolds: 101 }], 'the API lists 100 and counts 101');
    const more = page.locator('#holds-more');
    await page.locator('#holds-more', { hasText: 'of 101' }).waitFor({ timeout: 10_000 });
    assert.equal(await more.innerText(), 'More holds exist than this page shows: showing the oldest 100 of 101 held funds. Resolve these, or go to the next holds.');
    assert.equal(await page.locator('#holds-heading').innerText(), 'Holds (101 open)');
    const newest = listed.fundHolds.length === 100 ? (await hush.db.query<{ id: string }>(`SELECT max(id)::text AS id FROM screening_holds WHERE status = 'held'`)).rows[0]!.id : '';
    assert.equal(await page.locator(`#holds [data-fund-hold="${newest}"]`).count(), 0, 'the 101st is not on the first page');
    await page.locator('#queue-page', { hasText: 'Page 1; more follow.' }).waitFor();
    assert.equal(await page.locator('#queue-first').isDisabled(), true);
    await page.locator('#queue-next').click();
    await page.locator(`#holds [data-fund-hold="${newest}"]`).waitFor();
    await page.locator('#queue-page', { hasText: 'Page 2.' }).waitFor();
    const oldest = (await hush.db.query<{ id: string }>(`SELECT min(id)::text AS id FROM screening_holds WHERE status = 'held'`)).rows[0]!.id;
    assert.equal(await page.locator(`#holds [data-fund-hold="${oldest}"]`).count(), 0, 'the first page is not on the second');
    assert.equal(await page.locator('#holds [data-fund-hold] [data-status]', { hasText: /^held$/ }).count(), 1, 'the second page holds the one left');
    assert.equal(await page.locator('#queue-next').isDisabled(), true);
    assert.equal(await more.isHidden(), true);
    await assertAccessible(page, 'the second page of the queue');
    await page.locator('#queue-first').click();
    await page.locator('#queue-page', { hasText: 'Page 1; more follow.' }).waitFor();
    await page.locator(`#holds [data-fund-hold="${newest}"]`).waitFor({ state: 'detached' });
  });
});
