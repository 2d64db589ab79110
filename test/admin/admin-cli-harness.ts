/** Running the admin CLI in tests: in this process or as a child, with an environment of the test's making. */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterTestFile } from '../support/after-test-file.ts';
import { cliCommand } from '../support/cli-command.ts';
import { runAdminCli } from '../../src/cli/admin-cli.ts';
import { tempDirs } from '../support/admin-fixtures.ts';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

const temp = tempDirs('hush-admin-cli-');
/** A fresh directory, removed when the test file ends. */
export const tempDir = temp.make;
afterTestFile(temp.removeAll);

/** A URL on which nothing listens, so the CLI's health probe finds no server. */
export async function closedPortUrl(): Promise<string> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as { port: number };
  await new Promise<void>((r) => srv.close(() => r()));
  return `http://127.0.0.1:${port}`;
}

/** The environment the CLI sees: nothing inherited that could point it at a real store or server. */
export function cliEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: process.env.HOME, ...extra };
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** `node --import tsx src/cli/admin.ts …`, as `npm run admin` runs it. */
export function runChild(args: string[], env: NodeJS.ProcessEnv): Promise<CliResult> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [...cliCommand('admin'), ...args], { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolvePromise({ code: code ?? -1, stdout, stderr });
    });
  });
}

export async function runInProcess(args: string[], env: NodeJS.ProcessEnv): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const code = await runAdminCli(args, env, { out: (t) => (stdout += t), err: (t) => (stderr += t) });
  return { code, stdout, stderr };
}

/** The JSON a successful run printed (fails the test on a non-zero exit, with its stderr). */
export function json(r: CliResult): Record<string, any> {
  assert.equal(r.code, 0, `exit ${r.code}; stderr: ${r.stderr}`);
  return JSON.parse(r.stdout);
}
