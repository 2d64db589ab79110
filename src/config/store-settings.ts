import { envUrl } from './env-url.ts';

/** Where Hush keeps its state: the data directory, the store, the shared limiter (docs/spec.md §11). */
export interface StoreSettings {
  dataDir: string;
  databaseUrl?: string;
  /** Optional PostgreSQL schema (side-by-side deployments, tests, benchmarks). */
  databaseSchema?: string;
  redisUrl?: string;
}

export function storeSettings(env: NodeJS.ProcessEnv): StoreSettings {
  return {
    dataDir: env.DATA_DIR || './data',
    databaseUrl: envUrl(env, 'DATABASE_URL', ['postgres:', 'postgresql:', 'socket:']),
    databaseSchema: env.DATABASE_SCHEMA || undefined,
    redisUrl: envUrl(env, 'REDIS_URL', ['redis:', 'rediss:'], true),
  };
}
