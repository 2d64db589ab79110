import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * A worker thread whose entry is TypeScript. Node 20 loads a worker's entry before `--import` hooks apply
 * (and a worker inherits none of the parent's), so a small bootstrap registers tsx, then imports the entry.
 * Works the same from `npm start`, a test bundle or a bench run through tsx.
 */
export function typescriptWorker(entry: URL, options: Omit<WorkerOptions, 'eval' | 'execArgv'> = {}): Worker {
  // JavaScript already (the test runner's bundle of the entry, test/runner/bundle-tests.mjs): nothing to register.
  if (/\.m?js$/.test(entry.pathname)) return new Worker(entry, { ...options, execArgv: [] });
  const tsx = import.meta.resolve('tsx/esm/api');
  const bootstrap = `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(entry.href)}); })`;
  return new Worker(bootstrap, { ...options, eval: true, execArgv: [] });
}
