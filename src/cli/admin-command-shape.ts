/** What an admin CLI command is (src/cli/admin-commands.ts and the command files it gathers): its own file, so those files and the list of them import it without importing each other. */
import type { AdminService } from '../admin/admin-service.ts';
import type { SolanaChain } from '../chain/solana-chain.ts';
import type { HushConfig } from '../config/config.ts';
import type { Db } from '../store/db.ts';
import type { Random } from '../support/random.ts';
import type { Clock } from '../support/clock.ts';
import type { Treasury } from '../treasury/treasury.ts';
import type { QueryGroup } from './admin-query-flags.ts';

export type OptionName = 'fee-cap-bps' | 'expires-at' | 'email' | 'take-over';

export interface ParsedOptions {
  feeCapBps?: number;
  expiresAt?: string;
  email?: string;
  /** The filter flags as the admin API's query parameters (src/cli/admin-query-flags.ts). */
  query?: Record<string, string>;
  csv?: boolean;
  /** claim, unclaim: take another operator's claim (admin-hold-commands.ts). */
  takeOver?: boolean;
}

export interface HttpRequest {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';
  path: string;
  body?: Record<string, unknown>;
  /** The answer is a file (CSV), printed as it is, not JSON. */
  text?: true;
}

/** A command's answer that is a file's text (the log's CSV): printed as it is. */
export class FileText {
  constructor(readonly text: string) {}
}

export interface Command {
  args: string[];
  options: OptionName[];
  summary: string;
  /** The note printed after a secret is shown once. */
  issuesSecret?: string;
  /** Reads only: run directly, it opens an existing store and never creates or migrates one. */
  readOnly?: true;
  /** The filter flags it takes (the admin API's query parameters), and whether `--csv`. */
  query?: QueryGroup;
  csv?: true;
  http(args: string[], opts: ParsedOptions): HttpRequest;
  direct(admin: AdminService, args: string[], opts: ParsedOptions, ctx: DirectContext): Promise<unknown>;
}

/** What direct-mode commands beyond accounts need: the store, and lazily the chain and treasury. */
export interface DirectContext {
  db: Db;
  /** The CLI's clock (the system's): waits for a returned stray's confirmation, screening lists' stamps. */
  clock: Clock;
  /** The CLI's randomness (the system's): a returned stray's sealed record. */
  random: Random;
  config(): HushConfig;
  treasury(): Promise<{ chain: SolanaChain; treasury: Treasury; config: HushConfig }>;
}
