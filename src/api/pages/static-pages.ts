import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { transformSync } from 'esbuild';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { noneMatch } from '../etag.ts';

/**
 * The browser pages Hush serves (docs/compliance.md "The console"): static files read once at start, served
 * from memory with headers that keep them to themselves. No framework and no build step: plain HTML, CSS
 * and ES modules, plus the SDK's receipt checks with their types stripped (the page and the SDK check a
 * receipt with the same code).
 */
export interface PageFile {
  body: Buffer;
  type: string;
  /** A hash of the body: the `?v=` of its versioned URL. */
  version: string;
  /** The version as a strong validator: a browser that holds it gets a 304. */
  etag: string;
}

/** A content hash, short: the version in a file's URL (`?v=`) and its ETag. */
export function contentVersion(body: Buffer | string): string {
  return createHash('sha256').update(body).digest('base64url').slice(0, 16);
}

export function pageFile(body: Buffer, type: string): PageFile {
  const version = contentVersion(body);
  return { body, type, version, etag: `"${version}"` };
}

const ASSETS = new URL('./assets/', import.meta.url);
const TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  json: 'application/json; charset=utf-8',
  svg: 'image/svg+xml',
};

/** Files of src/api/pages/assets by name. */
export function pageFiles(names: readonly string[]): Map<string, PageFile> {
  return new Map(names.map((name) => [name, pageFile(readFileSync(new URL(name, ASSETS)), typeOf(name))]));
}

export function typeOf(name: string): string {
  return TYPES[name.split('.').pop()!]!;
}

let receiptChecks: PageFile | undefined;
const RECEIPT_CHECKS_SOURCE = new URL('../../../packages/sdk/src/receipt-checks.ts', import.meta.url);

/** The version of sdkReceiptChecks(), known without making it: its TypeScript source's (the transform is deterministic). */
export function sdkReceiptChecksVersion(): string {
  return contentVersion(readFileSync(RECEIPT_CHECKS_SOURCE));
}

/**
 * packages/sdk/src/receipt-checks.ts as a browser module (it imports nothing; only its types go), made at its
 * first request and kept for the process: esbuild's transform starts its binary (about 0.6 s of a start that
 * most processes, workers and tests, never serve a page from).
 */
export function sdkReceiptChecks(): PageFile {
  if (receiptChecks) return receiptChecks;
  const source = readFileSync(RECEIPT_CHECKS_SOURCE, 'utf8');
  const { code } = transformSync(source, { loader: 'ts', format: 'esm', target: 'es2022' });
  receiptChecks = pageFile(Buffer.from(code), TYPES.js!);
  return receiptChecks;
}

/**
 * Only this origin's files and requests (`connect-src 'self'`: the receipt-check page cannot send a receipt
 * anywhere, and no script but these runs); never framed; nothing in the Referer.
 */
const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'";

/** A year: a URL whose `?v=` names its content never changes what it serves. */
const IMMUTABLE = 'public, max-age=31536000, immutable';

/**
 * Sends a page's file with its ETag: 304 when the browser holds it. `immutable`: asked for by its versioned URL
 * (its content's hash in `?v=`), cached for a year without asking again; else cached but revalidated each use.
 */
export function sendPage(reply: FastifyReply, file: PageFile, opts: { request?: FastifyRequest; immutable?: boolean } = {}): FastifyReply {
  reply
    .header('content-security-policy', CSP)
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer')
    .header('etag', file.etag)
    .header('cache-control', opts.immutable ? IMMUTABLE : 'no-cache');
  if (noneMatch(opts.request?.headers['if-none-match'], file.etag)) return reply.code(304).send();
  return reply.header('content-type', file.type).send(file.body);
}
