/**
 * Hush as a real child process: `node --import tsx src/cli/start.ts` with the given environment. The
 * API and chain URLs are read from the CLI's startup line (PORT=0 and LOCALNET_PORT=0 let the OS pick
 * ports; the line reports the real ones). Every process started here is killed when the test file ends.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { afterTestFile } from './after-test-file.ts';
import { cliCommand } from './cli-command.ts';
import { REPO_ROOT, sleep } from './localnet.ts';

export interface HushProcess {
  /** http://127.0.0.1:<port>, or null for HUSH_ROLE=worker. */
  url: string | null;
  /** The ops listener (every role): /healthz, /readyz, /metrics, /admin/v1. */
  opsUrl: string;
  chainUrl: string;
  proc: ChildProcess;
  /** The last ~256 KiB the process wrote (stdout and stderr). */
  output(): string;
  /** Every line it wrote that is a pino record at error level or above (level >= 50), however long it ran. */
  errorLines(): string[];
  /** Resolves once the process is gone. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Sends a signal (if still running) and waits for the exit. */
  stop(signal: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const running = new Set<ChildProcess>();
afterTestFile(() => {
  for (const p of running) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
});

const KEEP = 256 * 1024;

/**
 * Starts Hush and waits for its "hush: <role> role; API …; ops …; chain …" line. Only the variables given in
 * `env` (plus PATH/HOME) reach the child, so nothing from the developer's environment leaks in.
 */
export async function spawnHush(
  env: Record<string, string>,
  /** `tsx`: the entry exactly as `npm start` runs it (class names as written: a heap is read by them), not its bundle. */
  opts: { timeoutMs?: number; label?: string; entry?: 'tsx' } = {},
): Promise<HushProcess> {
  const proc = spawn(process.execPath, opts.entry === 'tsx' ? ['--import', 'tsx', 'src/cli/start.ts'] : cliCommand('start'), {
    cwd: REPO_ROOT,
    // (HUSH_DEPOSIT_IDENTITY_TARGET: see startTestHush; a test may set its own.)
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', TMPDIR: process.env.TMPDIR ?? '', HUSH_DEPOSIT_IDENTITY_TARGET: '256', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(proc);
  let out = '';
  const errors: string[] = [];
  const partial = { stdout: '', stderr: '' };
  // Scanned line by line as it arrives (each stream on its own): `out` keeps only the tail, and an error
  // line must never scroll away.
  const append = (stream: 'stdout' | 'stderr') => (d: string) => {
    out += d;
    if (out.length > 2 * KEEP) out = out.slice(-KEEP);
    const lines = (partial[stream] + d).split('\n');
    partial[stream] = lines.pop()!;
    for (const line of lines) if (isErrorRecord(line)) errors.push(line);
  };
  proc.stdout!.setEncoding('utf8').on('data', append('stdout'));
  proc.stderr!.setEncoding('utf8').on('data', append('stderr'));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((res) =>
    proc.once('exit', (code, signal) => {
      running.delete(proc);
      res({ code, signal });
    }),
  );
  const deadline = Date.now() + (opts.timeoutMs ?? 180_000);
  let m: RegExpExecArray | null = null;
  while (!(m = /hush: (\w+) role; API (\S+); ops (\S+); chain (\S+);/.exec(out))) {
    if (proc.exitCode !== null || proc.signalCode !== null) throw new Error(`hush${opts.label ? ` (${opts.label})` : ''} exited before it was ready (${proc.exitCode ?? proc.signalCode}):\n${out.slice(-4000)}`);
    if (Date.now() > deadline) {
      proc.kill('SIGKILL');
      throw new Error(`hush${opts.label ? ` (${opts.label})` : ''} did not start in time:\n${out.slice(-4000)}`);
    }
    await sleep(25);
  }
  const url = m[2] === '(off)' ? null : m[2]!.replace('[::1]', '127.0.0.1');
  return {
    url,
    opsUrl: m[3]!.replace('[::1]', '127.0.0.1'),
    chainUrl: m[4]!,
    proc,
    output: () => out,
    errorLines: () => [...errors, ...Object.values(partial).filter(isErrorRecord)],
    exited,
    async stop(signal) {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
      return exited;
    },
  };
}

/** A pino JSON line at error level or above (50 error, 60 fatal). */
function isErrorRecord(line: string): boolean {
  if (!line.startsWith('{')) return false;
  try {
    const level = (JSON.parse(line) as { level?: unknown }).level;
    return typeof level === 'number' && level >= 50;
  } catch {
    return false;
  }
}

/** Waits for a process to exit by itself, failing after `timeoutMs` with its output. */
export async function waitForExit(p: HushProcess, timeoutMs: number, what: string): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, rej) => {
    timer = setTimeout(() => rej(new Error(`${what}: the process did not exit within ${timeoutMs} ms:\n${p.output().slice(-4000)}`)), timeoutMs);
  });
  try {
    return await Promise.race([p.exited, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** High per-key limits so polling never meets a 429 (limits have their own tests). */
export const HIGH_RATE_LIMITS = 'quote=1000,order=1000,status=1000,tokens=1000';
