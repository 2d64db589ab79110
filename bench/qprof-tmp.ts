import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
const cpu = (pid: number) => { const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' '); return (Number(f[11]) + Number(f[12])) * 10; };
function wait(child: any, m: (l: string) => boolean): Promise<string> { return new Promise((res) => { let b = ''; child.stdout.on('data', (d: Buffer) => { b += d; for (const l of b.split('\n')) if (m(l)) res(l); }); }); }
const chain = spawn(process.execPath, ['--import', 'tsx', 'src/cli/localnet.ts'], { env: { ...process.env, DATA_DIR: mkdtempSync(join(tmpdir(), 'qc-')), LOCALNET_PORT: '0' }, stdio: ['ignore', 'pipe', 'inherit'] });
const chainUrl = /JSON-RPC at (\S+)/.exec(await wait(chain, (l) => l.includes('JSON-RPC at')))![1]!;
const env: any = { ...process.env, DATA_DIR: mkdtempSync(join(tmpdir(), 'qs-')), SOLANA_RPC_URL: chainUrl, HUSH_QUOTE_TTL_S: '900', BENCH_PROFILE_WINDOW: '/tmp/qp' };
if (process.env.ENGINE === 'postgres') Object.assign(env, { DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/test', DATABASE_SCHEMA: `qprof_${process.pid}` });
const srv = spawn(process.execPath, [...(process.env.NODEFLAGS ?? '').split(' ').filter(Boolean), '--import', 'tsx', 'bench/support/api-bench-server.ts'], { env, stdio: ['ignore', 'pipe', 'inherit'] });
const info = JSON.parse(await wait(srv, (l) => l.startsWith('{')));
const auth = { authorization: `Bearer ${info.apiKey}`, 'content-type': 'application/json' };
const body = JSON.stringify({ amount: '5000000', sourceAssetId: 'usdc', destinationAssetId: 'usdc', senderAddress: info.sender, recipientAddress: info.recipient });
for (let i = 0; ; i++) { const r = await fetch(`${info.hushUrl}/transfer/v1/quote`, { method: 'POST', headers: auth, body }); if (r.status === 200) break; await new Promise((r) => setTimeout(r, 200)); }
const opts = { url: `${info.hushUrl}/transfer/v1/quote`, method: 'POST' as const, headers: auth, body, connections: 50, duration: 5 };
await autocannon(opts);
let c0 = cpu(srv.pid!); await new Promise((r) => setTimeout(r, 10000)); console.log('idle cpu ms/s', (cpu(srv.pid!) - c0) / 10);
for (const name of ['bare', 'quote', 'bare', 'quote']) {
  const o = name === 'bare' ? { url: `${info.baselineUrl}/bare`, connections: 50, duration: 5 } : opts;
  if (process.env.PROFILE && name === 'quote') await fetch(`${info.baselineUrl}/profile/start`, { method: 'POST' });
  c0 = cpu(srv.pid!); const r = await autocannon(o); const used = cpu(srv.pid!) - c0;
  if (process.env.PROFILE && name === 'quote') console.log(await (await fetch(`${info.baselineUrl}/profile/stop`, { method: 'POST' })).text());
  console.log(name, r.requests.average, 'rps p99', r.latency.p99, 'cpu µs/req', (used * 1000 / r.requests.total).toFixed(0), 'non2xx', r.non2xx);
}
srv.kill('SIGTERM'); chain.kill('SIGTERM');
