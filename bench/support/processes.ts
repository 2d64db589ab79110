/**
 * The benches' child processes: each part under measurement runs in a process of its own (two cores:
 * sharing an event loop with the stopwatch or the load generator would skew both).
 */
import { spawn, type ChildProcess } from 'node:child_process';

/** A TypeScript script in a child process; its stdout is piped (for waitLine), stderr shared. */
export function start(script: string, env: Record<string, string>, profile = false): ChildProcess {
  // BENCH_PROFILE=<dir>: a CPU profile of the process under test (written when it exits).
  const prof = profile && process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : [];
  // BENCH_NODE_FLAGS: Node or V8 flags for the process under test alone (a garbage collector's setting, say).
  const flags = profile ? (process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean) : [];
  return spawn(process.execPath, [...prof, ...flags, '--import', 'tsx', script], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
}

/** The first line of the child's output that matches; rejects if it exits first. */
export function waitLine(child: ChildProcess, match: (line: string) => boolean, name = 'child'): Promise<string> {
  return new Promise((resolve, reject) => {
    let buf = '';
    child.stdout!.on('data', (d: Buffer) => {
      buf += d.toString();
      for (const line of buf.split('\n')) if (match(line)) return resolve(line);
    });
    child.once('exit', (code) => reject(new Error(`${name} exited with ${code}`)));
  });
}

export async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The chain child's JSON-RPC and PubSub URLs, once it has printed both. */
export async function localnetUrls(chain: ChildProcess): Promise<{ url: string; wsUrl: string }> {
  const [line, wsLine] = await Promise.all([waitLine(chain, (l) => l.includes('JSON-RPC at')), waitLine(chain, (l) => l.includes('PubSub WebSocket at'))]);
  return { url: /JSON-RPC at (\S+)/.exec(line)![1]!, wsUrl: /PubSub WebSocket at (\S+)/.exec(wsLine)![1]! };
}
