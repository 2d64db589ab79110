/** The admin CLI's commands: each as an HTTP request to /admin/v1 and as a direct call on the store. */
import { HushError } from '../domain/errors.ts';
import {
  accountListView,
  accountView,
  createdAccountView,
  createdKeyView,
  okView,
  webhookView,
} from '../admin/admin-service.ts';
import { getOrderByTrackingId } from '../store/orders-store.ts';
import { reconcile } from '../ledger/reconcile.ts';
import { RecoverService } from '../admin/recover-service.ts';
import { StrayFundsService } from '../admin/stray-funds-service.ts';
import { treasuryReport } from '../treasury/funding.ts';
import { listScreeningLog } from '../store/screening-log-store.ts';
import { HoldsService } from '../admin/holds-service.ts';
import { OPERATOR_COMMANDS } from './operator-commands.ts';
import { SCREENING_OFF } from '../screening/screening-port.ts';
import { LOG_EXPORT_WORDS, LOG_PAGE_WORDS, LogExportQuery, LogQuery, logFilterOf } from '../admin/log-query.ts';
import { LOG_EXPORT_MAX, logCsv, logPage } from '../admin/screening-log-views.ts';
import { HOLDS_WORDS, HoldsQuery, holdsAnswer, holdsPageOf } from '../admin/holds-query.ts';
import { checkQuery } from '../admin/query-words.ts';
import { queryString } from './admin-query-flags.ts';
import { HOLD_COMMANDS } from './admin-hold-commands.ts';

import { FileText, type Command, type DirectContext, type HttpRequest, type OptionName, type ParsedOptions } from './admin-command-shape.ts';

export { FileText, type Command, type DirectContext, type HttpRequest, type OptionName, type ParsedOptions };

const seg = encodeURIComponent;
const KEY_NOTE = 'store this API key now; it cannot be shown again (only its hash is kept).';

/** The chain a direct-mode command needs is not there (a message for the operator, not a store failure). */
export class ChainUnreachable extends Error {}

