/**
 * The served OpenAPI document is a reference a partner can work from: every operation and every field
 * described, an example of every error code each operation can answer (as Hush writes it), the webhook
 * events, named component schemas, and nothing that points at a document the partner does not have.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Ajv } from 'ajv';
import type { FastifyInstance } from 'fastify';
import { buildApp, type ApiDeps } from '../../src/api/app.ts';
import { createMetrics } from '../../src/api/metrics.ts';
import { OPERATION_ERRORS, type OperationId } from '../../src/api/schemas.ts';
import { ANY_ROUTE } from '../../src/api/schemas/operation-errors.ts';
import { loadConfig } from '../../src/config/config.ts';
import { HUSH_ERROR_CODES, hasRetryAfter, httpStatusOf, type HushErrorCode } from '../../src/domain/errors.ts';
import { systemClock } from '../../src/support/clock.ts';
import { systemRandom } from '../../src/support/random.ts';

type Json = Record<string, any>;
const REF = '#/components/schemas/';
const METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options']);

let app: FastifyInstance;
let doc: Json;

before(async () => {
  // Building the routes reads only the configuration; no request reaches a service here.
  app = await buildApp({ config: loadConfig({}), metrics: createMetrics(async () => new Map()), clock: systemClock, random: systemRandom } as unknown as ApiDeps);
  const res = await app.inject({ method: 'GET', url: '/docs/json' });
  assert.equal(res.statusCode, 200);
  doc = res.json();
});
after(() => app.close());

/** Every operation of the document: the partner paths and the webhooks. */
function operations(): { where: string; op: Json }[] {
  const out: { where: string; op: Json }[] = [];
  for (const [group, entries] of [['paths', doc.paths], ['webhooks', doc.webhooks ?? {}]] as const) {
    for (const [path, methods] of Object.entries(entries as Json)) {
      for (const [method, op] of Object.entries(methods as Json)) if (METHODS.has(method)) out.push({ where: `${group} ${method.toUpperCase()} ${path}`, op });
    }
  }
  return out;
}

function resolve(ref: string): Json {
  assert.ok(ref.startsWith(REF), `only component $refs are used: ${ref}`);
  const target = doc.components.schemas[ref.slice(REF.length)];
  assert.ok(target, `$ref ${ref} resolves`);
  return target;
}

/** Visits every schema node below `schema` (not into example data), with a path for messages. */
function walkSchema(schema: unknown, where: string, visit: (node: Json, where: string) => void): void {
  if (typeof schema !== 'object' || schema === null) return;
  if (Array.isArray(schema)) return schema.forEach((s, i) => walkSchema(s, `${where}[${i}]`, visit));
  visit(schema as Json, where);
  for (const [k, v] of Object.entries(schema)) {
    if (k === 'example' || k === 'examples' || k === 'enum' || k === 'const' || k === 'required') continue;
    walkSchema(v, `${where}.${k}`, visit);
  }
}

/** Every schema root of the document, with where it sits. */
function schemaRoots(): { where: string; schema: Json }[] {
  const roots = Object.entries(doc.components.schemas as Json).map(([name, schema]) => ({ where: `components.${name}`, schema }));
  for (const { where, op } of operations()) {
    for (const p of op.parameters ?? []) roots.push({ where: `${where} parameter ${p.name}`, schema: p.schema });
    for (const [type, media] of Object.entries((op.requestBody?.content ?? {}) as Json)) roots.push({ where: `${where} body ${type}`, schema: media.schema });
    for (const [status, r] of Object.entries(op.responses as Json)) {
      for (const [type, media] of Object.entries((r.content ?? {}) as Json)) roots.push({ where: `${where} → ${status} ${type}`, schema: media.schema });
    }
  }
  return roots;
}

const ajv = new Ajv({ strict: false, allErrors: true });
function validator(schema: Json) {
  return ajv.compile({ ...schema, components: doc.components });
}

