/**
 * docs/spec.md §12 "Console": the public receipt-check page, in a real browser (Debian's Chromium through
 * playwright-core) against a real Hush on the local chain. A completed order's genuine receipt verifies in
 * the browser against the published keys and reads in plain words; one altered field fails and the page
 * says which check failed (and which field); the receipt is never sent anywhere; keyboard alone works; axe
 * finds no accessibility violation. HUSH_SCREENSHOTS=1 writes the page's picture to docs/.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { expectOk, startTestHush, type TestHush } from '../support/hush-server.ts';
import { REPO_ROOT } from '../support/localnet.ts';
import { chainAt, depositWithRefresh, newWallet, placeOrder, waitForOrder } from '../support/settlement.ts';
import { assertAccessible, startBrowser, tabTo, type TestBrowser } from '../support/browser.ts';

type Receipt = { document: Record<string, any>; algorithm: string; signature: string };

describe('the receipt-check page', () => {
  let hush: TestHush;
  let browser: TestBrowser;
  let receipt: Receipt;
  let page: Page;
  const requests: { method: string; url: string; body: string | null }[] = [];

  before(async () => {
    // The browser first: without Chromium the file fails at once, with no Hush left running to hold it open.
    browser = await startBrowser();
    // The production anonymous limit (10 a second, bursts of 20), not the tests' default: the page must live with it.
    hush = await startTestHush({ env: { HUSH_ANONYMOUS_RATE_LIMIT: '10' } });
    const acct = await hush.createAccount();
    const chain = chainAt(hush.chainUrl);
    const sender = await newWallet(chain, { sol: 100_000_000n, tokens: { usdc: 20_000_000n } });
    const placed = await placeOrder(acct.client, { amount: '10000000', sourceAssetId: 'usdc', destinationAssetId: 'usdc', senderAddress: sender.address, recipientAddress: (await newWallet(chain)).address });
    await depositWithRefresh(acct.client, chain, placed, sender);
    await waitForOrder(acct.client, placed.trackingId, ['completed'], 30_000);
    await hush.hush.receipts!.pass();
    receipt = (expectOk(await acct.client.request('GET', `/transfer/v1/status/${placed.trackingId}/receipt`)) as unknown as { receipt: Receipt }).receipt;
    page = await browser.page();
    page.on('request', (r) => requests.push({ method: r.method(), url: r.url(), body: r.postData() }));
  });
  after(async () => {
    await browser?.close();
    await hush?.close();
  });

  const verdict = () => page.locator('#verdict').innerText();
  const outcomes = async () => Object.fromEntries(await page.locator('#checks li').evaluateAll((lis) => lis.map((li) => [li.getAttribute('data-check'), li.getAttribute('data-outcome')])));
  const paste = async (text: string) => {
    await page.locator('#receipt').fill(text);
    await page.locator('#check').click();
    await page.locator('#result:not([hidden])').waitFor();
  };

  test('a genuine receipt, pasted and checked with the keyboard alone, verifies and reads in plain words', async () => {
    await page.goto(`${hush.url}/receipt-check`);
    await assertAccessible(page, 'the empty page');
    await tabTo(page, '#receipt');
    await page.keyboard.insertText(JSON.stringify({ success: true, receipt }, null, 2));
    await tabTo(page, '#check');
    await page.keyboard.press('Enter');
    await page.locator('#verdict:not(:empty)').waitFor();
    assert.equal(await verdict(), 'Genuine: Hush signed exactly this receipt.');
    assert.deepEqual(await outcomes(), { format: 'passed', key: 'passed', signature: 'passed', amounts: 'passed' });
    const d = receipt.document;
    const statement = await page.locator('#statement').innerText();
    assert.match(statement, /Completed: the recipient was paid\./);
    assert.match(statement, new RegExp(`10 USDC from ${d.sender}`), 'amounts in the asset\'s units');
    assert.match(statement, /Paid to the recipient\s+[\d.]+ USDC in transaction/);
    assert.match(statement, /No screening was run for this transfer/);
    assert.match(statement, /\d{1,2} [A-Z][a-z]{2} \d{4}, \d\d:\d\d:\d\d UTC/, 'times in words');
    const link = page.locator(`#statement a:text-is("${d.deposit.signature}")`);
    assert.match((await link.getAttribute('href'))!, new RegExp(`^https://explorer\\.solana\\.com/tx/${d.deposit.signature}\\?cluster=custom`));
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'result-heading', 'the focus moves to the result');
    await assertAccessible(page, 'a genuine receipt shown');
    if (process.env.HUSH_SCREENSHOTS) writeFileSync(join(REPO_ROOT, 'docs', 'console-receipt-genuine.png'), await page.screenshot({ fullPage: true }));
  });

  test('one altered field fails, and the page says which check failed and which field', async () => {
    const altered = structuredClone(receipt);
    altered.document.amountOut = (BigInt(receipt.document.amountOut) + 1_000_000n).toString();
    await paste(JSON.stringify(altered));
    assert.match(await verdict(), /^Not genuine: the check “The signature covers exactly this document” failed\./);
    assert.deepEqual(await outcomes(), { format: 'passed', key: 'passed', signature: 'failed', amounts: 'failed' });
    assert.match(await page.locator('#checks li[data-check="amounts"]').innerText(), /amountOut says \d+ base units, but the payouts add up to \d+\. \(field: amountOut\)/);
    assert.match(await page.locator('#statement-note').innerText(), /Hush does not vouch for any of the following/);
    await assertAccessible(page, 'a tampered receipt shown');
    if (process.env.HUSH_SCREENSHOTS) writeFileSync(join(REPO_ROOT, 'docs', 'console-receipt-tampered.png'), await page.screenshot({ fullPage: true }));

    // A field no other check covers (who was paid): only the signature says so.
    const redirected = structuredClone(receipt);
    redirected.document.recipient = receipt.document.sender;
    await paste(JSON.stringify(redirected));
    assert.deepEqual(await outcomes(), { format: 'passed', key: 'passed', signature: 'failed', amounts: 'passed' });

    // Signed by a key this Hush does not publish.
    const foreign = structuredClone(receipt);
    foreign.document.keyId = receipt.document.sender;
    await paste(JSON.stringify(foreign));
    assert.deepEqual(await outcomes(), { format: 'passed', key: 'failed', signature: 'skipped', amounts: 'passed' });

    await paste('{"not": "a receipt"');
    assert.equal(await verdict(), 'Not a receipt: the text is not JSON.');
  });

  test("a statement's screening sentences are spaced, not run together", async () => {
    // Changed, so not genuine: the page still states what it says, under "Hush does not vouch".
    const screened = structuredClone(receipt);
    screened.document.screening = [
      { stage: 'deposit', result: 'clear', list: null, version: null, at: receipt.document.createdAt },
      { stage: 'payout', result: 'clear', list: null, version: null, at: receipt.document.finalAt },
    ];
    await paste(JSON.stringify(screened));
    const words = await page.locator('#statement dt:text-is("Screening") + dd').innerText();
    assert.match(words, /^When the deposit arrived: clear, [^.]+ UTC\. Before the payout was sent: clear, [^.]+ UTC\.$/);
  });

  test('a receipt file chosen from disk is checked at once', async () => {
    await page.locator('#receipt').fill('');
    await page.locator('#file').setInputFiles({ name: 'receipt.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(receipt)) });
    await page.locator('#verdict', { hasText: 'Genuine' }).waitFor();
    assert.equal(await page.locator('#receipt').inputValue(), JSON.stringify(receipt));
  });

  test('ten reloads in two seconds: no file is refused, and the page still checks', async () => {
    const statuses: number[] = [];
    const onResponse = (r: { status(): number; url(): string }) => void statuses.push(r.status());
    page.on('response', onResponse);
    try {
      await page.goto(`${hush.url}/receipt-check`);
      const started = Date.now();
      for (let i = 0; i < 10; i++) await page.reload();
      const tookMs = Date.now() - started;
      await paste(JSON.stringify(receipt));
      assert.match(await verdict(), /^Genuine/);
      assert.ok(!statuses.includes(429), `nothing refused (${tookMs} ms for ten reloads): ${statuses.join(' ')}`);
    } finally {
      page.off('response', onResponse);
    }
    // The files are named by their content and cached for a year: a reload asks for the page (and the keys) only.
    const html = await (await fetch(`${hush.url}/receipt-check`)).text();
    const script = /src="(\/receipt-check\/receipt-check\.js\?v=[\w-]+)"/.exec(html)![1]!;
    const res = await fetch(`${hush.url}${script}`);
    assert.equal(res.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    assert.equal((await fetch(`${hush.url}${script}`, { headers: { 'if-none-match': res.headers.get('etag')! } })).status, 304);
    const unversioned = await fetch(`${hush.url}/receipt-check/receipt-check.js`);
    assert.equal(unversioned.headers.get('cache-control'), 'no-cache', 'a URL without its version is revalidated');
    assert.match(await (await fetch(`${hush.url}${script}`)).text(), /receipt-checks\.js\?v=[\w-]{16}'/, 'its imports are versioned too');
  });

  test('a failed request is said in words, with when to try again; pressed again, it checks', async () => {
    await page.goto(`${hush.url}/receipt-check`);
    await page.route('**/transfer/v1/receipt-keys', (route) =>
      route.fulfill({ status: 429, headers: { 'retry-after': '3', 'content-type': 'application/json' }, body: JSON.stringify({ success: false, error: { code: 'RATE_LIMITED', message: 'Too many requests from this address' } }) }),
    );
    await paste(JSON.stringify(receipt));
    assert.equal(await verdict(), "Could not check: Hush's published receipt keys could not be loaded (Too many requests from this address). Try again in 3 seconds.");
    await page.unroute('**/transfer/v1/receipt-keys');
    await paste(JSON.stringify(receipt));
    assert.match(await verdict(), /^Genuine/);
  });

  test('a page whose script cannot be loaded says so, and its button does nothing it cannot do', async () => {
    await page.route('**/receipt-check/receipt-check.js*', (route) => route.fulfill({ status: 429, body: '' }));
    try {
      await page.goto(`${hush.url}/receipt-check`);
      assert.ok(await page.locator('#loading').isVisible(), 'the notice stays');
      assert.match(await page.locator('#loading').innerText(), /could not be loaded: reload the page/);
      assert.ok(await page.locator('#check').isDisabled());
    } finally {
      await page.unroute('**/receipt-check/receipt-check.js*');
    }
    await page.goto(`${hush.url}/receipt-check`);
    assert.ok(await page.locator('#loading').isHidden());
    assert.ok(await page.locator('#check').isEnabled());
  });

  test('on a 390 px phone the page never scrolls sideways, a checked receipt\'s statement included', async () => {
    const phone = await browser.page();
    await phone.setViewportSize({ width: 390, height: 844 });
    await phone.goto(`${hush.url}/receipt-check`);
    await phone.locator('#receipt').fill(JSON.stringify(receipt));
    await phone.locator('#check').click();
    await phone.locator('#verdict', { hasText: 'Genuine' }).waitFor();
    const width = await phone.evaluate(() => document.documentElement.scrollWidth);
    const wide = await phone.evaluate(() => [...document.querySelectorAll('*')].filter((e) => e.getBoundingClientRect().right > 391).slice(0, 12).map((e) => `${e.tagName}#${e.id}.${e.className} ${Math.round(e.getBoundingClientRect().right)} ${(e.textContent ?? '').slice(0, 60)}`));
    assert.ok(width <= 390, `the page is ${width} px wide on a 390 px screen: ${wide.join(' | ')}`);
    await assertAccessible(phone, 'the checked receipt on a phone');
    await phone.close();
  });

  test('the receipt never leaves the browser: only the page, its files and the published keys were fetched', () => {
    const base = new URL(hush.url);
    const allowed = new Set(['/receipt-check', '/receipt-check/pages.css', '/receipt-check/receipt-check.js', '/receipt-check/receipt-checks.js', '/receipt-check/receipt-words.js', '/receipt-check/config.json', '/receipt-check/favicon.svg', '/transfer/v1/receipt-keys']);
    assert.ok(requests.length > 0);
    for (const r of requests) {
      const u = new URL(r.url);
      assert.equal(u.origin, base.origin, `${r.url}: this origin only`);
      assert.equal(r.method, 'GET', `${r.url}: nothing is posted`);
      const versioned = u.pathname.startsWith('/receipt-check/');
      assert.ok(allowed.has(u.pathname) && (versioned ? /^\?v=[\w-]{16}$/.test(u.search) : u.search === ''), `${r.url}: a page file (named by its version) or the keys, nothing else in the query`);
      assert.equal(r.body, null);
    }
    assert.ok(requests.some((r) => r.url.endsWith('/transfer/v1/receipt-keys')), 'the keys were fetched by the page');
  });

  test('the page is served with a CSP that lets it talk to its own origin only, and is in the OpenAPI document', async () => {
    const res = await fetch(`${hush.url}/receipt-check`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-security-policy')!, /connect-src 'self'/);
    assert.match(res.headers.get('content-security-policy')!, /script-src 'self'/);
    assert.equal((await fetch(`${hush.url}/receipt-check/nothing.js`)).status, 404);
    const doc = (await (await fetch(`${hush.url}/transfer/v1/openapi.json`, { headers: { authorization: 'Bearer x' } })).json()) as { paths: Record<string, any> };
    assert.ok(doc.paths['/receipt-check']?.get, 'the page\'s path is documented');
    assert.deepEqual(doc.paths['/receipt-check'].get.security, []);
    // The keys answer without an API key (the page has none).
    const keys = (await (await fetch(`${hush.url}/transfer/v1/receipt-keys`)).json()) as { keys: { keyId: string }[] };
    assert.deepEqual(keys.keys.map((k) => k.keyId), [receipt.document.keyId]);
  });
});
