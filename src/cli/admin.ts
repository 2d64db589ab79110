/** `npm run admin -- <command> [args]`: the operator CLI (see admin-cli.ts and docs/spec.md §3). */
import { runAdminCli } from './admin-cli.ts';

try {
  process.exitCode = await runAdminCli(process.argv.slice(2));
} catch (e) {
  // Unexpected failures: a one-line message, never a stack (it could carry SQL or a connection string).
  process.stderr.write(`error: ${(e as Error)?.message ?? String(e)}\n`);
  process.exitCode = 1;
}
