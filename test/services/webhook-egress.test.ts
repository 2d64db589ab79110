/**
 * Webhook egress (docs/spec.md §3, Webhooks; issue 35 finding 7), on the delivery function itself: real
 * HTTP to a real receiver on 127.0.0.1 that counts every TCP connection, real DNS for `localhost`, and a
 * resolver of the test's own for names (a name a partner could repoint at any time).
 *
 * Production policy (a real cluster): no private, loopback, link-local, metadata or reserved address is
 * connected to, however it is spelled or whatever name resolves to it; nothing reaches the receiver.
 * Embedded dev mode: this machine over http or https, and still nothing else private. Redirects are
 * answers, never followed.
 */
import assert from 'node:assert/strict';
import type { LookupAddress } from 'node:dns';
import { createServer, type Server } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { postWebhook } from '../../src/webhooks/webhook-delivery.ts';
import { EgressRefusedError, WebhookEgress } from '../../src/webhooks/webhook-egress.ts';
import { validateWebhookUrl } from '../../src/admin/admin-service.ts';
import { isHushError } from '../../src/domain/errors.ts';

interface Receiver {
  port: number;
  connections: number;
  hosts: string[];
  close(): Promise<void>;
}

async function receiver(answer: (res: import('node:http').ServerResponse) => void = (res) => res.writeHead(204).end()): Promise<Receiver> {
  const r = { connections: 0, hosts: [] as string[] } as Receiver;
  const server: Server = createServer((req, res) => {
    r.hosts.push(String(req.headers.host));
    req.resume();
    req.on('end', () => answer(res));
  });
  server.on('connection', () => r.connections++);
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  r.port = (server.address() as { port: number }).port;
  r.close = () => new Promise((ok) => server.close(() => ok()));
  return r;
}

const SECRET = `whsec_${Buffer.alloc(24, 1).toString('base64')}`;
const post = (egress: WebhookEgress, url: string) => postWebhook(egress, url, 'evt_test', '{}', [SECRET], AbortSignal.timeout(3_000), new Date());

/** A resolver that answers from a table and counts its calls: the only one the connection may use. */
function table(names: Record<string, string[]>): { resolve: (h: string) => Promise<LookupAddress[]>; calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    resolve: async (h) => {
      calls.push(h);
      const a = names[h];
      if (!a) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${h}`), { code: 'ENOTFOUND' });
      return a.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    },
  };
}

async function refused(p: Promise<number>, what: string): Promise<void> {
  await assert.rejects(p, (e: unknown) => e instanceof EgressRefusedError, `${what} is refused before any connection`);
}

describe('webhook egress: production (a real cluster)', () => {
  let r: Receiver;
  before(async () => (r = await receiver()));
  after(() => r.close());

  test('metadata, private, loopback, link-local, CGNAT, unspecified and IPv4-mapped literals are refused; nothing connects', async () => {
    const egress = new WebhookEgress({ loopback: false });
    for (const url of [
      'https://169.254.169.254/latest/meta-data/iam/security-credentials/',
      'https://[fd00:ec2::254]/latest/meta-data/',
      'https://100.100.100.200/latest/meta-data/',
      'https://10.0.0.7/hooks',
      'https://172.16.3.4/hooks',
      'https://192.168.1.1/hooks',
      'https://[fc00::1]/hooks',
      'https://[fe80::1]/hooks',
      'https://0.0.0.0/hooks',
      'https://[::]/hooks',
      'https://224.0.0.1/hooks',
      'https://255.255.255.255/hooks',
      `http://127.0.0.1:${r.port}/hooks`,
      `https://127.0.0.1:${r.port}/hooks`,
      `https://2130706433:${r.port}/hooks`, // 127.0.0.1 as one number
      `https://[::1]:${r.port}/hooks`,
      `https://[::ffff:127.0.0.1]:${r.port}/hooks`,
      'https://[::ffff:169.254.169.254]/latest/meta-data/',
      'https://[64:ff9b::a9fe:a9fe]/latest/meta-data/', // NAT64 spelling of the metadata address
    ]) {
      await refused(post(egress, url), url);
    }
    assert.equal(r.connections, 0, 'no connection reached the loopback receiver');
  });

  test('a name that resolves to loopback (localhost, or any name repointed there) is refused at connect time', async () => {
    const dns = table({ 'hooks.partner.example': ['127.0.0.1'], 'split.partner.example': ['93.184.215.14', '127.0.0.1'], 'meta.partner.example': ['169.254.169.254'] });
    const egress = new WebhookEgress({ loopback: false, resolve: dns.resolve });
    await refused(post(new WebhookEgress({ loopback: false }), `https://localhost:${r.port}/hooks`), 'localhost (system DNS)');
    await refused(post(egress, `https://hooks.partner.example:${r.port}/hooks`), 'a name resolving to 127.0.0.1');
    await refused(post(egress, `https://split.partner.example:${r.port}/hooks`), 'a name with a public and a loopback address');
    await refused(post(egress, 'https://meta.partner.example/latest/meta-data/'), 'a name resolving to the metadata address');
    assert.ok(dns.calls.includes('hooks.partner.example'), 'the name was resolved by the connection (the check is after DNS)');
    assert.equal(r.connections, 0, 'no connection reached the loopback receiver');
    // The set-time check refuses what the URL itself says; a name passes it (the connect-time check decides).
    for (const url of [`http://127.0.0.1:${r.port}/x`, 'https://169.254.169.254/', 'https://10.1.2.3/', `https://localhost:${r.port}/`, 'http://partner.example/x']) {
      const reason = url.startsWith('http://partner') ? 'plain_http' : 'not_public';
      assert.throws(() => validateWebhookUrl(url), (e: unknown) => isHushError(e, 'WEBHOOK_URL_REFUSED') && e.details.reason === reason && /not allowed/.test(e.message), url);
    }
    assert.equal(validateWebhookUrl('https://hooks.partner.example/x'), 'https://hooks.partner.example/x');
  });
});

