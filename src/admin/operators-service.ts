import { HushError } from '../domain/errors.ts';
import { hashSecret, secretMatches } from '../services/api-keys.ts';
import type { Db } from '../store/db.ts';
import type { Random } from '../support/random.ts';
import { getOperator, insertOperator, listOperators, operatorForSignIn, updateOperator, type OperatorRecord, type OperatorRole } from '../store/operators/operators-store.ts';
import { insertOperatorToken, listOperatorTokens, revokeOperatorToken, tokenCredential, touchOperatorToken, type OperatorTokenView } from '../store/operators/operator-tokens-store.ts';
import { endOperatorSession, insertOperatorSession, useOperatorSession } from '../store/operators/operator-sessions-store.ts';

export const OPERATOR_ROLES: readonly OperatorRole[] = ['viewer', 'resolver', 'approver'];

/** A person as the admin API knows them after authenticating (the API layer makes its actor of it). */
export interface NamedOperator {
  operatorId: string;
  name: string;
  role: OperatorRole;
}

const ALPHABET = 'abcdefghijkmnpqrstuvwxyz23456789';
// Controls, and the bidirectional embeddings, overrides and isolates that make a log line read other than it is
// stored; every other character of any script is a name (a Persian ZWNJ, an emoji's ZWJ included).
const NOT_IN_A_NAME = /[\p{Cc}\u2028\u2029\u202a-\u202e\u2066-\u2069]/u;
const TOKEN = /^hush_op_([a-z2-9]{12})_([A-Za-z0-9_-]{43})$/;

/** An operator's name as the log will show it: NFC, trimmed, 1–100 characters of any script. */
export function operatorName(raw: unknown): string {
  const name = typeof raw === 'string' ? raw.normalize('NFC').trim() : '';
  if ([...name].length < 1 || [...name].length > 100) throw new HushError('INVALID_REQUEST', 'name must be 1–100 characters', { field: 'name' });
  if (NOT_IN_A_NAME.test(name)) throw new HushError('INVALID_REQUEST', 'name must not hold control or text-direction characters', { field: 'name' });
  return name;
}

/**
 * An email as registrations are matched: ASCII letters lower-cased, nothing else. Unicode's case mapping would make
 * another address one of ours (U+212A KELVIN SIGN lower-cases to `k`): the provider verified the address it names.
 */
export const emailKey = (email: string): string => email.replace(/[A-Z]/g, (c) => c.toLowerCase());

/** The token's id when `presented` has the form of a personal token (for throttling its failures per credential). */
export function personalTokenId(presented: string): string | null {
  return TOKEN.exec(presented)?.[1] ?? null;
}

/**
 * docs/spec.md §12 "Named operators": registering people and their roles (the deployment's automation does,
 * with HUSH_ADMIN_TOKEN), their personal tokens for the CLI, console sessions, and authenticating each.
 * Secrets are random (the Random port), kept only as sha256.
 */
export class OperatorsService {
  constructor(
    private readonly db: Db,
    private readonly random: Random,
    /** Console sessions end after this long without a request, and after `sessionMaxS` in any case. */
    readonly sessionIdleS = 15 * 60,
    readonly sessionMaxS = 12 * 3600,
  ) {}

  private id(prefix: string, n = 12): string {
    const b = this.random.bytes(n);
    return prefix + [...b].map((x) => ALPHABET[x % ALPHABET.length]).join('');
  }

  async create(input: { name: unknown; role: unknown; email?: unknown; subject?: unknown }): Promise<OperatorRecord> {
    const name = operatorName(input.name);
    if (!OPERATOR_ROLES.includes(input.role as OperatorRole)) throw new HushError('INVALID_REQUEST', 'role must be viewer, resolver or approver', { field: 'role' });
    const email = typeof input.email === 'string' && input.email.trim() ? emailKey(input.email.trim()) : null;
    const subject = typeof input.subject === 'string' && input.subject ? input.subject : null;
    // Neither: a CLI-only operator, who signs in with a personal token the automation issues them.
    const created = await insertOperator(this.db, { id: this.id('op_'), name, role: input.role as OperatorRole, email, subject });
    if (!created) throw new HushError('INVALID_REQUEST', 'Another operator already has this email or OpenID subject', { field: email ? 'email' : 'subject' });
    return created;
  }

