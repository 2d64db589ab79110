/**
 * Holds every partner-API response a test sees to the OpenAPI document the same server publishes: its
 * status must be documented for that operation, its JSON body must match the documented schema (the
 * serializer coerces and never validates), and a failure's `error.code` must be one the operation lists
 * for that status. Every HTTP test is thereby a check that the reference is honest.
 */
import assert from 'node:assert/strict';
import { Ajv, type ValidateFunction } from 'ajv';
import { fetchFrom, randomLoopback } from './http-from.ts';
import type { HushTransport } from './hush-client.ts';

interface Operation {
  responses: Record<string, { content?: { 'application/json'?: { schema?: { properties?: { error?: { properties?: { code?: { enum?: string[] } } } } } } } }>;
}
interface Route {
  pattern: RegExp;
  methods: Record<string, Operation>;
  /** The document's named schemas, which response schemas point at by $ref. */
  components: unknown;
}

const PREFIX = '/transfer/v1';
// OpenAPI keywords (description, title, …) are annotations here; only the JSON Schema part is checked.
const ajv = new Ajv({ strict: false, allErrors: true });
const validators = new WeakMap<object, ValidateFunction>();
const published = new Map<string, Promise<Route[]>>();

async function routesOf(baseUrl: string, transport?: HushTransport): Promise<Route[]> {
  // The server has just answered, so a document it cannot serve is itself a failure, never a skipped check.
  // From an address of its own: the document counts against the anonymous per-address limit (docs/spec.md §7),
  // and this check must not take from the bucket of the test it serves.
  const url = new URL(`${PREFIX}/openapi.json`, baseUrl);
  const res = transport
    ? await transport({ method: 'GET', path: `${PREFIX}/openapi.json`, headers: {} })
    : url.hostname === '127.0.0.1' ? await fetchFrom(randomLoopback(), url.href, { method: 'GET', headers: {} }) : await fetch(url).then(async (r) => ({ status: r.status, text: await r.text() }));
  assert.equal(res.status, 200, `${baseUrl}: the OpenAPI document is not served`);
  const doc = JSON.parse(res.text) as { paths: Record<string, Record<string, Operation>>; components?: unknown };
  return Object.entries(doc.paths).map(([path, methods]) => ({
    pattern: new RegExp(`^${path.replace(/\{[^}]+\}/g, '[^/]+')}$`),
    methods,
    components: doc.components,
  }));
}

export async function assertDocumented(baseUrl: string, method: string, path: string, status: number, body: unknown, transport?: HushTransport): Promise<void> {
  if (!path.startsWith(PREFIX)) return;
  let routes = published.get(baseUrl);
  if (!routes) {
    routes = routesOf(baseUrl, transport);
    published.set(baseUrl, routes);
    routes.catch(() => published.delete(baseUrl));
  }
  const route = (await routes).find((r) => r.pattern.test(path.split('?')[0]!));
  const op = route?.methods[method.toLowerCase()];
  if (!op) return; // no such operation: the router's 404, checked elsewhere
  const where = `${method} ${path} → ${status}`;
  const documented = op.responses[String(status)];
  assert.ok(documented, `${where}: status not in the OpenAPI document (documented: ${Object.keys(op.responses).join(', ')})`);
  const schema = documented.content?.['application/json']?.schema;
  if (schema) {
    let validate = validators.get(schema);
    // The components ride along so that `#/components/schemas/…` resolves inside the compiled schema.
    if (!validate) validators.set(schema, (validate = ajv.compile({ ...schema, components: route!.components })));
    assert.ok(validate(body), `${where}: body does not match the documented schema: ${ajv.errorsText(validate.errors)}; ${JSON.stringify(body).slice(0, 300)}`);
  } else {
    assert.ok(body === null || body === undefined, `${where}: a body where the document promises none`);
  }
  if (status < 400) return;
  const code = (body as { error?: { code?: unknown } } | null)?.error?.code;
  const codes = schema?.properties?.error?.properties?.code?.enum ?? [];
  assert.ok(typeof code === 'string' && codes.includes(code), `${where}: error.code ${String(code)} not documented for this status (documented: ${codes.join(', ')})`);
}
