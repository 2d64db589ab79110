import type { FastifyRequest } from 'fastify';
import { HushError } from '../domain/errors.ts';

/**
 * What an operator may do (docs/spec.md §12 "Named operators"): a viewer reads; a resolver also answers holds
 * (claims, comments, releases, refunds, and proposes what needs four eyes); an approver also approves another
 * operator's proposal. `automation` is the shared HUSH_ADMIN_TOKEN: everything but approving (it is no person).
 */
export type OperatorRole = 'viewer' | 'resolver' | 'approver';
export type AdminRole = OperatorRole | 'automation';

/** Who is asking on /admin/v1: a named operator (console session or personal token) or the shared token. */
export interface AdminActor {
  kind: 'operator' | 'automation';
  /** The operator's id (`op_…`); null for the shared token. */
  operatorId: string | null;
  /** The operator's name as registered (any Unicode), or `admin-token`. */
  name: string;
  role: AdminRole;
  /** What the screening log records as `actor`: `operator:<id> <name>`, or `admin-token`. */
  label: string;
}

export const AUTOMATION: AdminActor = Object.freeze({ kind: 'automation', operatorId: null, name: 'admin-token', role: 'automation', label: 'admin-token' });

const RANK: Record<AdminRole, number> = { viewer: 0, resolver: 1, approver: 2, automation: 1 };

/** The actor the admin authentication hook attached to this request (src/api/routes/admin-routes.ts). */
export function actorOf(request: FastifyRequest): AdminActor {
  const actor = (request as FastifyRequest & { adminActor?: AdminActor }).adminActor;
  if (!actor) throw new HushError('UNAUTHORIZED', 'Missing or invalid admin credentials');
  return actor;
}

export function setActor(request: FastifyRequest, actor: AdminActor): void {
  (request as FastifyRequest & { adminActor?: AdminActor }).adminActor = actor;
}

/** A named operator as the log names them: `operator:<name> (<id>)` (the id last: a name may hold anything). */
export function operatorActor(o: { operatorId: string; name: string; role: OperatorRole }): AdminActor {
  return { kind: 'operator', operatorId: o.operatorId, name: o.name, role: o.role, label: `operator:${o.name} (${o.operatorId})` };
}

/**
 * The request's actor, refused 403 FORBIDDEN unless its role reaches `need`. Approving is for a named approver
 * only: the shared token, whoever holds it, is not a second person. Managing accounts, keys and operators
 * (`manager`) is for an approver or the deployment's automation.
 */
export function requireRole(request: FastifyRequest, need: 'resolver' | 'approver' | 'manager'): AdminActor {
  const actor = actorOf(request);
  const ok = need === 'approver' ? actor.role === 'approver' : need === 'manager' ? actor.role === 'approver' || actor.role === 'automation' : RANK[actor.role] >= RANK[need];
  if (!ok) throw new HushError('FORBIDDEN', `This needs the ${need} role; ${actor.name} is ${actor.role === 'automation' ? 'the shared admin token' : `a ${actor.role}`}`, { role: actor.role });
  return actor;
}
