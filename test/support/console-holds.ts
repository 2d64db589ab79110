/**
 * Fund holds for the console's browser tests (test/console/), put in the store by the functions Hush's worker
 * uses (src/store/holds/fund-holds.ts, with the screening-log line the worker writes beside them). Made for real,
 * a fee hold needs a completed order with a partner fee and a payout period, and late funds a swept deposit
 * account and a late-deposit pass (test/screening/late-funds-and-fees.test.ts does both on the simulator): half a
 * minute or more on the local chain, for a page test that only needs the hold to show and be resolved.
 */
import { namedOperator } from './operators.ts';
import type { Page } from 'playwright-core';
import { holdFeeRecipient, holdLateFunds, type FundHoldFinding } from '../../src/store/holds/fund-holds.ts';
import { recordScreening } from '../../src/store/screening-log-store.ts';
import type { TestHush } from './hush-server.ts';

type Finding = FundHoldFinding & { stage: 'fee' | 'late' };

/** A finding of a list file (its version: what it lists) or of the risk API (`http:<host>` as list and version). */
export const listFinding = (stage: Finding['stage'], field: string, address: string, reason = 'listed (SDN entry 36216)'): Finding => ({ stage, result: 'blocked', field, address, list: 'sdn.csv', version: '0123456789abcdef', reason });
export const providerFinding = (stage: Finding['stage'], field: string, address: string, reason = 'sanctions'): Finding => ({ stage, result: 'blocked', field, address, list: 'http:risk.example:8443', version: 'http:risk.example:8443', reason });

/** A partner's fee recipient held, `owed` of USDC accrued; its hold's id. */
export async function holdFees(hush: TestHush, accountId: string, owed: bigint, f: Finding): Promise<string> {
  const subject = `payable:partner:${accountId}:${f.address}`;
  await holdFeeRecipient(hush.db, subject, 'usdc', owed, f);
  await recordScreening(hush.db, { ...f, actor: 'hush' });
  const { rows } = await hush.db.query<{ id: string }>(`SELECT id::text AS id FROM screening_holds WHERE kind = 'fee' AND subject = $1 AND status = 'held'`, [subject]);
  return rows[0]!.id;
}

/** Late funds of `amount` USDC held at the deposit account of the order `trackingId`; the hold's id. */
export async function holdLate(hush: TestHush, trackingId: string, amount: bigint, f: Finding): Promise<string> {
  const { rows } = await hush.db.query<{ id: string }>(`SELECT id::text AS id FROM orders WHERE tracking_id = $1`, [trackingId]);
  const subject = `late-test-${trackingId}-${amount}`;
  await holdLateFunds(hush.db, subject, { id: rows[0]!.id, trackingId, sourceAssetId: 'usdc' }, amount, f);
  const held = await hush.db.query<{ id: string }>(`SELECT id::text AS id FROM screening_holds WHERE subject = $1`, [subject]);
  return held.rows[0]!.id;
}

/**
 * Signs in to the console at `path` (its query: `?refresh=1`) as a named operator `operator` (an approver unless
 * `role` says otherwise), registered by the shared token and given a personal token; answers their operator id.
 */
export async function signIn(page: Page, hush: TestHush, operator: string, query = '?refresh=1', role: 'viewer' | 'resolver' | 'approver' = 'approver'): Promise<string> {
  const { token, operatorId } = await namedOperator(hush.ops.withKey(hush.adminToken!), operator, role);
  await page.goto(`${hush.opsUrl}/console${query}`);
  await page.locator('#token').fill(token);
  await page.locator('#signin button[type="submit"]').click();
  await page.locator('#console').waitFor();
  return operatorId;
}

/**
 * Every sentence the page shows starts after a space: no "…status.Next" (a lower-case letter or a closing mark, a
 * full stop, then a capital), in what is on screen and in what a screen reader is told.
 */
export async function runTogether(page: Page): Promise<string[]> {
  const text = await page.evaluate(() => `${document.body.innerText}\n${document.getElementById('announce')?.textContent ?? ''}`);
  return [...text.matchAll(/[a-z)”\]][.!?][A-Z“(]/g)].map((m) => text.slice(Math.max(0, m.index! - 30), m.index! + 30));
}
