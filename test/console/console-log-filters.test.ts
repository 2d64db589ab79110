/**
 * docs/compliance.md "The console": the screening log's filters, paging and CSV download, and the queue's filter
 * form, in a real browser (Debian's Chromium through playwright-core) against a real Hush (its admin API; no chain:
 * what is shown is put in the store, as the worker and the quote path write it). A partner's 130 refused quotes
 * fill the log's first page: "Older" and "Newer" page through them, "Decisions only" shows the operators' two
 * entries, the partner, who, address and time filters narrow it, an impossible address is said beside the form;
 * "Download CSV" saves the filtered log (fetched with the admin token, saved from a Blob) under the page's
 * unchanged CSP, formulas shown as text. The queue narrows to a stage and a partner and says it is narrowed. axe
 * finds no violation, and on a 390 px phone with every filter open nothing scrolls sideways.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { recordScreening, recordScreenings, type NewScreeningLogEntry } from '../../src/store/screening-log-store.ts';
import { address, startTestHush, type TestHush } from '../support/hush-server.ts';
import { pollUntil } from '../support/localnet.ts';
import { assertAccessible, startBrowser, type TestBrowser } from '../support/browser.ts';
import { holdFees, listFinding, providerFinding, signIn } from '../support/console-holds.ts';

describe("the console's screening log: filters, paging, CSV; the queue's filters", () => {
  let hush: TestHush;
  let browser: TestBrowser;
  let page: Page;
  const attacker = 'acc_attacker';
  let listed: string;
  /** The two decisions' log ids, the older first. */
  let decisions: string[];
  let feeA: string, feeB: string;

  before(async () => {
    browser = await startBrowser();
    hush = await startTestHush({ admin: true, chain: false });
    listed = await address();
    // The operators' decisions and two held fee recipients (each with its log row) first, then a partner's refused
    // quotes after them, as many as push them off a page.
    await recordScreening(hush.db, { trackingId: 'trk_2JryitQJkiaRiDSdak1qQ1', stage: 'resolution', result: 'freeze', actor: 'operator:alice', note: '=HYPERLINK("http://evil.example","x")' });
    await recordScreening(hush.db, { trackingId: 'trk_2JryitQJkiaRiDSdak1qQ2', stage: 'resolution', result: 'release', actor: 'operator:bob', note: 'a different person' });
    feeA = await holdFees(hush, 'acc_partner_a', 1_000_000n, listFinding('fee', 'feeRecipientAddress', await address()));
    feeB = await holdFees(hush, 'acc_partner_b', 2_000_000n, providerFinding('fee', 'feeRecipientAddress', await address()));
    const quotes: NewScreeningLogEntry[] = Array.from({ length: 130 }, () => ({ stage: 'quote', field: 'senderAddress', address: listed, result: 'blocked', list: 'sdn.csv', version: '0123456789abcdef', reason: 'listed', actor: 'hush', accountId: attacker }));
    await recordScreenings(hush.db, quotes);
    const { rows } = await hush.db.query<{ id: string }>(`SELECT id::text AS id FROM screening_log WHERE stage = 'resolution' ORDER BY id`);
    decisions = rows.map((r) => r.id);
    await hush.db.query(`UPDATE screening_log SET at = '2026-01-01T10:00:00Z' WHERE id = $1`, [decisions[0]]);
    await hush.db.query(`UPDATE screening_log SET at = '2026-01-02T10:00:00Z' WHERE id = $1`, [decisions[1]]);
    page = await browser.page();
  });
  after(async () => {
    await browser?.close();
    await hush?.close();
  });

  const logIds = () => page.locator('#log tr').evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-log')!));
  /** Waits until the log's rows satisfy `ok` (the form refreshes it a moment after a change). */
  const logUntil = async (what: string, ok: (ids: string[]) => boolean) =>
    pollUntil(async () => {
      const ids = await logIds();
      return ids.length > 0 && ok(ids) ? ids : null;
    }, { timeoutMs: 5_000, intervalMs: 50, what });
  /** A `datetime-local` value for `iso` in the browser's own zone, as the operator would type it. */
  const localTime = (iso: string) =>
    // No helper function inside: the transpiler would name it with a helper the page does not have.
    page.evaluate((t) => {
      const d = new Date(t);
      return [d.getFullYear(), '-', d.getMonth() + 1, '-', d.getDate(), 'T', d.getHours(), ':', d.getMinutes()].map((x) => (typeof x === 'number' && x < 10 ? `0${x}` : String(x))).join('');
    }, iso);

  test("a partner's refused quotes fill the first page; Older and Newer page through them; Decisions only shows the operators' entries", async () => {
    await signIn(page, hush, 'carol');
    const first = await logUntil('the first page', (ids) => ids.length === 100);
    assert.ok((await page.locator('#log tr td:nth-child(3)').allInnerTexts()).every((s) => s === 'quote'), 'all refusals');
    assert.equal(await page.locator('#log tr').first().locator('td').last().innerText(), attacker, 'each names its partner');
    assert.equal(await page.locator('#log-newer').isDisabled(), true);
    assert.match(await page.locator('#log-page').innerText(), /^The newest entries, 100 shown\.$/);

    await page.locator('#log-older').click();
    const second = await logUntil('the older page', (ids) => ids[0] !== first[0]);
    assert.equal(second.length, 34, 'the other 30 refusals, the two fee recipients held and the two decisions');
    assert.ok(BigInt(second[0]!) < BigInt(first.at(-1)!), 'it starts where the first page stopped');
    assert.deepEqual(second.slice(-2), [...decisions].reverse());
    assert.match(await page.locator('#log-page').innerText(), /^Older entries: page 2, 34 shown, the oldest that match\.$/);
    assert.equal(await page.locator('#log-older').isDisabled(), true);
    await page.locator('#log-newer').click();
    await logUntil('back to the newest page', (ids) => ids[0] === first[0]);

    await page.locator('#filter-decisions').check();
    await logUntil('the decisions only', (ids) => ids.length === 2);
    assert.deepEqual(await logIds(), [...decisions].reverse());
    assert.equal(await page.locator('#filter-stage').isDisabled(), true, 'decisions are a stage of their own');
    await assertAccessible(page, 'the log filtered to decisions');
  });

  test('the partner, who, address and time filters; an impossible address is said beside the form', async () => {
    await page.locator('#filter-actor').fill('operator:*');
    await logUntil('the operators by prefix', (ids) => ids.length === 2);
    await page.locator('#filter-actor').fill('operator:alice');
    await logUntil('one operator', (ids) => ids.length === 1 && ids[0] === decisions[0]);
    await page.locator('#filter-actor').fill('');

    await page.locator('#filter-from').fill(await localTime('2026-01-02T00:00:00Z'));
    await logUntil('from the second day', (ids) => ids.length === 1 && ids[0] === decisions[1]);
    await page.locator('#filter-from').fill('');
    await page.locator('#filter-to').fill(await localTime('2026-01-02T00:00:00Z'));
    await logUntil('before the second day', (ids) => ids.length === 1 && ids[0] === decisions[0]);
    await page.locator('#filter-to').fill('');
    await page.locator('#filter-decisions').uncheck();

    await page.locator('#filter-account').fill(attacker);
    await page.locator('#filter-address').fill(listed.slice(0, 5));
    await logUntil('the partner at that address', (ids) => ids.length === 100);
    assert.ok((await page.locator('#log tr td:nth-child(5)').allInnerTexts()).every((a) => a === listed));
    await page.locator('#filter-address').fill('0OIl');
    const message = page.locator('#filter-address-message');
    await message.waitFor();
    assert.match(await message.innerText(), /^Not the start of an address: only base58 characters \(no 0, O, I or l\), at most 44\. Left out of the filter\.$/);
    assert.equal(await page.locator('#filter-address').getAttribute('aria-invalid'), 'true');
    // (Without a chain, reconcile and liquidity fail: the log must not be among them.)
    assert.doesNotMatch(await page.locator('#refresh-alert').innerText(), /screening log/i, 'no failed refresh: the filter was left out, not sent');
    await page.locator('#log-filters button[type="reset"]').click();
    await message.waitFor({ state: 'hidden' });
    assert.equal(await page.locator('#filter-address').getAttribute('aria-invalid'), 'false');
    await logUntil('every entry again', (ids) => ids.length === 100);
  });

  test('Download CSV saves the filtered log, fetched with the token and saved from a Blob, under the unchanged CSP', async () => {
    const csp = (await fetch(`${hush.opsUrl}/console`)).headers.get('content-security-policy');
    assert.equal(csp, "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'");
    await page.locator('#filter-decisions').check();
    await logUntil('the decisions only', (ids) => ids.length === 2);
    const [download] = await Promise.all([page.waitForEvent('download'), page.locator('#log-csv').click()]);
    assert.match(download.suggestedFilename(), /^screening-log-\d{8}T\d{6}Z\.csv$/);
    const csv = readFileSync((await download.path())!, 'utf8');
    const records = csv.split(/\r\n(?=\d|$)/);
    assert.equal(records[0], 'id,at,trackingId,accountId,stage,field,address,result,list,version,reason,actor,approvedBy,note');
    assert.equal(records.length, 4, 'the header, the two decisions, the end');
    assert.ok(records[2]!.endsWith(`,operator:alice,,"'=HYPERLINK(""http://evil.example"",""x"")"`), 'a formula shown as text');
    await page.locator('#log-csv-status', { hasText: 'Downloaded' }).waitFor();
    assert.equal(await page.locator('#log-csv-status').innerText(), `Downloaded ${download.suggestedFilename()}.`);
    await page.locator('#log-filters button[type="reset"]').click();
  });

  test('the queue narrows to a stage, a result and a partner, and says it is narrowed', async () => {
    const cards = () => page.locator('#holds [data-fund-hold]').evaluateAll((cs) => cs.map((c) => c.getAttribute('data-fund-hold')));
    await page.locator('#holds [data-fund-hold]').nth(1).waitFor();
    assert.deepEqual(await cards(), [feeA, feeB]);
    assert.equal(await page.locator('#queue-filtered').isHidden(), true);
    await page.locator('.filter-box summary').click();
    await page.locator('#queue-account').fill('acc_partner_b');
    await page.locator(`#holds [data-fund-hold="${feeA}"]`).waitFor({ state: 'detached' });
    assert.deepEqual(await cards(), [feeB]);
    assert.equal(await page.locator('#queue-filtered').isVisible(), true);
    await page.locator('#holds-heading', { hasText: 'match' }).waitFor();
    assert.equal(await page.locator('#holds-heading').innerText(), 'Holds (2 open, 1 match)', 'the heading counts every open hold, and those that match');
    await page.locator('#queue-account').fill('');
    await page.locator('#queue-stage').selectOption('deposit');
    await page.locator('#holds [data-fund-hold]').first().waitFor({ state: 'detached' });
    await page.locator('#holds-empty').waitFor();
    await assertAccessible(page, 'the queue narrowed');
    await page.locator('#queue-filters button[type="reset"]').click();
    await page.locator('#holds [data-fund-hold]').nth(1).waitFor();
    assert.deepEqual(await cards(), [feeA, feeB]);
  });

  test('on a 390 px phone with every filter open nothing scrolls sideways', async () => {
    const phone = await browser.page();
    await phone.setViewportSize({ width: 390, height: 844 });
    await signIn(phone, hush, 'carol');
    await phone.locator('#log tr').first().waitFor();
    await phone.locator('.filter-box summary').click();
    const width = await phone.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(width <= 390, `the page is ${width} px wide on a 390 px screen`);
    await assertAccessible(phone, 'the filters on a phone');
    await phone.close();
  });
});
