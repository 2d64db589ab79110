import type { FastifyInstance } from 'fastify';
import { pageFile, pageFiles, sendPage } from './static-pages.ts';

/** Where the ops listener serves the operator console (with the admin API: HUSH_ADMIN_TOKEN set). */
export const CONSOLE_PATH = '/console';

export interface ConsoleAsset {
  assetId: string;
  symbol: string;
  decimals: number;
}

/**
 * docs/spec.md §12 "Console": the operator's console, a static page and its scripts on the ops listener. The
 * files hold no data and need no token; everything they show comes from /admin/v1 as the operator who signed in
 * (single sign-on, or a personal token), so the console can do exactly what the admin API allows them, no more.
 */
/** The explorer pages the console links addresses and signatures to (`{address}`, `{signature}`); null: no links. */
export interface ConsoleExplorer {
  address: string | null;
  tx: string | null;
}

export async function consoleRoutes(app: FastifyInstance, { assets, sso = false, explorer = { address: null, tx: null } }: { assets: readonly ConsoleAsset[]; sso?: boolean; explorer?: ConsoleExplorer }) {
  const files = pageFiles([
    'console.html', 'console.js', 'console-kit.js', 'console-holds.js', 'console-hold-card.js', 'console-hold-notes.js', 'console-links.js', 'console-history.js',
    'console-log.js', 'console-queue-filters.js', 'console-filter-fields.js', 'console-words.js', 'console-charts.js', 'console-approvals.js',
    'console-tokens.js', 'receipt-words.js', 'pages.css', 'favicon.svg',
  ]);
  const config = { tokens: assets.map(({ assetId, symbol, decimals }) => ({ assetId, symbol, decimals })), sso, explorer };
  files.set('config.json', pageFile(Buffer.from(JSON.stringify(config)), 'application/json; charset=utf-8'));
  app.get(CONSOLE_PATH, { exposeHeadRoute: false }, async (request, reply) => sendPage(reply, files.get('console.html')!, { request }));
  app.get<{ Params: { file: string } }>(`${CONSOLE_PATH}/:file`, { exposeHeadRoute: false }, async (request, reply) => {
    const file = request.params.file === 'console.html' ? undefined : files.get(request.params.file);
    if (!file) return reply.callNotFound();
    return sendPage(reply, file, { request });
  });
}
