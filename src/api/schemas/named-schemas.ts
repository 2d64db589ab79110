import { isDeepStrictEqual } from 'node:util';
import { HUSH_ERROR_CODES, type HushErrorCode } from '../../domain/errors.ts';
import { errorExample } from '../examples/error-examples.ts';
import { OPERATION_ERRORS, type OperationId } from './operation-errors.ts';
import { ERROR_BODY_TITLE } from './responses.ts';
import { WEBHOOKS, WEBHOOK_EVENT_SCHEMAS } from './webhook-events.ts';

/**
 * The last step of the OpenAPI document (@fastify/swagger's transformObject): the route schemas stay
 * inline for the validator and the serializer, and here every schema with a `title` becomes a named
 * component referenced by $ref; each error response gets one example per code it can carry; the
 * webhook events are added. Nothing here changes what a route accepts or answers.
 */

type Json = Record<string, unknown>;
const REF = '#/components/schemas/';
/** Data, not schemas: never searched for titles. */
const DATA_KEYS = new Set(['example', 'examples']);

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

function without(node: Json, key: string): Json {
  const { [key]: _dropped, ...rest } = node;
  return rest;
}

/** The generic error body: the first narrowed one with error.code widened to every code. */
function errorComponent(body: Json): Json {
  const { description: _d, ...rest } = body;
  const props = rest.properties as Json;
  const error = props.error as Json;
  const code = (error.properties as Json).code as Json;
  return {
    ...rest,
    description: 'Every error answer has this body: success false and an error with a stable code. Each operation lists, per status, the codes it can answer, each with an example',
    properties: { ...props, error: { ...error, properties: { ...(error.properties as Json), code: { $ref: `${REF}ErrorCode`, description: code.description } } } },
  };
}

/** Replaces titled schemas below `node` by $refs to components (children first, so components nest by $ref too). */
function hoist(node: unknown, components: Json): unknown {
  if (Array.isArray(node)) return node.map((n) => hoist(n, components));
  if (!isObject(node)) return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node)) out[k] = DATA_KEYS.has(k) ? v : hoist(v, components);
  const name = out.title;
  if (typeof name !== 'string') return out;
  if (name === ERROR_BODY_TITLE) {
    components[name] ??= errorComponent(out);
    const error = (out.properties as Json).error as Json;
    const codes = ((error.properties as Json).code as Json).enum;
    // The shared body, with error.code narrowed to what this status of this operation can carry.
    return {
      allOf: [{ $ref: REF + name }],
      type: 'object',
      properties: {
        error: { type: 'object', description: 'The error', properties: { code: { type: 'string', enum: codes, description: 'The codes this operation answers with this status' } } },
      },
      description: out.description,
    };
  }
  const body = without(out, 'description');
  const existing = components[name] as Json | undefined;
  if (!existing) components[name] = out;
  else if (!isDeepStrictEqual(without(existing, 'description'), body)) throw new Error(`OpenAPI: two different schemas are titled ${name}`);
  const description = out.description;
  return { $ref: REF + name, ...(description !== undefined && description !== (components[name] as Json).description ? { description } : {}) };
}

/** One example per code, keyed by code, on each error response of each operation. */
function addErrorExamples(paths: Json): void {
  for (const methods of Object.values(paths) as Json[]) {
    for (const op of Object.values(methods) as Json[]) {
      const id = op.operationId as OperationId;
      if (!(id in OPERATION_ERRORS)) continue;
      for (const [status, response] of Object.entries(op.responses as Record<string, Json>)) {
        if (Number(status) < 400) continue;
        const media = (response.content as Json)['application/json'] as Json;
        const codes = ((((media.schema as Json).properties as Json).error as Json).properties as Json).code as { enum: HushErrorCode[] };
        delete media.example;
        media.examples = Object.fromEntries(codes.enum.map((code) => [code, errorExample(id, code)]));
      }
    }
  }
}

export function finishDocument(doc: Json): Json {
  const out = structuredClone(doc);
  addErrorExamples(out.paths as Json);
  const components = out.components as Json;
  const schemas: Json = {
    ErrorCode: { type: 'string', enum: [...HUSH_ERROR_CODES], description: 'Every error code; each always comes with the same HTTP status, and an operation lists the ones it can answer' },
    ...(components.schemas as Json),
  };
  out.paths = hoist(out.paths, schemas);
  Object.assign(schemas, JSON.parse(JSON.stringify(WEBHOOK_EVENT_SCHEMAS)) as Json);
  out.webhooks = JSON.parse(JSON.stringify(WEBHOOKS)) as Json;
  components.schemas = Object.fromEntries(Object.entries(schemas).sort(([a], [b]) => a.localeCompare(b)));
  return out;
}
