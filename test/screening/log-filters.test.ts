/**
 * docs/spec.md §12, the screening log as an operator reads it, on a simulated Hush with a real list file: two held
 * orders resolved by two operators, then a partner's key sends 120 quotes the list refuses. The refusals fill the
 * log's first page, yet the operators' decisions stay one filter away (`decisions=true`) and paging with `next`
 * reaches them; each refusal names the partner that sent it. Every filter and the cursor over the admin API; bad
 * parameters are 400 INVALID_REQUEST in words; the CSV export quotes as RFC 4180 says, neutralises what a
 * spreadsheet would run as a formula, and says where it stopped when cut.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Address } from '@solana/kit';
import { expectError, expectOk } from '../support/api-responses.ts';
import { quoteRequest } from '../support/hush-server.ts';
import { closeSim } from '../support/sim-close.ts';
import { startSimHush, type SimAccount, type SimHush, type SimWallet } from '../support/sim-hush.ts';
import { ScreeningList, place, resolveOrder, simAdminCli } from '../support/sim-screening.ts';
import { teamOf } from '../support/operators.ts';

/** A label as a regular expression matches it literally. */
const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

interface Entry { id: string; at: string; trackingId: string | null; accountId: string | null; stage: string; result: string; address: string | null; actor: string; note: string | null }
interface Page { entries: Entry[]; next: string | null }

/** A formula a spreadsheet would run, and a note with every character RFC 4180 quotes. */
const FORMULA = '=HYPERLINK("http://evil.example","open me")';
const MULTILINE = 'a different person,\r\nsame "name"';

