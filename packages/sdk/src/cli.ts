#!/usr/bin/env node
/**
 * The `hush` process (bin/hush.js): runCli (cli-main.ts) with this process's arguments, environment and
 * streams, and its answer as the exit status.
 */
import { runCli } from './cli-main.ts';

runCli(process.argv.slice(2), { env: process.env, stdout: process.stdout, stderr: process.stderr }).then((code) => process.exit(code));
