/**
 * A minimal stand-in for the server's `/admin/v1` API (SPEC §3, the admin HTTP contract), built on
 * node:http over a real store with the same AdminService and view functions the real routes use. It
 * lets the admin CLI's HTTP mode be tested end to end without the full server, and records every
 * request it received.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { HushError, isHushError } from '../../src/domain/errors.ts';
import { AdminService, accountListView, accountView, createdAccountView, createdKeyView, okView, webhookView } from '../../src/services/admin-service.ts';
import type { Db } from '../../src/store/db.ts';

export interface RecordedRequest {
  method: string;
  path: string;
  authorization: string | undefined;
  contentType: string | undefined;
  body: unknown;
}

export interface AdminStub {
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function startAdminStub(db: Db, token: string): Promise<AdminStub> {
  const admin = new AdminService(db);
  const requests: RecordedRequest[] = [];

  const route = async (method: string, path: string, body: Record<string, unknown>): Promise<{ status: number; body: unknown }> => {
    let m: RegExpExecArray | null;
    if (method === 'POST' && path === '/admin/v1/accounts') {
      return { status: 201, body: createdAccountView(await admin.createAccount(body.name as string, body.feeCapBps as number | undefined)) };
    }
    if (method === 'GET' && path === '/admin/v1/accounts') return { status: 200, body: accountListView(await admin.listAccounts()) };
    if ((m = /^\/admin\/v1\/accounts\/([^/]+)$/.exec(path))) {
      const id = decodeURIComponent(m[1]!);
      if (method === 'GET') return { status: 200, body: accountView(await admin.getAccount(id)) };
      if (method === 'PATCH') return { status: 200, body: accountView(await admin.updateAccount(id, body)) };
    }
    if (method === 'POST' && (m = /^\/admin\/v1\/accounts\/([^/]+)\/keys$/.exec(path))) {
      return { status: 201, body: createdKeyView(await admin.createKey(decodeURIComponent(m[1]!), body.expiresAt as string | undefined)) };
    }
    if (method === 'DELETE' && (m = /^\/admin\/v1\/keys\/([^/]+)$/.exec(path))) {
      await admin.revokeKey(decodeURIComponent(m[1]!));
      return { status: 200, body: okView() };
    }
    if (method === 'POST' && (m = /^\/admin\/v1\/accounts\/([^/]+)\/fee-recipients$/.exec(path))) {
      await admin.registerFeeRecipient(decodeURIComponent(m[1]!), body.address as string);
      return { status: 200, body: okView() };
    }
    if (method === 'DELETE' && (m = /^\/admin\/v1\/accounts\/([^/]+)\/fee-recipients\/([^/]+)$/.exec(path))) {
      await admin.unregisterFeeRecipient(decodeURIComponent(m[1]!), decodeURIComponent(m[2]!));
      return { status: 200, body: okView() };
    }
    if ((m = /^\/admin\/v1\/accounts\/([^/]+)\/webhook$/.exec(path))) {
      const id = decodeURIComponent(m[1]!);
      if (method === 'PUT') return { status: 200, body: webhookView(await admin.setWebhook(id, body.url)) };
      if (method === 'DELETE') return { status: 200, body: (await admin.clearWebhook(id), okView()) };
    }
    throw new HushError('NOT_FOUND', 'Route not found');
  };

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    void (async () => {
      const requestId = randomUUID();
      const send = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json', 'x-request-id': requestId });
        res.end(JSON.stringify(body));
      };
      const path = (req.url ?? '/').split('?')[0]!;
      const raw = await readBody(req);
      if (path === '/healthz') return send(200, { success: true });
      let body: unknown = undefined;
      try {
        body = raw ? JSON.parse(raw) : undefined;
      } catch {
        return send(400, { success: false, error: { code: 'INVALID_REQUEST', message: 'Malformed JSON', requestId } });
      }
      requests.push({ method: req.method ?? '', path, authorization: req.headers.authorization, contentType: req.headers['content-type'], body });
      if (req.headers.authorization !== `Bearer ${token}`) {
        return send(401, { success: false, error: { code: 'UNAUTHORIZED', message: 'Missing or invalid admin token', requestId } });
      }
      try {
        const r = await route(req.method ?? '', path, (body ?? {}) as Record<string, unknown>);
        send(r.status, r.body);
      } catch (e) {
        if (isHushError(e)) send(e.httpStatus, { success: false, error: { ...e.toWire(), requestId } });
        else send(500, { success: false, error: { code: 'INTERNAL_ERROR', message: 'Internal error', requestId } });
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