describe('the screening log: filters, paging a partner cannot defeat, CSV', () => {
  const list = new ScreeningList('blocked.txt', '# blocked during the test\n');
  let h: SimHush;
  let victim: SimAccount, attacker: SimAccount;
  let frozen: string, released: string;
  let alice: string, bob: string;
  let listed: SimWallet;

  const page = async (query: string): Promise<Page> => expectOk(await h.ops.get(`/admin/v1/screening-log${query}`)) as unknown as Page;

  before(async () => {
    h = await startSimHush({ seed: 70, env: list.env(1_000) });
    [victim, attacker] = [await h.createAccount(), await h.createAccount()];
    const funded = () => h.wallet({ sol: 100_000_000n, usdc: 50_000_000n });
    const [s1, s2] = [await funded(), await funded()];
    const order = (s: SimWallet) => place(h, victim.client, { amount: '12000000', sourceAssetId: 'usdc', destinationAssetId: 'usdc', senderAddress: s.address as Address, recipientAddress: h.address() });
    const [p1, p2] = [await order(s1), await order(s2)];
    await list.block(h, s1.address);
    await list.block(h, s2.address);
    await h.deposit(p1.order, s1);
    await h.deposit(p2.order, s2);
    for (const p of [p1, p2]) await h.waitForOrder(victim.client, p.trackingId, ['held'], 30_000);
    [frozen, released] = [p1.trackingId, p2.trackingId];
    expectOk(await resolveOrder(h, frozen, 'freeze', FORMULA));
    // A second apart, so a time range can tell the two decisions apart.
    await h.advance(1_000);
    // Bob proposes the release of this list's finding, alice approves it (four eyes).
    const team = await teamOf(h, h.ops);
    const proposal = expectOk(await team.bob.request('POST', `/admin/v1/orders/${released}/resolve`, { body: { action: 'release', note: MULTILINE } }), 202);
    expectOk(await team.alice.request('POST', `/admin/v1/approvals/${proposal.approvalId}/approve`, { body: {} }));
    [alice, bob] = [`operator:alice (${team.aliceId})`, `operator:bob (${team.bobId})`];
    listed = s1;
    // The attack: any partner key writes a log row per refused quote (the same pair each time: within its
    // budget of addresses screened, HUSH_SCREENING_RATE_LIMIT).
    const to = h.address();
    for (let i = 0; i < 120; i++) expectError(await attacker.client.quote(quoteRequest(listed.address as Address, to)), 403, 'ADDRESS_BLOCKED');
    await h.until('the refusals logged', async () => ((await page('?stage=quote&limit=1000')).entries.length >= 120) || null, 5_000, 50);
  });
  after(async () => {
    await closeSim(h);
    list.remove();
  });

  test("a partner's 120 refused quotes fill the first page; the decisions stay in view and paging reaches them", async () => {
    const first = await page('');
    assert.equal(first.entries.length, 100);
    assert.ok(first.entries.every((e) => e.stage === 'quote' && e.accountId === attacker.id), 'the newest 100 are all the refusals, each naming its partner');
    assert.ok(first.next !== null);

    const decisions = await page('?decisions=true');
    assert.deepEqual(decisions.entries.map((e) => [e.trackingId, e.result, e.actor]), [[released, 'release', bob], [frozen, 'freeze', alice]]);
    assert.equal(decisions.next, null, 'nothing older matches');
    assert.deepEqual((await page('?stage=resolution')).entries.map((e) => e.id), decisions.entries.map((e) => e.id));

    // Paging with the cursor, 50 at a time, reaches them: each page starts where the last stopped.
    const seen: Entry[] = [];
    for (let cursor: string | null = '', pages = 0; cursor !== null; pages++) {
      assert.ok(pages < 20, 'paging ends');
      const p = await page(`?limit=50${cursor ? `&before=${cursor}` : ''}`);
      seen.push(...p.entries);
      cursor = p.next;
    }
    const ids = seen.map((e) => BigInt(e.id));
    assert.deepEqual(ids, [...ids].sort((a, b) => (a > b ? -1 : 1)), 'newest first, no entry twice');
    assert.equal(new Set(ids).size, ids.length);
    assert.ok(seen.some((e) => e.trackingId === frozen && e.stage === 'resolution'), 'the decision is reached');
  });

  test('each filter: partner, stage, result, actor exact and by prefix, order, address exact and by prefix, time', async () => {
    const mine = await page(`?accountId=${victim.id}&limit=1000`);
    assert.ok(mine.entries.length >= 4 && mine.entries.every((e) => e.accountId === victim.id), "the victim's orders' rows, none of the attacker's");
    assert.deepEqual(mine.entries.filter((e) => e.stage === 'resolution').map((e) => e.trackingId), [released, frozen]);
    const theirs = await page(`?accountId=${attacker.id}&limit=1000`);
    assert.equal(theirs.entries.length, 120);
    assert.equal((await page(`?accountId=${attacker.id}&decisions=true`)).entries.length, 0, 'a partner has no decisions to show');

    const held = await page('?stage=deposit&result=blocked');
    assert.deepEqual(held.entries.map((e) => e.trackingId), [released, frozen]);
    assert.ok((await page('?result=blocked&limit=1000')).entries.every((e) => e.result === 'blocked'));
    assert.deepEqual((await page(`?actor=${encodeURIComponent(alice)}`)).entries.map((e) => e.trackingId), [frozen]);
    assert.deepEqual((await page('?actor=operator:')).entries, [], 'an actor is matched whole');
    assert.deepEqual((await page('?actorPrefix=operator:')).entries.map((e) => e.actor), [bob, alice]);
    assert.deepEqual((await page(`?trackingId=${frozen}`)).entries.map((e) => e.stage), ['resolution', 'deposit']);
    const byAddress = await page(`?address=${listed.address}&limit=1000`);
    assert.equal(byAddress.entries.length, 121, 'the refusals and the deposit it was held at');
    const byPrefix = await page(`?addressPrefix=${listed.address.slice(0, 6)}&limit=1000`);
    assert.deepEqual(byPrefix.entries.map((e) => e.id), byAddress.entries.map((e) => e.id));
    assert.ok((await page(`?addressPrefix=${listed.address.slice(0, 1)}&limit=1000`)).entries.every((e) => e.address?.startsWith(listed.address.slice(0, 1))));

    // Time: from the newest decision's time (inclusive) to a millisecond after it (exclusive).
    const newest = (await page('?decisions=true&limit=1')).entries[0]!;
    const at = Date.parse(newest.at);
    const window = await page(`?decisions=true&from=${newest.at}&to=${new Date(at + 1).toISOString()}`);
    assert.deepEqual(window.entries.map((e) => e.id), [newest.id]);
    assert.deepEqual((await page(`?decisions=true&to=${newest.at}`)).entries.map((e) => e.trackingId), [frozen], 'to is exclusive');
    assert.equal((await page(`?from=${new Date(at + 60_000).toISOString()}`)).entries.length, 0);
    assert.ok((await page(`?from=${newest.at.slice(0, 10)}&limit=5`)).entries.length > 0, 'a date is midnight UTC');
    assert.deepEqual((await page(`?to=${encodeURIComponent(newest.at.replace('Z', '+00:00'))}&decisions=true`)).entries.map((e) => e.trackingId), [frozen], 'an offset is read as one');
  });

  test('bad parameters are 400 INVALID_REQUEST saying what the parameter must be, never a 500', async () => {
    const bad: [string, RegExp][] = [
      ['limit=0', /^Invalid request: limit must be a whole number from 1 to 1000$/],
      ['limit=1001', /limit must be a whole number from 1 to 1000/],
      ['before=abc', /before must be the id of a log entry/],
      ['stage=later', /stage must be one of: "quote", "deposit"/],
      ['result=maybe', /result must be one of: "clear", "blocked"/],
      ['addressPrefix=0OIl', /addressPrefix must be 1–44 base58 characters \(no 0, O, I or l\)/],
      ['addressPrefix=', /addressPrefix must be 1–44 base58 characters/],
      ['from=yesterday', /from must be an ISO 8601 time with its zone/],
      ['from=2026-02-30', /from is not a time on the calendar \(2026-02-30\)/],
      ['to=2026-11-24T24:00:00Z', /to is not a time on the calendar/],
      ['from=2026-11-24T10:00:00', /from must be an ISO 8601 time with its zone/],
      ['from=2026-11-25&to=2026-11-24', /to must be after from/],
      ['decisions=yes', /decisions must be one of: "true", "false"/],
      ['decisions=true&stage=deposit', /decisions are the operators' entries \(stage resolution\), not stage deposit/],
      ['actor=%00', /actor must be 1–200 characters, none of them a control character/],
      [`accountId=${'a'.repeat(65)}`, /accountId must be 1–64 printable characters/],
      ['stage=quote&stage=fee', /stage/],
      ['sort=asc', /sort unknown field/],
    ];
    for (const [query, words] of bad) {
      // The export takes up to 10,000 rows: 1001 is a limit it allows.
      for (const path of query === 'limit=1001' ? ['/admin/v1/screening-log'] : ['/admin/v1/screening-log', '/admin/v1/screening-log.csv']) {
        const e = expectError(await h.ops.get(`${path}?${query}`), 400, 'INVALID_REQUEST');
        // The export's limit goes to 10,000.
        assert.match(e.message, path.endsWith('.csv') ? new RegExp(words.source.replace('1000', '10000')) : words, `${path}?${query}: ${e.message}`);
      }
    }
    expectError(await h.ops.get('/admin/v1/screening-log.csv?limit=10001'), 400, 'INVALID_REQUEST');
    expectError(await h.ops.get('/admin/v1/screening-log?decisions=true', { key: null }), 401, 'UNAUTHORIZED');
    expectError(await h.ops.get('/admin/v1/screening-log.csv', { key: null }), 401, 'UNAUTHORIZED');
  });

  test('the CSV export: the same filters, RFC 4180 quoting, formulas neutralised, cut with where to go on', async () => {
    const res = await h.ops.get('/admin/v1/screening-log.csv?decisions=true');
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'text/csv; charset=utf-8');
    assert.match(res.headers.get('content-disposition') ?? '', /^attachment; filename="screening-log-\d{8}T\d{6}Z\.csv"$/);
    assert.equal(res.headers.get('cache-control'), 'no-store');
    assert.equal(res.headers.get('x-export-next-before'), null, 'not cut');
    const [header, bobRow, aliceRow, end] = res.text.split(/\r\n(?=\d+,|$)/);
    assert.equal(header, 'id,at,trackingId,accountId,stage,field,address,result,list,version,reason,actor,approvedBy,note');
    assert.equal(end, '', 'every record ends with CRLF');
    // A note with a comma, quotes and a line break is one quoted field, its quotes doubled.
    assert.match(bobRow!, new RegExp(`^\\d+,[^,]+,${released},${victim.id},resolution,,,release,,,,${esc(bob)},${esc(alice)},"a different person,\\r\\nsame ""name"""$`));
    // A formula is shown as text: a leading apostrophe, then the field quoted for its comma and quotes.
    assert.ok(aliceRow!.endsWith(`,${alice},${bob},"'=HYPERLINK(""http://evil.example"",""open me"")"`), aliceRow);

    const cut = await h.ops.get(`/admin/v1/screening-log.csv?accountId=${attacker.id}&limit=100`);
    const records = cut.text.trimEnd().split('\r\n');
    assert.equal(records.length, 1 + 100 + 1, 'the header, 100 rows, and where it stopped');
    const next = cut.headers.get('x-export-next-before');
    assert.match(next ?? '', /^\d+$/);
    assert.equal(records.at(-1), `# cut at 100 entries: older ones match too; export again with before=${next} for them`);
    const rest = await h.ops.get(`/admin/v1/screening-log.csv?accountId=${attacker.id}&before=${next}`);
    assert.equal(rest.headers.get('x-export-next-before'), null);
    assert.equal(rest.text.trimEnd().split('\r\n').length, 1 + 20, 'the other 20, uncut');
    assert.ok(records.slice(1, -1).every((r) => r.split(',')[3] === attacker.id && r.split(',')[4] === 'quote'));
  });

  test("the admin CLI over the server's admin API: the same filters, and --csv", async () => {
    const decisions = await simAdminCli(h, ['screening-log', '--decisions']);
    assert.equal(decisions.code, 0, decisions.out);
    assert.deepEqual((JSON.parse(decisions.out) as Page).entries.map((e) => e.trackingId), [released, frozen]);
    const csv = await simAdminCli(h, ['screening-log', '--csv', '--account-id', attacker.id, '--limit', '5']);
    assert.equal(csv.code, 0, csv.out);
    const records = csv.out.trimEnd().split('\r\n');
    assert.equal(records[0], 'id,at,trackingId,accountId,stage,field,address,result,list,version,reason,actor,approvedBy,note');
    assert.equal(records.length, 1 + 5 + 1);
    assert.match(records.at(-1)!, /^# cut at 5 entries/);
    const bad = await simAdminCli(h, ['screening-log', '--address-prefix', '0']);
    assert.equal(bad.code, 1);
    assert.match(bad.out, /error INVALID_REQUEST: Invalid request: addressPrefix must be 1–44 base58 characters/);
  });
});