describe('webhook egress: embedded dev mode', () => {
  let r: Receiver;
  let other: Receiver;
  before(async () => {
    other = await receiver();
    r = await receiver((res) => res.writeHead(302, { location: `http://127.0.0.1:${other.port}/elsewhere` }).end());
  });
  after(async () => {
    await r.close();
    await other.close();
  });

  test('this machine is reachable over http, a name pinned to the address its check passed', async () => {
    const ok = await receiver();
    try {
      const dns = table({ localhost: ['127.0.0.1'] });
      const egress = new WebhookEgress({ loopback: true, resolve: dns.resolve });
      assert.equal(await post(egress, `http://127.0.0.1:${ok.port}/hooks`), 204);
      assert.equal(await post(new WebhookEgress({ loopback: true }), `http://localhost:${ok.port}/hooks`), 204);
      assert.equal(await post(new WebhookEgress({ loopback: true }), `http://[::ffff:127.0.0.1]:${ok.port}/hooks`), 204);
      assert.equal(await post(egress, `http://localhost:${ok.port}/hooks`), 204);
      assert.deepEqual(dns.calls, ['localhost'], 'the name was resolved once, by the connection itself');
      assert.equal(ok.hosts.at(-1), `localhost:${ok.port}`, 'the request still names the host');
    } finally {
      await ok.close();
    }
  });

  test('metadata and private addresses stay refused, and plain http goes nowhere but this machine', async () => {
    const dns = table({ 'lan.dev.example': ['192.168.0.10'], 'public.dev.example': ['93.184.215.14'] });
    const egress = new WebhookEgress({ loopback: true, resolve: dns.resolve });
    await refused(post(egress, 'https://169.254.169.254/latest/meta-data/'), 'metadata');
    await refused(post(egress, 'https://10.0.0.7/hooks'), 'a private address');
    await refused(post(egress, 'https://lan.dev.example/hooks'), 'a name resolving to a private address');
    await refused(post(egress, 'http://public.dev.example/hooks'), 'plain http to a public address');
    await refused(post(egress, 'http://93.184.215.14/hooks'), 'plain http to a public literal');
  });

  test('a redirect is the answer: it is not followed', async () => {
    const egress = new WebhookEgress({ loopback: true });
    assert.equal(await post(egress, `http://127.0.0.1:${r.port}/hooks`), 302);
    assert.equal(other.connections, 0, 'the redirect target got nothing');
  });
});
