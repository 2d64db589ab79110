/** The admin CLI's commands for named operators and four eyes (docs/spec.md §12 "Named operators", "Four eyes"). */
import { HushError } from '../domain/errors.ts';
import { ApprovalsService, type Decider } from '../admin/approvals-service.ts';
import { HoldsService } from '../admin/holds-service.ts';
import { OperatorsService } from '../admin/operators-service.ts';
import { buildScreening } from '../runtime/build-screening.ts';
import { Closers } from '../runtime/closers.ts';
import { listAwaiting } from '../store/operators/hold-approvals-store.ts';
import { systemRandom } from '../support/random.ts';
import type { Command } from './admin-command-shape.ts';

const seg = encodeURIComponent;
/** Straight on the store there is no person: what the CLI does there is the deployment's automation's, and says so. */
const STORE: Decider = { label: 'admin-cli', operatorId: null, role: 'automation' };
const needsServer = (what: string) => new HushError('FORBIDDEN', `${what} takes a named operator: run it against the server with HUSH_OPERATOR_TOKEN (your personal token)`, { role: 'automation' });

export const OPERATOR_COMMANDS: Record<string, Command> = {
  resolve: {
    args: ['trackingId', 'action', 'note'],
    options: [],
    summary: 'answer a held order: release (settlement goes on), refund (to the sender, never a blocked one) or freeze (final; funds booked apart); a freeze or a release of a sanctions-list finding awaits a second operator\'s approval; the note says why',
    http: ([id, action, note]) => ({ method: 'POST', path: `/admin/v1/orders/${seg(id!)}/resolve`, body: { action, note } }),
    direct: async (_admin, [id, action, note], _opts, ctx) => {
      // The same screening the server runs, read once: a refund is refused to a sender now blocked.
      const closers = new Closers();
      try {
        const screening = await buildScreening(ctx.config(), () => {}, () => {}, closers, ctx.clock);
        return { success: true, ...(await new ApprovalsService(ctx.db, new HoldsService(ctx.db, screening)).resolveOrder(id!, action as never, note!, STORE)) };
      } finally {
        await closers.closeAll();
      }
    },
  },
  approvals: {
    args: [],
    options: [],
    readOnly: true,
    summary: 'answers to holds awaiting a second operator (four eyes), oldest first',
    http: () => ({ method: 'GET', path: '/admin/v1/approvals' }),
    direct: async (_admin, _args, _opts, ctx) => ({ success: true, approvals: await listAwaiting(ctx.db) }),
  },
  approve: {
    args: ['approvalId', 'note'],
    options: [],
    summary: "approve another operator's proposal (an approver, with HUSH_OPERATOR_TOKEN): it is carried out, naming you both",
    http: ([id, note]) => ({ method: 'POST', path: `/admin/v1/approvals/${seg(id!)}/approve`, body: { note } }),
    direct: async () => {
      throw needsServer('Approving');
    },
  },
  reject: {
    args: ['approvalId', 'note'],
    options: [],
    summary: "reject another operator's proposal (an approver), or withdraw your own: the hold stays as it is",
    http: ([id, note]) => ({ method: 'POST', path: `/admin/v1/approvals/${seg(id!)}/reject`, body: { note } }),
    direct: async () => {
      throw needsServer('Rejecting');
    },
  },
  whoami: {
    args: [],
    options: [],
    summary: 'who the server takes you for: your name, role, and what the log records',
    http: () => ({ method: 'GET', path: '/admin/v1/me' }),
    direct: async () => ({ success: true, operator: { kind: STORE.role, operatorId: null, name: STORE.label, role: STORE.role, logsAs: STORE.label } }),
  },
  operators: {
    args: [],
    options: [],
    readOnly: true,
    summary: 'the named operators and their roles',
    http: () => ({ method: 'GET', path: '/admin/v1/operators' }),
    direct: async (_admin, _args, _opts, ctx) => ({ success: true, operators: await new OperatorsService(ctx.db, systemRandom).list() }),
  },
  'add-operator': {
    args: ['name', 'role'],
    options: ['email'],
    summary: 'register a person (any name) as viewer, resolver or approver; --email binds their first single sign-on',
    http: ([name, role], o) => ({ method: 'POST', path: '/admin/v1/operators', body: { name, role, ...(o.email ? { email: o.email } : {}) } }),
    direct: async (_admin, [name, role], o, ctx) => ({ success: true, operator: await new OperatorsService(ctx.db, systemRandom).create({ name, role, email: o.email }) }),
  },
  'set-operator': {
    args: ['operatorId', 'role-or-disabled'],
    options: [],
    summary: "change an operator's role (viewer, resolver, approver), or `disabled` / `enabled`: their sessions and tokens follow at once",
    http: ([id, what]) => ({ method: 'PATCH', path: `/admin/v1/operators/${seg(id!)}`, body: what === 'disabled' || what === 'enabled' ? { disabled: what === 'disabled' } : { role: what } }),
    direct: async (_admin, [id, what], _opts, ctx) => ({
      success: true,
      operator: await new OperatorsService(ctx.db, systemRandom).update(id!, what === 'disabled' || what === 'enabled' ? { disabled: what === 'disabled' } : { role: what as never }),
    }),
  },
  'operator-token': {
    args: ['operatorId'],
    options: [],
    summary: "issue an operator's personal token for the CLI (shown once; only without single sign-on: with it, they create their own)",
    issuesSecret: 'the token is shown once; give it to that operator alone, who sets it as HUSH_OPERATOR_TOKEN',
    http: ([id]) => ({ method: 'POST', path: `/admin/v1/operators/${seg(id!)}/tokens`, body: { label: 'admin-cli' } }),
    direct: async (_admin, [id], _opts, ctx) => {
      if (ctx.config().oidc) throw new HushError('FORBIDDEN', 'Single sign-on is configured: the operator signs in to the console and creates their own token', { role: 'automation' });
      return { success: true, ...(await new OperatorsService(ctx.db, systemRandom).mintToken(id!, { label: 'admin-cli', expiresInDays: 90 })) };
    },
  },
};
