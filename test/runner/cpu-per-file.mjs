// Preloaded into every test process when HUSH_TEST_CPU names a file (`npm run test:cpu`): at exit each test
// file's process appends the CPU it spent (all its threads, and apart the children it started and reaped) as one JSON
// line. The suite's budget is CPU on two cores, and a file's wall time beside others says little about it.
import { appendFileSync, readFileSync } from 'node:fs';
import { relative } from 'node:path';

// The child processes a file started and reaped (Linux: cutime and cstime of /proc/self/stat, ticks of 10 ms).
export function childCpuMs() {
  try {
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
    return (Number(fields[13]) + Number(fields[14])) * 10;
  } catch {
    return 0;
  }
}

const out = process.env.HUSH_TEST_CPU;
const file = process.argv.find((a) => /\.test\.(m?js|ts)$/.test(a));
if (out && file) {
  process.on('exit', () => {
    const { user, system } = process.cpuUsage();
    appendFileSync(out, `${JSON.stringify({ file: relative(process.cwd(), file), cpuMs: Math.round((user + system) / 1000), childCpuMs: childCpuMs() })}\n`);
  });
}
