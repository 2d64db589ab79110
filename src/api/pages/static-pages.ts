import { readFileSync } from 'node:fs';
import { transformSync } from 'esbuild';
import type { FastifyReply } from 'fastify';

/**
 * The browser pages Hush serves (docs/compliance.md "The console"): static files read once at start, served
 * from memory with headers that keep them to themselves. No framework and no build step: plain HTML, CSS
 * and ES modules, plus the SDK's receipt checks with their types stripped (the page and the SDK check a
 * receipt with the same code).
 */
export interface PageFile {
  body: Buffer;
  type: string;
}

const ASSETS = new URL('./assets/', import.meta.url);
const TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  json: 'application/json; charset=utf-8',
};

/** Files of src/api/pages/assets by name. */
export function pageFiles(names: readonly string[]): Map<string, PageFile> {
  return new Map(names.map((name) => [name, { body: readFileSync(new URL(name, ASSETS)), type: TYPES[name.split('.').pop()!]! }]));
}

let receiptChecks: PageFile | undefined;

/**
 * packages/sdk/src/receipt-checks.ts as a browser module (it imports nothing; only its types go), made at its
 * first request and kept for the process: esbuild's transform starts its binary (about 0.6 s of a start that
 * most processes, workers and tests, never serve a page from).
 */
export function sdkReceiptChecks(): PageFile {
  if (receiptChecks) return receiptChecks;
  const source = readFileSync(new URL('../../../packages/sdk/src/receipt-checks.ts', import.meta.url), 'utf8');
  const { code } = transformSync(source, { loader: 'ts', format: 'esm', target: 'es2022' });
  receiptChecks = { body: Buffer.from(code), type: TYPES.js! };
  return receiptChecks;
}

/**
 * Only this origin's files and requests (`connect-src 'self'`: the receipt-check page cannot send a receipt
 * anywhere, and no script but these runs); never framed; nothing in the Referer.
 */
const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'";

export function sendPage(reply: FastifyReply, file: PageFile): FastifyReply {
  return reply
    .header('content-type', file.type)
    .header('content-security-policy', CSP)
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer')
    .header('cache-control', 'no-cache')
    .send(file.body);
}
