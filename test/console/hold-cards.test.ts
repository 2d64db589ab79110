/**
 * docs/compliance.md "The console" (claims, comments, links, history), in a real browser (Debian's Chromium through
 * playwright-core) against a real Hush on the local chain with a real list file: an operator claims a held order,
 * sees a colleague take it over and takes it back, comments on it, copies its sender's address (and is told how
 * when the clipboard is refused), follows its addresses and deposit to the explorer the server names, resolves it
 * and finds it in the history, which pages through older resolutions. Each state is axe-clean and fits a 390 px
 * phone; the console's Content-Security-Policy is unchanged.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { expectError, expectOk } from '../support/api-responses.ts';
import { startTestHush, type TestHush } from '../support/hush-server.ts';
import { makeTempDir, pollUntil, removeDir } from '../support/localnet.ts';
import { chainAt, depositWithRefresh, newWallet, placeOrder, waitForOrder, type PlacedOrder } from '../support/settlement.ts';
import { assertAccessible, startBrowser, type TestBrowser } from '../support/browser.ts';
import { holdFees, providerFinding, runTogether, signIn } from '../support/console-holds.ts';
import { namedOperator } from '../support/operators.ts';

const ADDRESS_PAGE = 'https://explorer.example/address/{address}?cluster=custom';
const TX_PAGE = 'https://explorer.example/tx/{signature}';

describe('hold cards: a claim, comments, explorer links, copy buttons and the history', () => {
  const list = join(makeTempDir('hush-cards-'), 'blocked.txt');
  let hush: TestHush;
  let browser: TestBrowser;
  let page: Page;
  let held: PlacedOrder;
  let accountId: string;
  /** A colleague with a personal token, acting through the admin API; and how the log names alice and bob. */
  let bob: Awaited<ReturnType<typeof namedOperator>>;
  let aliceLabel: string, bobLabel: string;

  before(async () => {
    writeFileSync(list, '# blocked after quoting\n');
    browser = await startBrowser();
    hush = await startTestHush({ admin: true, env: { HUSH_SCREENING_LISTS: list, HUSH_SCREENING_RELOAD_MS: '100', HUSH_EXPLORER_ADDRESS_URL: ADDRESS_PAGE, HUSH_EXPLORER_TX_URL: TX_PAGE } });
    const acct = await hush.createAccount();
    accountId = acct.id;
    const chain = chainAt(hush.chainUrl);
    const sender = await newWallet(chain, { sol: 100_000_000n, tokens: { usdc: 50_000_000n } });
    held = await placeOrder(acct.client, { amount: '10000000', sourceAssetId: 'usdc', destinationAssetId: 'usdc', senderAddress: sender.address, recipientAddress: (await newWallet(chain)).address });
    writeFileSync(list, `${sender.address}\n`);
    await pollUntil(async () => ((await hush.ops.get('/readyz')).body?.screening ?? '').includes('(1)'), { timeoutMs: 5_000, intervalMs: 50, what: 'the list reloaded' });
    await depositWithRefresh(acct.client, chain, held, sender);
    await waitForOrder(acct.client, held.trackingId, ['held'], 30_000);
    bob = await namedOperator(hush.ops.withKey(hush.adminToken!), 'bob', 'approver');
    bobLabel = `operator:bob (${bob.operatorId})`;
    page = await browser.page();
    await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: hush.opsUrl });
  });
  after(async () => {
    await browser?.close();
    await hush?.close();
    removeDir(dirname(list));
  });

  const admin = () => hush.ops.withKey(hush.adminToken!);
  const card = () => page.locator(`[data-hold="${held.trackingId}"]`);
  const claimLine = () => card().locator('[data-claim]');
  /** A card's fact by its name exactly (the finding's row names the sender's field too). */
  const fact = (within: ReturnType<Page['locator']>, name: string) => within.locator('tr').filter({ has: within.page().locator('th', { hasText: new RegExp(`^${name}$`) }) });

  test('the operator claims a hold; a colleague is refused, takes it over explicitly, and the page shows it; the operator takes it back', async () => {
    aliceLabel = `operator:alice (${await signIn(page, hush, 'alice')})`;
    await card().waitFor();
    assert.equal(await claimLine().innerText(), 'Nobody has claimed this hold.');
    await card().locator('[data-claim-action="claim"]').click();
    await card().locator('[data-claim-action="unclaim"]').waitFor();
    assert.match(await claimLine().innerText(), /^Claimed by you (just now|\d+ s ago)\.$/);
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('data-claim-action')), 'unclaim', 'the focus stays on the claim');

    const path = `/admin/v1/orders/${held.trackingId}/claim`;
    assert.equal(expectError(await bob.client.request('POST', path, { body: {} }), 409, 'HOLD_CLAIMED').details.claimedBy, aliceLabel);
    expectOk(await bob.client.request('POST', path, { body: { takeOver: true } }));
    await card().locator('[data-claim-action="take-over"]', { hasText: 'Take over from bob' }).waitFor();
    assert.match(await claimLine().innerText(), /^Claimed by bob (just now|\d+ s ago), taken over from you\.$/);
    await assertAccessible(page, 'a hold claimed by a colleague');

    await card().locator('[data-claim-action="take-over"]').click();
    await card().locator('[data-claim-action="unclaim"]').waitFor();
    assert.match(await claimLine().innerText(), /^Claimed by you .*, taken over from bob\.$/);
    const listed = expectOk(await admin().get('/admin/v1/holds')).holds.find((h: { trackingId: string }) => h.trackingId === held.trackingId);
    assert.deepEqual(listed.claims.map((c: { kind: string; by: string }) => [c.kind, c.by]), [['claim', aliceLabel], ['take_over', bobLabel], ['take_over', aliceLabel]]);
  });

  test('comments show oldest first with who and when, a colleague\'s arriving without a reload; a refused one is said in the API\'s words', async () => {
    const box = card().locator('[data-comment-form] input');
    await box.fill('Asked the partner for the sender’s KYC ✓');
    await card().locator('[data-comment-form] button').click();
    await card().locator('[data-comments] li').first().waitFor();
    assert.equal(await box.inputValue(), '', 'the box is emptied');
    expectOk(await bob.client.request('POST', `/admin/v1/orders/${held.trackingId}/comments`, { body: { text: 'Same name on a second list: 名前' } }), 201);
    await card().locator('[data-comments] li', { hasText: 'bob' }).waitFor();
    const comments = await card().locator('[data-comments] li').allInnerTexts();
    assert.equal(comments.length, 2);
    assert.match(comments[0]!, /^you, \d{1,2} [A-Z][a-z]{2} \d{4}, \d\d:\d\d:\d\d UTC: Asked the partner for the sender’s KYC ✓$/);
    assert.match(comments[1]!, /^bob, .* UTC: Same name on a second list: 名前$/);

    await box.fill('   ');
    await card().locator('[data-comment-form] button').click();
    await card().locator('[data-notes-message]', { hasText: 'Refused' }).waitFor();
    assert.equal(await card().locator('[data-notes-message]').innerText(), 'Refused: text is required: 1–500 characters once trimmed (INVALID_REQUEST)');
    assert.equal(await card().locator('[data-comments] li').count(), 2, 'nothing added');
    assert.deepEqual(await runTogether(page), [], 'sentences spaced');
    await assertAccessible(page, 'a hold with comments');
  });

  test('addresses and the deposit link to the configured explorer in a new tab without opener or referrer; the CSP is as strict as before', async () => {
    const sender = fact(card(), 'Sender').locator('a[data-explorer="address"]');
    assert.equal(await sender.innerText(), held.req.senderAddress);
    assert.equal(await sender.getAttribute('href'), ADDRESS_PAGE.replace('{address}', held.req.senderAddress));
    assert.equal(await sender.getAttribute('rel'), 'noopener noreferrer');
    assert.equal(await sender.getAttribute('target'), '_blank');
    const deposit = fact(card(), 'Deposit transaction').locator('a[data-explorer="tx"]');
    const signature = await deposit.innerText();
    assert.match(signature, /^[1-9A-HJ-NP-Za-km-z]{64,88}$/);
    assert.equal(await deposit.getAttribute('href'), TX_PAGE.replace('{signature}', signature));
    assert.equal(await card().locator('a[data-explorer]').count(), 4, 'the address found, the sender, the recipient, the deposit');
    assert.equal(await fact(card(), 'Order').locator('a').count(), 0, 'a tracking id has no explorer page: copied only');
    const res = await fetch(`${hush.opsUrl}/console`);
    assert.equal(res.headers.get('content-security-policy'), "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'");

    // HUSH_EXPLORER_*=none: the page gets null templates and shows the ids as text, still copyable.
    const plain = await browser.page();
    await plain.route('**/console/config.json', async (r) => r.fulfill({ contentType: 'application/json', body: JSON.stringify({ ...(await (await r.fetch()).json()), explorer: { address: null, tx: null } }) }));
    await signIn(plain, hush, 'alice');
    const plainCard = plain.locator(`[data-hold="${held.trackingId}"]`);
    await plainCard.waitFor();
    assert.equal(await plainCard.locator('a[data-explorer]').count(), 0);
    assert.equal(await fact(plainCard, 'Sender').locator('.mono').innerText(), held.req.senderAddress);
    assert.ok((await plainCard.locator('button[data-copy]').count()) >= 5);
    await plain.close();
  });

  test('Copy puts the address on the clipboard and says "Copied"; a refused clipboard selects it and says how to copy by hand', async () => {
    const copy = fact(card(), 'Sender').locator('button[data-copy]');
    assert.equal(await copy.textContent(), 'Copy the sender address', 'what a screen reader says it copies');
    await copy.click();
    await copy.locator('[data-copy-label]', { hasText: 'Copied' }).waitFor();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), held.req.senderAddress);
    assert.equal(await page.locator('#announce').innerText(), 'Copied the sender address.');
    await assertAccessible(page, 'a Copied button');

    // A clipboard that refuses, as a browser does without permission (a string: tsx's helpers do not reach the page).
    await page.evaluate(`Object.defineProperty(navigator, 'clipboard', { value: { writeText: () => Promise.reject(new DOMException('denied', 'NotAllowedError')) }, configurable: true })`);
    const recipient = fact(card(), 'Recipient');
    await recipient.locator('button[data-copy]').click();
    const refused = recipient.locator('[data-copy-refused]');
    await refused.waitFor();
    assert.equal((await refused.innerText()).trim(), 'The browser refused the clipboard: the text is selected, press Ctrl+C (⌘C on a Mac) to copy it.');
    assert.equal(await page.evaluate(() => getSelection()?.toString()), held.req.recipientAddress, 'the address alone is selected');
  });

  test('on a 390 px phone the cards with their claim and comments never scroll sideways', async () => {
    const phone = await browser.page();
    await phone.setViewportSize({ width: 390, height: 844 });
    await signIn(phone, hush, 'alice');
    await phone.locator(`[data-hold="${held.trackingId}"] [data-comments] li`).first().waitFor();
    const width = await phone.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(width <= 390, `the page is ${width} px wide on a 390 px screen`);
    await assertAccessible(phone, 'hold cards on a phone');
    await phone.close();
  });

  test('released with four eyes, the hold leaves the queue for the history: who proposed and approved, when, the decision, the note, the comments', async () => {
    await card().locator(`#release-${held.trackingId}`).check();
    await card().locator('input[name="note"]').fill('false positive: a different person');
    await card().locator('button', { hasText: 'Resolve' }).click();
    // A release of a list's finding takes four eyes: proposed by alice here, approved by bob elsewhere.
    await card().locator('[data-message]', { hasText: 'Proposed' }).waitFor();
    const { approvals } = expectOk(await bob.client.get('/admin/v1/approvals'));
    const proposal = approvals.find((a: { trackingId: string }) => a.trackingId === held.trackingId);
    expectOk(await bob.client.request('POST', `/admin/v1/approvals/${proposal.approvalId}/approve`, { body: { note: 'agreed' } }));
    await card().waitFor({ state: 'detached', timeout: 10_000 });

    const item = page.locator('#history article').first();
    await page.locator(`#history article h3`, { hasText: held.trackingId }).waitFor();
    assert.equal(await item.locator('h3').innerText(), `${held.trackingId}: released by you, approved by bob`);
    const text = await item.innerText();
    assert.match(text, /Resolved\s+\d{1,2} [A-Z][a-z]{2} \d{4}, \d\d:\d\d:\d\d UTC by you\n/);
    assert.match(text, /Approved by\s+bob\n/);
    assert.match(text, /Decision\s+release\n/);
    assert.match(text, /Note\s+false positive: a different person\n/);
    assert.match(text, /Claimed by\s+you, since /);
    assert.deepEqual((await item.locator('.comments li').allInnerTexts()).map((c) => c.replace(/,.* UTC: /, ': ')), ['you: Asked the partner for the sender’s KYC ✓', 'bob: Same name on a second list: 名前']);
    await item.locator('summary').click();
    assert.equal(await fact(item, 'Sender').locator('a[data-explorer]').getAttribute('href'), ADDRESS_PAGE.replace('{address}', held.req.senderAddress));
    await assertAccessible(page, 'the history');
  });

  test('the history pages through older resolutions, newest first, and back, and fits a phone', async () => {
    // Eleven more resolutions by bob (fee recipients' holds on a provider's non-sanctions category, one operator's
    // decision each; made in the store: test/support/console-holds.ts), then ours is on page 2.
    for (let i = 0; i < 11; i++) {
      const id = await holdFees(hush, accountId, 1_000n, providerFinding('fee', 'feeRecipientAddress', `Fee${i}`.padEnd(32, '1'), 'mixer'));
      expectOk(await bob.client.request('POST', `/admin/v1/holds/${id}/resolve`, { body: { action: 'release', note: `fee ${i}` } }));
    }
    await page.locator('#history article h3', { hasText: 'fee recipient' }).first().waitFor();
    await pollUntil(async () => (await page.locator('#history article').first().innerText()).includes('fee 10') || null, { timeoutMs: 10_000, intervalMs: 100, what: 'the newest resolution first' });
    assert.equal(await page.locator('#history article').count(), 10);
    assert.equal(await page.locator('#history-newer').isDisabled(), true);
    await page.locator('#history-older').click();
    await page.locator('#history article h3', { hasText: held.trackingId }).waitFor();
    assert.deepEqual((await page.locator('#history article').allInnerTexts()).map((t) => /Note\s+(.*)\n/.exec(t)?.[1]), ['fee 0', 'false positive: a different person']);
    assert.equal(await page.locator('#history-older').isDisabled(), true, 'the oldest page');
    assert.equal(await page.locator('#history-page').innerText(), 'Page 2, older resolutions.');
    await page.locator('#history-newer').click();
    await page.locator('#history article', { hasText: 'fee 10' }).waitFor();
    assert.equal(await page.locator('#history-newer').isDisabled(), true);

    // The history on a phone, every item opened: nothing scrolls sideways.
    const phone = await browser.page();
    await phone.setViewportSize({ width: 390, height: 844 });
    await signIn(phone, hush, 'alice');
    await phone.locator('#history article').nth(9).waitFor();
    await phone.locator('#history-older').click();
    await phone.locator('#history article h3', { hasText: held.trackingId }).waitFor();
    for (const summary of await phone.locator('#history summary').all()) await summary.click();
    const width = await phone.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(width <= 390, `the page is ${width} px wide on a 390 px screen`);
    await assertAccessible(phone, 'the history on a phone');
    await phone.close();
  });
});