  list(): Promise<OperatorRecord[]> {
    return listOperators(this.db);
  }

  async update(operatorId: string, patch: { role?: OperatorRole; disabled?: boolean }): Promise<OperatorRecord> {
    const o = await updateOperator(this.db, operatorId, patch);
    if (!o) throw new HushError('NOT_FOUND', `No operator ${operatorId}`);
    return o;
  }

  /** A new personal token, `hush_op_<tokenId>_<secret>`: the whole of it is shown once. */
  async mintToken(operatorId: string, opts: { label?: string | null; expiresInDays?: number | null } = {}): Promise<{ token: string } & OperatorTokenView> {
    const o = await getOperator(this.db, operatorId);
    if (!o) throw new HushError('NOT_FOUND', `No operator ${operatorId}`);
    if (o.disabledAt) throw new HushError('INVALID_REQUEST', 'The operator is disabled', { field: 'operatorId' });
    const tokenId = this.id('', 12);
    const secret = this.random.bytes(32).toString('base64url');
    const view = await insertOperatorToken(this.db, {
      id: tokenId,
      operatorId,
      secretHash: hashSecret(secret),
      label: opts.label ?? null,
      expiresInS: opts.expiresInDays ? Math.round(opts.expiresInDays * 86_400) : null,
    });
    return { token: `hush_op_${tokenId}_${secret}`, ...view };
  }

  tokens(operatorId: string): Promise<OperatorTokenView[]> {
    return listOperatorTokens(this.db, operatorId);
  }

  async revokeToken(operatorId: string, tokenId: string): Promise<OperatorTokenView> {
    const t = await revokeOperatorToken(this.db, operatorId, tokenId);
    if (!t) throw new HushError('NOT_FOUND', `No token ${tokenId} of this operator`);
    return t;
  }

  /** The operator a presented personal token names, or null (unknown, wrong secret, revoked, expired, operator disabled). */
  async byToken(presented: string): Promise<NamedOperator | null> {
    const m = TOKEN.exec(presented);
    if (!m) return null;
    const c = await tokenCredential(this.db, m[1]!);
    // The hash is compared even for a dead token: the answer's time says nothing about which of the two it was.
    const same = c !== null && secretMatches(m[2]!, c.secretHash);
    if (!c || !same || !c.live) return null;
    await touchOperatorToken(this.db, m[1]!);
    return { operatorId: c.operatorId, name: c.name, role: c.role };
  }

  /** The operator an OpenID sign-in names (by subject, or a registered verified email binding it), or null. */
  async bySignIn(subject: string, verifiedEmail: string | null): Promise<NamedOperator | null> {
    const o = await operatorForSignIn(this.db, subject, verifiedEmail === null ? null : emailKey(verifiedEmail));
    return o && !o.disabledAt ? { operatorId: o.operatorId, name: o.name, role: o.role } : null;
  }

  /** A new console session for the operator: the cookie's value (random; only its hash is kept). */
  async openSession(operatorId: string): Promise<string> {
    const value = this.random.bytes(32).toString('base64url');
    await insertOperatorSession(this.db, hashSecret(value), operatorId);
    return value;
  }

  /** The operator of a live session, its idle clock restarted when `active` (a person's request, not the page's own refresh); null when it ended, idled out or aged out. */
  bySession(value: string, active = true): Promise<NamedOperator | null> {
    return useOperatorSession(this.db, hashSecret(value), this.sessionIdleS, this.sessionMaxS, active);
  }

  endSession(value: string): Promise<void> {
    return endOperatorSession(this.db, hashSecret(value));
  }
}
