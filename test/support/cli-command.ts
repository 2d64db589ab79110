/**
 * The node arguments that run one of Hush's command-line entries (src/cli/<name>.ts) in a child process.
 * Under `npm test` the runner has bundled each entry with the test files (test/runner/bundle-tests.mjs) and
 * says where (HUSH_TEST_CLI_BUNDLES): the child loads one bundle natively instead of resolving every module
 * through tsx's hooks thread, about 4–5 s of CPU per child on this machine (measured 6.9 s against 1.7 s
 * for the import of the start graph under load), and the suite starts over a hundred children. The source
 * is the same; what `npm start` itself runs (the tsx entry) stays tested by the files that run the npm
 * command (test/config/start-cli.test.ts, the README's example). Run alone (`node --import tsx --test`),
 * a file starts the tsx entry as before.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';

export type CliEntry = 'start' | 'localnet' | 'admin';

export function cliCommand(entry: CliEntry): string[] {
  const dir = process.env.HUSH_TEST_CLI_BUNDLES;
  const bundle = dir ? join(dir, 'src', 'cli', `${entry}.mjs`) : null;
  // Liftoff alone, as the test processes (test/runner/run-tests.mjs): a child lives seconds to a minute.
  if (bundle && existsSync(bundle)) return ['--liftoff-only', '--enable-source-maps', bundle];
  return ['--import', 'tsx', `src/cli/${entry}.ts`];
}
