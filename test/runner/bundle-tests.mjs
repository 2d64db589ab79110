// npm test runs each test file as one JavaScript bundle of its own TypeScript (test and src), built here
// with esbuild, instead of through tsx's loader. Under Node 20 the loader resolves and loads every module
// through a hooks thread: about two seconds of CPU per test process before its first test, for some 150
// processes on a two-core machine (measured 3.0 s against 1.1 s for the import of the test support graph).
// Shared code goes into chunks. Packages are bundled too, but those that need their own files at run time
// or must be one copy with what a preload configured (CLI_EXTERNAL, TEST_EXTERNAL). Hush's command-line
// entries, which tests start as children over a hundred times, are bundled apart (CLI_ENTRIES).
//
// What a bundle changes, and how it is kept the same:
// - import.meta.url, dirname and filename name the original .ts file (each module's own, rewritten at
//   load), so paths built from them (migrations, docs, fixtures, the deposit-identity worker's entry)
//   resolve as before;
// - child processes are started with `--import tsx` and the .ts entry explicitly, as before, except the
//   partner CLI: partners run it compiled (bin/hush.js), so tests run one esbuild bundle of its source per
//   test process (test/support/partner-cli.ts);
// - a test that imports TypeScript chosen at run time (a path computed in the test) does so through
//   tsx's tsImport, which works with and without the bundle.
// One test file still runs as before with `node --import tsx --test <file>`.
import { readFile, rm } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';

export const BUNDLE_DIR = join('node_modules', '.cache', 'hush-tests');

/** The bundle that runs `file` (a test/… .ts path relative to the repository). */
export function bundleOf(file) {
  return join(BUNDLE_DIR, file.replace(/\.ts$/, '.mjs'));
}

/** The test file a bundle (or a path inside the bundle directory) was built from, else the path itself. */
export function sourceOf(path) {
  const i = path.indexOf(`${BUNDLE_DIR}/`);
  return i < 0 ? path : path.slice(i + BUNDLE_DIR.length + 1).replace(/\.mjs$/, '.ts');
}

/**
 * The TypeScript entries of worker threads (src/support/typescript-worker.ts), bundled with the CLI entries: a
 * bundle's `new URL('./<entry>.ts', import.meta.url)` of one names its bundle, which a worker loads as it is,
 * instead of registering tsx in the thread first (about 0.9 s of CPU per thread: every Hush child that derives
 * deposit identities and every test process's first Hush paid it).
 */
export const WORKER_ENTRIES = ['src/treasury/deposit-identity-worker.ts', 'bench/privacy/score-worker.ts'];

/** `new URL('./x.ts', import.meta.url)` in `path` rewritten to the worker's bundle when x.ts is a worker entry. */
function bundledWorkers(text, path, root) {
  return text.replace(/new URL\('\.\/([\w.-]+\.ts)', import\.meta\.url\)/g, (whole, name) => {
    const entry = relative(root, join(dirname(path), name));
    if (!WORKER_ENTRIES.includes(entry)) return whole;
    return `new URL(${JSON.stringify(pathToFileURL(join(root, BUNDLE_DIR, entry.replace(/\.ts$/, '.mjs'))).href)})`;
  });
}

const originalImportMeta = {
  name: 'original-import-meta',
  setup(b) {
    b.onLoad({ filter: /\.ts$/ }, async (args) => {
      if (args.path.includes('/node_modules/')) return undefined;
      const text = bundledWorkers(await readFile(args.path, 'utf8'), args.path, b.initialOptions.absWorkingDir);
      const contents = text
        .replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href))
        .replaceAll('import.meta.dirname', JSON.stringify(dirname(args.path)))
        .replaceAll('import.meta.filename', JSON.stringify(args.path));
      return { contents, loader: 'ts' };
    });
  },
};

/**
 * Hush's command-line entries, bundled beside the tests: the children tests start load one bundle each
 * instead of going through tsx (test/support/cli-command.ts). Each is one file with its packages inside:
 * Node's resolution of some 400 package modules (stat, package.json, compile one by one) was a fifth of a
 * Hush child's start (4.8 → 3.5 s of CPU measured on this machine, 2026-11-28).
 */
export const CLI_ENTRIES = ['src/cli/start.ts', 'src/cli/localnet.ts', 'src/cli/admin.ts'];
/**
 * The packages a CLI bundle still loads from node_modules: those that find files beside their own code at run
 * time (PGlite's WebAssembly and data, the Swagger UI's pages, pino's transport threads, tsx and esbuild),
 * native ones (litesvm, ws's optional helpers, pg-native), and what only some configurations load.
 */
const CLI_EXTERNAL = [
  '@electric-sql/pglite', '@electric-sql/pglite/*', 'litesvm', 'pino', 'thread-stream', 'esbuild', 'tsx', 'tsx/*',
  '@fastify/swagger-ui', 'ioredis', 'pg', 'pg-native', 'bufferutil', 'utf-8-validate', 'playwright-core',
];
/**
 * And what the test files' bundles load from node_modules besides: fast-check (the preloaded property-seed.mjs
 * configures the one copy every property draws from), what tests start or read as programs (TypeScript, the
 * identity provider, autocannon), and the packages tests compare Hush with.
 */
const TEST_EXTERNAL = ['fast-check', 'typescript', 'oidc-provider', 'autocannon', '@solana/web3.js', 'micro-key-producer'];

/** What the runner itself runs before its pool (run-tests.mjs): the stores' template, made once. */
export const RUNNER_ENTRIES = ['test/runner/store-template.ts'];

/** Bundles `files` (test/… .ts paths), the CLI entries and the runner's own under `root`; returns the seconds it took. */
export async function bundleTests(root, files) {
  const t0 = Date.now();
  await rm(join(root, BUNDLE_DIR), { recursive: true, force: true });
  const common = {
    absWorkingDir: root,
    outdir: BUNDLE_DIR,
    outbase: '.',
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    outExtension: { '.js': '.mjs' },
    // Failures point at the .ts lines (node --enable-source-maps).
    sourcemap: 'linked',
    plugins: [originalImportMeta],
    logLevel: 'warning',
  };
  // HUSH_TEST_PACKAGES=external: every bundle loads its packages from node_modules (to tell whether a failure
  // comes from a package bundled).
  const packages = (external) =>
    process.env.HUSH_TEST_PACKAGES === 'external'
      ? { packages: 'external' }
      : {
          external,
          // The packages' own sources stay out of the maps (a map is read at load under --enable-source-maps).
          sourcesContent: false,
          // CommonJS packages inside an ES module bundle ask for `require` (their node: built-ins).
          banner: { js: "import { createRequire as __hushCreateRequire } from 'node:module'; const require = __hushCreateRequire(import.meta.url);" },
        };
  const cli = build({ ...common, entryPoints: [...CLI_ENTRIES, ...WORKER_ENTRIES], ...packages(CLI_EXTERNAL) });
  await build({
    ...common,
    entryPoints: [...files, ...RUNNER_ENTRIES],
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    ...packages([...CLI_EXTERNAL, ...TEST_EXTERNAL]),
  });
  await cli;
  return (Date.now() - t0) / 1000;
}
