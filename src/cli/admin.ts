/** `npm run admin -- <command> [args]`: the operator CLI (see admin-cli.ts and SPEC §3). */
import { runAdminCli } from './admin-cli.ts';

process.exitCode = await runAdminCli(process.argv.slice(2));
