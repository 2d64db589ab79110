import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { HushConfig } from '../../config/config.ts';
import type { AnonymousLimiter } from '../error-handler.ts';
import { documented } from '../schemas/responses.ts';
import { pageFiles, sdkReceiptChecks, sendPage, type PageFile } from './static-pages.ts';

/** Where the partner listener serves the public receipt-check page (docs/spec.md §12, in the OpenAPI document). */
export const RECEIPT_CHECK_PATH = '/receipt-check';

const HtmlPage = Type.String({ title: 'HtmlPage', description: 'An HTML page for a person in a browser, with its scripts and styles served beside it', examples: ['<!doctype html><html lang="en"><head><title>Check a Hush disclosure receipt</title>…</head><body>…</body></html>'] });

/**
 * docs/spec.md §12 "Console": anyone handed a disclosure receipt checks it here, in their own browser. The page
 * and its scripts are static (no account data): the browser fetches the published receipt keys (GET
 * /transfer/v1/receipt-keys, which answers without a key) and checks the signature itself; the receipt is
 * never sent anywhere (the page's Content-Security-Policy allows requests to this origin only, and it makes
 * none with the receipt). Each request takes from the caller's address's anonymous bucket.
 */
export async function receiptPageRoutes(app: FastifyInstance, { config, limitAnonymous }: { config: HushConfig; limitAnonymous?: AnonymousLimiter }) {
  const files = pageFiles(['receipt-check.html', 'receipt-check.js', 'receipt-words.js', 'pages.css']);
  // What the page needs to put amounts in the asset's units and link signatures: the configured assets, public.
  const pageConfig = {
    assets: config.assets.list.map((a) => ({ assetId: a.assetId, symbol: a.symbol, name: a.name, decimals: a.decimals, mint: a.mint })),
    explorerTxUrl: config.explorerTxUrl,
  };
  files.set('config.json', { body: Buffer.from(JSON.stringify(pageConfig)), type: 'application/json; charset=utf-8' });

  app.addHook('onRequest', async (request, reply) => {
    await limitAnonymous?.(request, reply);
  });
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
    async (_request, reply) => sendPage(reply, files.get('receipt-check.html')!),
  );
  app.get<{ Params: { file: string } }>(`${RECEIPT_CHECK_PATH}/:file`, { exposeHeadRoute: false, schema: { hide: true } }, async (request, reply) => {
    const name = request.params.file;
    const file: PageFile | undefined = name === 'receipt-checks.js' ? sdkReceiptChecks() : name === 'receipt-check.html' ? undefined : files.get(name);
    if (!file) return reply.callNotFound();
    return sendPage(reply, file);
  });
}
