import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { HushConfig } from '../../config/config.ts';
import { documented } from '../schemas/responses.ts';
import { pageFile, pageFiles, sdkReceiptChecks, sdkReceiptChecksVersion, sendPage, typeOf, type PageFile } from './static-pages.ts';

/** Where the partner listener serves the public receipt-check page (docs/spec.md §12, in the OpenAPI document). */
export const RECEIPT_CHECK_PATH = '/receipt-check';

const HtmlPage = Type.String({ title: 'HtmlPage', description: 'An HTML page for a person in a browser, with its scripts and styles served beside it', examples: ['<!doctype html><html lang="en"><head><title>Check a Hush disclosure receipt</title>…</head><body>…</body></html>'] });

/**
 * docs/spec.md §12 "Console": anyone handed a disclosure receipt checks it here, in their own browser. The page
 * and its scripts are static (no account data): the browser fetches the published receipt keys (GET
 * /transfer/v1/receipt-keys, which answers without a key) and checks the signature itself; the receipt is
 * never sent anywhere (the page's Content-Security-Policy allows requests to this origin only, and it makes
 * none with the receipt). The page names its files by their content (`?v=<hash>`, served immutable for a year),
 * so a reload asks for the page and the keys only; they are served from memory outside the anonymous limit, as a
 * 429 would cost as much as the file (a page whose script was refused did nothing when its button was pressed).
 */
export async function receiptPageRoutes(app: FastifyInstance, { config }: { config: HushConfig }) {
  const files = pageFiles(['receipt-check.html', 'receipt-check.js', 'receipt-words.js', 'pages.css', 'favicon.svg']);
  // What the page needs to put amounts in the asset's units and link signatures: the configured assets, public.
  const pageConfig = {
    assets: config.assets.list.map((a) => ({ assetId: a.assetId, symbol: a.symbol, name: a.name, decimals: a.decimals, mint: a.mint })),
    explorerTxUrl: config.explorerTxUrl,
  };
  files.set('config.json', pageFile(Buffer.from(JSON.stringify(pageConfig)), 'application/json; charset=utf-8'));
  const versions = versionReferences(files);
  app.get(
    RECEIPT_CHECK_PATH,
    {
      exposeHeadRoute: false,
      schema: {
        operationId: 'receiptCheckPage',
        tags: ['pages'],
        summary: 'A web page that checks a disclosure receipt in the browser',
        description:
          'For a person, not a program: whoever your user hands a disclosure receipt to (a bank, an auditor) opens this page, drops or pastes the receipt, and sees whether it is genuine and what it states in plain words: amounts in the asset\'s units, times, the transactions as explorer links, what screening found. The check runs in their browser against the keys of GET /transfer/v1/receipt-keys; the receipt never leaves the browser. A receipt changed in any way fails, and the page says which check failed. No key is needed; requests count against the caller address\'s anonymous rate limit (429 RATE_LIMITED). Its scripts and styles are served under /receipt-check/.',
        security: [],
        produces: ['text/html'],
        // Sent as bytes, never serialized: the schema documents the page.
        response: { 200: documented(HtmlPage, 'The receipt-check page') },
      },
    },
    async (request, reply) => sendPage(reply, files.get('receipt-check.html')!, { request }),
  );
  app.get<{ Params: { file: string }; Querystring: { v?: string } }>(`${RECEIPT_CHECK_PATH}/:file`, { exposeHeadRoute: false, schema: { hide: true } }, async (request, reply) => {
    const name = request.params.file;
    const file: PageFile | undefined = name === 'receipt-checks.js' ? sdkReceiptChecks() : name === 'receipt-check.html' ? undefined : files.get(name);
    if (!file) return reply.callNotFound();
    return sendPage(reply, file, { request, immutable: request.query.v !== undefined && request.query.v === versions.get(name) });
  });
}

/**
 * Rewrites the page's references to its files (the HTML's, and the script's imports and fetch) to carry each
 * file's content version, leaves first; returns each file's version. A reference not found fails the start: a
 * page edited without its versions would be served stale for a year.
 */
function versionReferences(files: Map<string, PageFile>): Map<string, string> {
  const versions = new Map<string, string>([['receipt-checks.js', sdkReceiptChecksVersion()]]);
  const versionOf = (name: string) => versions.get(name) ?? files.get(name)!.version;
  const rewrite = (name: string, refs: [prefix: string, file: string, suffix: string][]) => {
    let text = files.get(name)!.body.toString('utf8');
    for (const [prefix, file, suffix] of refs) {
      const ref = `${prefix}${file}${suffix}`;
      if (!text.includes(ref)) throw new Error(`${name} no longer refers to ${ref}: update the receipt page's versioned references`);
      text = text.replaceAll(ref, `${prefix}${file}?v=${versionOf(file)}${suffix}`);
    }
    files.set(name, pageFile(Buffer.from(text), typeOf(name)));
  };
  rewrite('receipt-check.js', [["'./", 'receipt-checks.js', "'"], ["'./", 'receipt-words.js', "'"], ["'/receipt-check/", 'config.json', "'"]]);
  rewrite('receipt-check.html', [['"/receipt-check/', 'favicon.svg', '"'], ['"/receipt-check/', 'pages.css', '"'], ['"/receipt-check/', 'receipt-check.js', '"']]);
  for (const [name, file] of files) if (!versions.has(name)) versions.set(name, file.version);
  return versions;
}
