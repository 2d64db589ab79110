/**
 * The partner CLI (packages/sdk/src/cli.ts) in its own process, as tests run it: bundled once per test process
 * with esbuild from the current source, then started with plain node. Through tsx every start compiled the
 * SDK again (about a second of CPU each; a loaded run's eleven starts outlived a 60 s test).
 */
import { execFile } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { promisify } from 'node:util';
import { build } from 'esbuild';

const ROOT = new URL('../../', import.meta.url);
const SOURCE = new URL('packages/sdk/src/cli.ts', ROOT).pathname;
/** Inside the repository, so the SDK's packages (left external) resolve from its node_modules. */
const OUT_DIR = new URL('node_modules/.cache/hush-partner-cli/', ROOT).pathname;

let built: Promise<string> | undefined;

function bundled(): Promise<string> {
  built ??= (async () => {
    mkdirSync(OUT_DIR, { recursive: true });
    const outfile = `${OUT_DIR}cli-${process.pid}.mjs`;
    process.once('exit', () => rmSync(outfile, { force: true }));
    await build({ entryPoints: [SOURCE], outfile, bundle: true, format: 'esm', platform: 'node', target: 'node20', packages: 'external', sourcemap: 'inline', logLevel: 'warning' });
    return outfile;
  })();
  return built;
}

/** Runs `hush <args>` with `env` (on top of this process's); its exit code and both streams. */
export async function runPartnerCli(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  const file = await bundled();
  return promisify(execFile)(process.execPath, ['--enable-source-maps', file, ...args], { env: { ...process.env, ...env } }).then(
    (r) => ({ code: 0, ...r }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
  );
}
