/**
 * The admin CLI's commands on claims, comments and the history of holds (docs/spec.md §12 "Claims, comments,
 * history"), each as an HTTP request to /admin/v1 and as a direct call on the store. A hold is named as the queue
 * names it: an order's tracking id (`trk_…`), or a fund hold's id (digits). Who: through the server, whoever its
 * token is (HUSH_OPERATOR_TOKEN: you; the shared token: `admin-token`); straight on the store, `admin-cli`, as a
 * resolution from there is (no person is there to name).
 */
import { fundHoldRef, HoldNotesService, orderHoldRef, type HoldRef } from '../admin/hold-notes-service.ts';
import type { Command, HttpRequest } from './admin-command-shape.ts';
import { queryString } from './admin-query-flags.ts';

const seg = encodeURIComponent;
const isFundHold = (hold: string) => /^[0-9]+$/.test(hold);
const refOf = (hold: string): HoldRef => (isFundHold(hold) ? fundHoldRef(hold) : orderHoldRef(hold));
const pathOf = (hold: string) => (isFundHold(hold) ? `/admin/v1/holds/${seg(hold)}` : `/admin/v1/orders/${seg(hold)}`);
const STORE = { by: 'admin-cli', operatorId: null };

function post(path: string, body: Record<string, unknown>): HttpRequest {
  return { method: 'POST', path, body };
}

export const HOLD_COMMANDS: Record<string, Command> = {
  claim: {
    args: ['hold'],
    options: ['take-over'],
    summary: "claim a hold (a trk_… order or a fund hold's id) so colleagues see you are on it; another's claim only with --take-over",
    http: ([hold], o) => post(`${pathOf(hold!)}/claim`, { takeOver: o.takeOver === true }),
    direct: async (_admin, [hold], o, ctx) => ({ success: true, claim: await new HoldNotesService(ctx.db).claim(refOf(hold!), STORE, o.takeOver === true) }),
  },
  unclaim: {
    args: ['hold'],
    options: ['take-over'],
    summary: "end your claim on a hold (another's only with --take-over)",
    http: ([hold], o) => post(`${pathOf(hold!)}/unclaim`, { takeOver: o.takeOver === true }),
    direct: async (_admin, [hold], o, ctx) => ({ success: true, claim: await new HoldNotesService(ctx.db).unclaim(refOf(hold!), STORE, o.takeOver === true) }),
  },
  comment: {
    args: ['hold', 'text'],
    options: [],
    summary: 'comment on a hold without resolving it (1–500 characters, one line)',
    http: ([hold, text]) => post(`${pathOf(hold!)}/comments`, { text }),
    direct: async (_admin, [hold, text], _o, ctx) => ({ success: true, comment: await new HoldNotesService(ctx.db).comment(refOf(hold!), STORE, text) }),
  },
  history: {
    args: [],
    options: [],
    query: 'history',
    readOnly: true,
    summary: 'holds resolved, newest first: who, when, the decision, the note, the comments (--before: the last page\'s next)',
    http: (_args, o) => ({ method: 'GET', path: `/admin/v1/holds/history${queryString(o.query)}` }),
    direct: async (_admin, _args, o, ctx) => {
      // Checked as the admin API checks them: a limit of 1–100 (else 400 INVALID_REQUEST), a cursor of r… or c….
      const { limit, before } = o.query ?? {};
      return { success: true, ...(await new HoldNotesService(ctx.db).history(limit === undefined ? undefined : /^[0-9]{1,3}$/.test(limit) ? Number(limit) : NaN, before)) };
    },
  },
};
