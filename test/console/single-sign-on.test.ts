/**
 * docs/spec.md §12 "Named operators" and "Four eyes" (issue 70), in a real browser (Debian's Chromium through
 * playwright-core) against a real Hush and a real OpenID Connect provider in this process (oidc-provider): two
 * registered people sign in to the console by single sign-on, one proposes the release of a sanctions-list
 * finding and the freeze of listed late funds, the other approves both, and the log names both people; someone
 * the deployment did not register is refused; a session ends on sign-out and when idle, and the page's own
 * refreshes do not keep it alive.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { expectOk, startTestHush, type TestHush } from '../support/hush-server.ts';
import { assertAccessible, startBrowser, type TestBrowser } from '../support/browser.ts';
import { holdFees, holdLate, listFinding } from '../support/console-holds.ts';
import { placeOrder } from '../support/settlement.ts';
import { startIdentityProvider, type TestIdentityProvider } from '../support/test-identity-provider.ts';
import { freePorts } from '../support/free-port.ts';
import { address } from '../support/hush-server.ts';
import { REPO_ROOT } from '../support/localnet.ts';

describe('single sign-on to the console, named operators and four eyes', () => {
  let idp: TestIdentityProvider;
  let hush: TestHush;
  let browser: TestBrowser;
  let page: Page;
  let fee: string, late: string;
  // Beyond ASCII (the API's test holds a CJK name; this machine's Chromium has no CJK font for the picture).
  const ANA = 'Ana Lúcia Ñúñez-Ødegård';

  before(async () => {
    browser = await startBrowser();
    const [opsPort] = await freePorts(1);
    const callback = `http://127.0.0.1:${opsPort}/console/sign-in/callback`;
    idp = await startIdentityProvider(callback);
    hush = await startTestHush({
      admin: true,
      env: { HUSH_OPS_PORT: String(opsPort), HUSH_OIDC_ISSUER: idp.issuer, HUSH_OIDC_CLIENT_ID: idp.clientId, HUSH_OIDC_CLIENT_SECRET: idp.clientSecret, HUSH_OIDC_REDIRECT_URL: callback, HUSH_CONSOLE_IDLE_MINUTES: '5' },
    });
    const admin = hush.ops.withKey(hush.adminToken!);
    expectOk(await admin.request('POST', '/admin/v1/operators', { body: { name: ANA, role: 'approver', email: 'ana@example.com' } }), 201);
    expectOk(await admin.request('POST', '/admin/v1/operators', { body: { name: 'Bo', role: 'approver', email: 'BO@example.com' } }), 201);
    const acct = await hush.createAccount();
    fee = await holdFees(hush, acct.id, 2_500_000n, listFinding('fee', 'feeRecipientAddress', await address()));
    const order = await placeOrder(acct.client, { amount: '10000000', sourceAssetId: 'usdc', destinationAssetId: 'usdc', senderAddress: await address(), recipientAddress: await address() });
    late = await holdLate(hush, order.trackingId, 4_000_000n, listFinding('late', 'lateFundsPayer', await address()));
    page = await browser.page();
  });
  after(async () => {
    await browser?.close();
    await hush?.close();
    await idp?.close();
  });

  /** Through the provider's own sign-in pages, as `login`; the provider's session is forgotten first. */
  async function signInAs(login: string): Promise<void> {
    await browser.context.clearCookies({ domain: 'localhost' });
    await page.goto(`${hush.opsUrl}/console?refresh=1`);
    await page.locator('#sso').click();
    await page.locator('input[name="login"]').fill(login);
    await page.locator('input[name="password"]').fill('any');
    await page.locator('button[type="submit"]').click();
    await page.locator('button', { hasText: 'Continue' }).click();
    await page.waitForURL(/\/console\?signin=/);
  }
  const card = () => page.locator(`#holds [data-fund-hold="${fee}"]`);
  const sessionCookie = async () => (await browser.context.cookies(hush.opsUrl)).find((c) => c.name === 'hush_console');

  test('someone the deployment did not register signs in at the provider and is refused by Hush', async () => {
    await signInAs('eve');
    await page.locator('#signin-message').waitFor();
    assert.match(await page.locator('#signin-message').innerText(), /not an operator of this Hush/);
    assert.equal(await page.locator('#console').isHidden(), true);
    assert.equal(await sessionCookie(), undefined, 'no session was opened');
  });

  test('an operator signs in by single sign-on (any script in a name) and proposes the release of a sanctions-list finding; nothing moves', async () => {
    await signInAs('ana');
    await page.locator('#console').waitFor();
    assert.equal(await page.locator('#who').innerText(), `Signed in as ${ANA} (approver)`);
    const cookie = (await sessionCookie())!;
    assert.equal(cookie.httpOnly, true);
    assert.equal(cookie.sameSite, 'Strict');
    await card().waitFor();
    await card().locator(`#release-hold-${fee}`).check();
    await card().locator('input[name="note"]').fill('a namesake: different date of birth');
    await card().locator('button', { hasText: 'Resolve' }).click();
    await card().locator('[data-message]', { hasText: 'Proposed (release)' }).waitFor();
    await card().locator('[data-approval]').waitFor();
    assert.match(await card().locator('[data-approval]').innerText(), new RegExp(`Awaiting approval: release proposed by ${ANA}`));
    assert.match(await card().locator('[data-approval]').innerText(), /Your proposal: another operator, an approver, approves it/);
    assert.equal(await card().locator('[data-approval] button', { hasText: 'Approve' }).count(), 0, 'nobody approves their own proposal');
    assert.equal((await hush.db.query<{ status: string }>(`SELECT status FROM screening_holds WHERE id = $1`, [fee])).rows[0]!.status, 'held');
    // A freeze of late funds: confirmed on the page, then proposed like the release.
    const lateCard = page.locator(`#holds [data-fund-hold="${late}"]`);
    await lateCard.locator(`#freeze-hold-${late}`).check();
    await lateCard.locator('input[name="note"]').fill('the payer is the listed wallet');
    await lateCard.locator('button', { hasText: 'Resolve' }).click();
    await lateCard.locator('[data-confirm] button', { hasText: 'Freeze for good' }).click();
    await lateCard.locator('[data-approval]').waitFor();
    await assertAccessible(page, 'the console with a proposal awaiting approval');
    if (process.env.HUSH_SCREENSHOTS) {
      await card().scrollIntoViewIfNeeded();
      writeFileSync(join(REPO_ROOT, 'docs', 'console-approval.png'), await card().screenshot());
    }
  });

  test('signed in, she makes a personal token for the CLI (shown once, logged as her) and revokes it', async () => {
    await page.locator('#token-label').fill('laptop CLI');
    await page.locator('#token-new button[type="submit"]').click();
    const token = await page.locator('[data-new-token]').innerText();
    assert.match(token, /^hush_op_[a-z2-9]{12}_[A-Za-z0-9_-]{43}$/);
    const cli = hush.ops.withKey(token);
    assert.equal((expectOk(await cli.get('/admin/v1/me')) as { operator: { name: string } }).operator.name, ANA);
    const row = page.locator('#tokens tr', { hasText: 'laptop CLI' });
    await row.waitFor();
    assert.doesNotMatch(await page.locator('#tokens').innerText(), /hush_op_/, 'the listing holds no secret');
    await row.locator('button', { hasText: 'Revoke' }).click();
    await row.locator('td', { hasText: 'revoked' }).waitFor();
    assert.equal((await cli.get('/admin/v1/me')).status, 401);
  });

  test('her own approval is refused by the API too; sign-out ends the session on the server', async () => {
    const cookie = (await sessionCookie())!;
    const asAna = { cookie: `hush_console=${cookie.value}`, 'x-hush-console': '1' };
    const { approvals } = expectOk(await hush.ops.request('GET', '/admin/v1/approvals', { headers: asAna })) as unknown as { approvals: { approvalId: string }[] };
    const refused = await hush.ops.request('POST', `/admin/v1/approvals/${approvals[0]!.approvalId}/approve`, { headers: asAna, body: {} });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.error.code, 'FORBIDDEN');
    // Without the console's header the cookie is not enough (a cross-site form could send it).
    assert.equal((await hush.ops.request('GET', '/admin/v1/me', { headers: { cookie: asAna.cookie } })).status, 401);
    await page.locator('#signout').click();
    await page.locator('#signin-part').waitFor();
    await page.waitForFunction(() => !document.cookie.includes('hush_console'));
    assert.equal((await hush.ops.request('GET', '/admin/v1/me', { headers: asAna })).status, 401, 'the ended session is refused');
  });

  test('a second operator approves the release and the freeze: each is carried out, and the log names both', async () => {
    await signInAs('bo');
    await page.locator('#console').waitFor();
    assert.equal(await page.locator('#who').innerText(), 'Signed in as Bo (approver)');
    await card().locator('[data-approval] button', { hasText: 'Approve the release' }).click();
    await card().locator('[data-approval-message]', { hasText: 'Approved' }).waitFor();
    const lateCard = page.locator(`#holds [data-fund-hold="${late}"]`);
    await lateCard.locator('[data-approval] button', { hasText: 'Approve the freeze' }).click();
    await lateCard.locator('[data-approval-message]', { hasText: 'Approved' }).waitFor();
    const status = async (id: string) => (await hush.db.query<{ status: string }>(`SELECT status FROM screening_holds WHERE id = $1`, [id])).rows[0]!.status;
    assert.equal(await status(fee), 'released');
    assert.equal(await status(late), 'frozen');
    const { rows } = await hush.db.query<{ result: string; actor: string; approved_by: string }>(`SELECT result, actor, approved_by FROM screening_log WHERE stage = 'resolution' ORDER BY id`);
    assert.deepEqual(rows.map((r) => r.result), ['release', 'freeze']);
    for (const r of rows) {
      assert.match(r.actor, new RegExp(`^operator:${ANA} \\(op_[a-z2-9]{12}\\)$`));
      assert.match(r.approved_by, /^operator:Bo \(op_[a-z2-9]{12}\)$/);
    }
  });

  test("a session idle too long ends; the page's own refreshes do not keep it alive", async () => {
    const cookie = (await sessionCookie())!;
    const headers = (h: string) => ({ cookie: `hush_console=${cookie.value}`, 'x-hush-console': h });
    const seen = async () => (await hush.db.query<{ at: string }>(`SELECT last_seen_at::text AS at FROM operator_sessions WHERE ended_at IS NULL`)).rows.map((r) => r.at);
    await hush.db.query(`UPDATE operator_sessions SET last_seen_at = last_seen_at - interval '4 minutes' WHERE ended_at IS NULL`);
    const before = await seen();
    expectOk(await hush.ops.request('GET', '/admin/v1/holds', { headers: headers('refresh') }));
    assert.deepEqual(await seen(), before, 'a refresh is not activity');
    // Past the five idle minutes: the session is over, whatever asks.
    await hush.db.query(`UPDATE operator_sessions SET last_seen_at = last_seen_at - interval '2 minutes' WHERE ended_at IS NULL`);
    assert.equal((await hush.ops.request('GET', '/admin/v1/me', { headers: headers('1') })).status, 401);
    await page.locator('#signin-message', { hasText: 'Your session ended' }).waitFor();
  });
});