export const COMMANDS: Record<string, Command> = {
  'create-account': {
    args: ['name'],
    options: ['fee-cap-bps'],
    summary: 'create an account and its first API key',
    issuesSecret: KEY_NOTE,
    http: ([name], o) => ({ method: 'POST', path: '/admin/v1/accounts', body: { name, ...(o.feeCapBps === undefined ? {} : { feeCapBps: o.feeCapBps }) } }),
    direct: async (admin, [name], o) => createdAccountView(await admin.createAccount(name!, o.feeCapBps)),
  },
  'create-key': {
    args: ['accountId'],
    options: ['expires-at'],
    summary: 'issue another API key for an account',
    issuesSecret: KEY_NOTE,
    http: ([id], o) => ({ method: 'POST', path: `/admin/v1/accounts/${seg(id!)}/keys`, body: o.expiresAt === undefined ? {} : { expiresAt: o.expiresAt } }),
    direct: async (admin, [id], o) => createdKeyView(await admin.createKey(id!, o.expiresAt)),
  },
  'revoke-key': {
    args: ['keyId'],
    options: [],
    summary: 'revoke an API key',
    http: ([keyId]) => ({ method: 'DELETE', path: `/admin/v1/keys/${seg(keyId!)}` }),
    direct: async (admin, [keyId]) => (await admin.revokeKey(keyId!), okView()),
  },
  'register-fee-recipient': {
    args: ['accountId', 'address'],
    options: [],
    summary: 'allow a fee-recipient address for an account',
    http: ([id, address]) => ({ method: 'POST', path: `/admin/v1/accounts/${seg(id!)}/fee-recipients`, body: { address } }),
    direct: async (admin, [id, address]) => (await admin.registerFeeRecipient(id!, address!), okView()),
  },
  'unregister-fee-recipient': {
    args: ['accountId', 'address'],
    options: [],
    summary: 'remove a fee-recipient address from an account',
    http: ([id, address]) => ({ method: 'DELETE', path: `/admin/v1/accounts/${seg(id!)}/fee-recipients/${seg(address!)}` }),
    direct: async (admin, [id, address]) => (await admin.unregisterFeeRecipient(id!, address!), okView()),
  },
  'set-webhook': {
    args: ['accountId', 'url'],
    options: [],
    summary: "send the account's order events to url (a new signing secret, shown once)",
    issuesSecret: 'store this signing secret now in the receiver that verifies the Standard Webhooks signature (webhook-id, webhook-timestamp, webhook-signature headers; the SDK\'s verifyWebhook); this command does not show it again.',
    http: ([id, url]) => ({ method: 'PUT', path: `/admin/v1/accounts/${seg(id!)}/webhook`, body: { url } }),
    direct: async (admin, [id, url]) => webhookView(await admin.setWebhook(id!, url)),
  },
  'clear-webhook': {
    args: ['accountId'],
    options: [],
    summary: "stop sending the account's order events",
    http: ([id]) => ({ method: 'DELETE', path: `/admin/v1/accounts/${seg(id!)}/webhook` }),
    direct: async (admin, [id]) => (await admin.clearWebhook(id!), okView()),
  },
  'set-fee-cap': {
    args: ['accountId', 'bps'],
    options: [],
    summary: 'set the account fee cap in basis points (0..1000)',
    http: ([id, bps]) => ({ method: 'PATCH', path: `/admin/v1/accounts/${seg(id!)}`, body: { feeCapBps: Number(bps) } }),
    direct: async (admin, [id, bps]) => accountView(await admin.setFeeCap(id!, Number(bps))),
  },
  suspend: {
    args: ['accountId'],
    options: [],
    summary: "suspend an account (its keys get 403 ACCOUNT_SUSPENDED)",
    http: ([id]) => ({ method: 'PATCH', path: `/admin/v1/accounts/${seg(id!)}`, body: { status: 'suspended' } }),
    direct: async (admin, [id]) => accountView(await admin.suspend(id!)),
  },
  reactivate: {
    args: ['accountId'],
    options: [],
    summary: 'reactivate a suspended account',
    http: ([id]) => ({ method: 'PATCH', path: `/admin/v1/accounts/${seg(id!)}`, body: { status: 'active' } }),
    direct: async (admin, [id]) => accountView(await admin.reactivate(id!)),
  },
  'list-accounts': {
    args: [],
    options: [],
    readOnly: true,
    summary: 'list accounts (no secrets)',
    http: () => ({ method: 'GET', path: '/admin/v1/accounts' }),
    direct: async (admin) => accountListView(await admin.listAccounts()),
  },
  'show-account': {
    args: ['accountId'],
    options: [],
    readOnly: true,
    summary: 'show an account with its keys (ids and dates only)',
    http: ([id]) => ({ method: 'GET', path: `/admin/v1/accounts/${seg(id!)}` }),
    direct: async (admin, [id]) => accountView(await admin.getAccount(id!)),
  },
  treasury: {
    args: [],
    options: [],
    readOnly: true,
    summary: 'balances of the fee payer and every pool against their targets, and what is missing',
    http: () => ({ method: 'GET', path: '/admin/v1/treasury' }),
    direct: async (_admin, _args, _opts, ctx) => {
      const t = await ctx.treasury();
      const wallets = await treasuryReport(t.chain, t.treasury, t.config.assets);
      return { success: true, funded: wallets.every((w) => w.missing === '0'), wallets };
    },
  },
  reconcile: {
    args: [],
    options: [],
    readOnly: true,
    summary: 'compare the ledger with on-chain balances, per asset and account',
    http: () => ({ method: 'GET', path: '/admin/v1/reconcile' }),
    direct: async (_admin, _args, _opts, ctx) => {
      const t = await ctx.treasury();
      return { success: true, ...(await reconcile(ctx.db, t.chain, t.treasury, t.config.assets)) };
    },
  },
  recover: {
    args: [],
    options: [],
    readOnly: true,
    summary: 'whether payouts are paused by the chain check, and the transactions of Hush the store cannot explain (docs/operations.md)',
    http: () => ({ method: 'GET', path: '/admin/v1/recover' }),
    direct: async (_admin, _args, _opts, ctx) => ({ success: true, ...(await new RecoverService(ctx.db).status()) }),
  },
  'recover-resume': {
    args: ['signatures'],
    options: [],
    summary: 'acknowledge the unexplained transactions you were shown (comma-separated signatures, or "none") and resume payouts (an approver)',
    http: ([sigs]) => ({ method: 'POST', path: '/admin/v1/recover/resume', body: { seen: signaturesOf(sigs!) } }),
    direct: async (_admin, [sigs], _opts, ctx) => ({ success: true, ...(await new RecoverService(ctx.db).resume(signaturesOf(sigs!), 'admin-cli (direct, on the store)')) }),
  },
  'return-stray': {
    args: ['trackingId'],
    options: [],
    summary: "return funds sent to an order's deposit address outside its deposit account to the order's sender",
    http: ([id]) => ({ method: 'POST', path: `/admin/v1/orders/${seg(id!)}/return-stray` }),
    direct: async (_admin, [id], _opts, ctx) => {
      // An unknown order is NOT_FOUND whether or not the chain is up.
      if (!(await getOrderByTrackingId(ctx.db, id!))) throw new HushError('NOT_FOUND', `No order ${id}`);
      const t = await ctx.treasury();
      return { success: true, ...(await new StrayFundsService(t.config, ctx.db, t.chain, t.treasury, () => {}, ctx.clock, ctx.random).returnStray(id!)) };
    },
  },
  'screening-log': {
    args: [],
    options: [],
    query: 'log',
    csv: true,
    readOnly: true,
    summary: 'the screening log, newest first (refusals at quote, holds, resolutions), filtered; --csv: as a CSV file (at most 10,000 rows)',
    http: (_args, o) =>
      o.csv ? { method: 'GET', path: `/admin/v1/screening-log.csv${queryString(o.query)}`, text: true } : { method: 'GET', path: `/admin/v1/screening-log${queryString(o.query)}` },
    // The admin API's answer and checks, read from the store.
    direct: async (_admin, _args, o, ctx) => {
      const q = o.query ?? {};
      checkQuery(o.csv ? LogExportQuery : LogQuery, q, o.csv ? LOG_EXPORT_WORDS : LOG_PAGE_WORDS);
      const filter = logFilterOf(q);
      const limit = Number(q.limit ?? (o.csv ? LOG_EXPORT_MAX : 100));
      const rows = await listScreeningLog(ctx.db, { ...filter, limit: limit + 1 });
      return o.csv ? new FileText(logCsv(rows, limit).csv) : { success: true, ...logPage(rows, limit) };
    },
  },
  holds: {
    args: [],
    options: [],
    query: 'holds',
    readOnly: true,
    summary: 'orders and funds (late funds, fee recipients) held by screening, oldest first, with what held each and how many in all (docs/compliance.md), filtered',
    http: (_args, o) => ({ method: 'GET', path: `/admin/v1/holds${queryString(o.query)}` }),
    // The admin API's answer, read from the store: the fund holds, the counts and the next pages too, not the held orders alone.
    direct: async (_admin, _args, o, ctx) => {
      checkQuery(HoldsQuery, o.query ?? {}, HOLDS_WORDS);
      const s = new HoldsService(ctx.db, SCREENING_OFF);
      const reader = { holds: s.list.bind(s), fundHolds: s.listFunds.bind(s), holdCounts: s.counts.bind(s) };
      return { success: true, ...(await holdsAnswer(reader, holdsPageOf(o.query ?? {}))) };
    },
  },
  ...OPERATOR_COMMANDS,
  ...HOLD_COMMANDS,
};

/** recover-resume's list: signatures separated by commas, or `none` (a pause with nothing unexplained). */
function signaturesOf(list: string): string[] {
  return list === 'none' ? [] : list.split(',').map((x) => x.trim()).filter((x) => x.length > 0);
}