describe('OpenAPI completeness', () => {
  test('OpenAPI 3.1, and nothing cites a document the partner does not have', () => {
    assert.match(doc.openapi, /^3\.1\./);
    const text = JSON.stringify(doc);
    for (const banned of [/SPEC\b/, /§/, /docs\//, /decisions\.md/, /spec\.md/, /seed part/i]) assert.doesNotMatch(text, banned);
    assert.ok(doc.info.description.length > 500, 'the introduction states the shared rules');
    // A tool that imports the document calls the Hush that served it, or the quick start's.
    assert.deepEqual(doc.servers.map((s: Json) => s.url), ['/', 'http://127.0.0.1:8787']);
  });

  test('every operation has a summary and a description', () => {
    const ops = operations();
    assert.ok(ops.length >= 10, `${ops.length} operations`);
    for (const { where, op } of ops) {
      assert.ok(op.summary?.trim(), `${where}: summary`);
      assert.ok(op.description?.trim().length > 40, `${where}: description`);
      for (const p of op.parameters ?? []) assert.ok(p.description?.trim(), `${where}: parameter ${p.name} has a description`);
      if (op.requestBody) assert.ok(op.requestBody.description?.trim(), `${where}: the request body has a description`);
      for (const [status, r] of Object.entries(op.responses as Json)) {
        assert.ok(r.description?.trim(), `${where} → ${status}: description`);
        for (const [name, h] of Object.entries((r.headers ?? {}) as Json)) assert.ok(h.description?.trim(), `${where} → ${status}: header ${name} has a description`);
      }
    }
  });

  test('every field of every schema has a description, every component too, every $ref resolves', () => {
    let fields = 0;
    for (const [name, schema] of Object.entries(doc.components.schemas as Json)) assert.ok(schema.description?.trim(), `components.${name} has a description`);
    for (const root of schemaRoots()) {
      walkSchema(root.schema, root.where, (node, where) => {
        if (typeof node.$ref === 'string') resolve(node.$ref);
        for (const [key, prop] of Object.entries((node.properties ?? {}) as Json)) {
          fields++;
          const described = prop.description?.trim() || (prop.$ref && resolve(prop.$ref).description?.trim());
          assert.ok(described, `${where}.properties.${key} has no description`);
        }
      });
    }
    assert.ok(fields > 100, `${fields} fields checked`);
  });

  test('the main bodies are named components, not anonymous inline schemas', () => {
    for (const name of ['Token', 'TokenList', 'QuoteRequest', 'Quote', 'QuotePrivacy', 'FeeBreakdown', 'OrderRequest', 'Order', 'StatusRecord', 'OrderPrivacy', 'DepositHint', 'Error', 'ErrorCode', 'OrderStatus', 'WebhookTestResult', 'Account', 'ApiKeyInfo', 'WebhookSecret', 'CreatedApiKey', 'RevokedApiKey']) {
      assert.ok(doc.components.schemas[name], `components.schemas.${name}`);
    }
    for (const { where, op } of operations()) {
      const medias = [...Object.values((op.requestBody?.content ?? {}) as Json), ...Object.values(op.responses as Json).flatMap((r: Json) => Object.values((r.content ?? {}) as Json))];
      for (const media of medias as Json[]) {
        const s = media.schema;
        assert.ok(s.$ref || s.allOf?.[0]?.$ref || s.anyOf?.every((b: Json) => b.$ref || b.type === 'null' || (b.type === 'object' && !Object.keys(b.properties ?? {}).length)), `${where}: body schema is a $ref: ${JSON.stringify(s).slice(0, 200)}`);
      }
    }
    const quote = doc.components.schemas.QuoteResponse.properties.quote;
    assert.equal(quote.$ref, `${REF}Quote`);
    assert.equal(doc.components.schemas.StatusRecord.properties.privacy.$ref, `${REF}OrderPrivacy`);
  });

  test('every operation documents, with an example each, exactly the error codes it can answer', () => {
    const ids = new Set<string>();
    // A page for people (tag `pages`) answers HTML, not the JSON error shapes: checked on its own below.
    for (const { where, op } of operations().filter((o) => o.where.startsWith('paths') && !o.op.tags?.includes('pages'))) {
      const id = op.operationId as OperationId;
      assert.ok(id in OPERATION_ERRORS, `${where}: ${id} has its codes listed`);
      ids.add(id);
      const codes = new Set<HushErrorCode>(OPERATION_ERRORS[id]);
      // What any operation can answer, and what its shape adds (derived here, not copied from the list).
      const derived: HushErrorCode[] = [...ANY_ROUTE];
      if (op.requestBody) derived.push('INVALID_REQUEST', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE');
      if ((op.parameters ?? []).some((p: Json) => p.in === 'path')) derived.push('INVALID_REQUEST', 'NOT_FOUND');
      if ((op.parameters ?? []).some((p: Json) => p.in === 'header' && /idempotency-key/i.test(p.name))) derived.push('IDEMPOTENCY_CONFLICT', 'ORDER_IN_PROGRESS');
      for (const c of derived) assert.ok(codes.has(c), `${where}: can answer ${c}`);
      const documented = new Set<string>();
      for (const [status, r] of Object.entries(op.responses as Json)) {
        if (Number(status) < 400) continue;
        const media = r.content['application/json'];
        const enumCodes: HushErrorCode[] = media.schema.properties.error.properties.code.enum;
        assert.deepEqual(Object.keys(media.examples ?? {}).sort(), [...enumCodes].sort(), `${where} → ${status}: one example per code`);
        const validate = validator(media.schema);
        for (const code of enumCodes) {
          documented.add(code);
          assert.equal(httpStatusOf(code), Number(status), `${where}: ${code} under its own status`);
          const { summary, value } = media.examples[code];
          assert.ok(summary?.trim(), `${where} → ${code}: the example has a summary`);
          // The error handler's shape, key order included: code, message, details when any, requestId.
          assert.deepEqual(Object.keys(value), ['success', 'error']);
          assert.equal(value.success, false);
          assert.deepEqual(Object.keys(value.error), value.error.details ? ['code', 'message', 'details', 'requestId'] : ['code', 'message', 'requestId']);
          assert.equal(value.error.code, code);
          assert.match(value.error.requestId, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
          assert.ok(validate(value), `${where} → ${code}: example matches the schema: ${ajv.errorsText(validate.errors)}`);
        }
        const headers = Object.keys(r.headers ?? {});
        if (enumCodes.some(hasRetryAfter)) assert.ok(headers.includes('Retry-After'), `${where} → ${status}: Retry-After`);
        if (enumCodes.includes('UNAUTHORIZED')) assert.ok(headers.includes('WWW-Authenticate'), `${where} → ${status}: WWW-Authenticate`);
      }
      assert.deepEqual([...documented].sort(), [...codes].sort(), `${where}: documents exactly its codes`);
    }
    assert.deepEqual([...ids].sort(), Object.keys(OPERATION_ERRORS).sort(), 'every listed operation is served');
    assert.deepEqual(doc.components.schemas.ErrorCode.enum, [...HUSH_ERROR_CODES]);
  });

  test('the receipt-check page is documented: a page for people, no key, its HTML named', () => {
    const pages = operations().filter((o) => o.op.tags?.includes('pages'));
    assert.deepEqual(pages.map((p) => p.where), ['paths GET /receipt-check']);
    const op = pages[0]!.op;
    assert.deepEqual(op.security, [], 'no key');
    assert.equal(op.responses['200'].content['text/html'].schema.$ref, `${REF}HtmlPage`);
    assert.match(op.description, /never leaves the browser/);
    assert.deepEqual(doc.paths['/transfer/v1/receipt-keys'].get.security, [{}, { bearer: [] }], 'the keys answer with or without a key');
  });

  test('the webhook events: order.status_changed, order.released, order.held, order.frozen and webhook.test, signed', () => {
    assert.deepEqual(Object.keys(doc.webhooks ?? {}).sort(), ['order.frozen', 'order.held', 'order.released', 'order.status_changed', 'webhook.test']);
    for (const [type, item] of Object.entries(doc.webhooks as Json)) {
      const op = item.post;
      const headers = new Map((op.parameters as Json[]).filter((p) => p.in === 'header').map((p) => [p.name, p]));
      for (const h of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) assert.equal(headers.get(h)?.required, true, `${type}: header ${h}`);
      const schema = resolve(op.requestBody.content['application/json'].schema.$ref);
      assert.deepEqual(Object.keys(schema.properties), ['id', 'type', 'version', 'createdAt', 'data']);
      assert.equal(schema.properties.version.const, 2, 'event bodies are versioned: 2, sequence an integer');
      assert.equal(schema.properties.type.const, type);
      const validate = validator(schema);
      for (const example of schema.examples as Json[]) {
        assert.ok(validate(example), `${type}: example matches: ${ajv.errorsText(validate.errors)}`);
        assert.equal(example.type, type);
      }
      if (type !== 'webhook.test') {
        assert.deepEqual(Object.keys(schema.properties.data.properties), ['trackingId', 'status', 'sequence', 'order']);
        assert.equal(schema.properties.data.properties.sequence.type, 'integer');
        assert.equal(schema.properties.data.properties.order.$ref, `${REF}StatusRecord`);
      }
    }
    const released = resolve(doc.webhooks['order.released'].post.requestBody.content['application/json'].schema.$ref).examples[0];
    assert.equal(released.data.status, 'sending');
    // Issue 54: releasedWith is counted where the release landed, after this event: null in it.
    assert.ok(released.data.order.privacy.releasedWith === null && released.data.order.privacy.heldSeconds >= 0, 'released: held time set, the set not yet counted');
  });

  test('every example in the document matches its schema', () => {
    let n = 0;
    for (const { where, op } of operations()) {
      const medias = [...Object.entries((op.requestBody?.content ?? {}) as Json), ...Object.entries(op.responses as Json).flatMap(([s, r]: [string, Json]) => Object.entries((r.content ?? {}) as Json).map(([t, m]) => [`${s} ${t}`, m]))];
      for (const [label, media] of medias as [string, Json][]) {
        const examples = [...(media.example !== undefined ? [media.example] : []), ...Object.values((media.examples ?? {}) as Json).map((e: Json) => e.value)];
        if (label.startsWith('2')) assert.ok(examples.length > 0, `${where} ${label}: has an example`);
        const validate = validator(media.schema);
        for (const e of examples) {
          n++;
          assert.ok(validate(e), `${where} ${label}: example matches its schema: ${ajv.errorsText(validate.errors)}`);
        }
      }
    }
    for (const [name, schema] of Object.entries(doc.components.schemas as Json)) {
      const validate = validator(schema);
      for (const e of schema.examples ?? []) {
        n++;
        assert.ok(validate(e), `components.${name}: example matches: ${ajv.errorsText(validate.errors)}`);
      }
    }
    assert.ok(n > 50, `${n} examples checked`);
  });

  test('/transfer/v1/openapi.json serves the same document', async () => {
    const res = await app.inject({ method: 'GET', url: '/transfer/v1/openapi.json' });
    assert.deepEqual(res.json(), doc);
  });
});
