import pg from 'pg';

/** Whether a PostgreSQL server answers at `url` within two seconds (benches skip that engine when not). */
export async function postgresReachable(url: string): Promise<boolean> {
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await c.connect();
    await c.end();
    return true;
  } catch {
    return false;
  }
}
