/**
 * @hush/sdk is publishable (issue 43): a license and a changelog shipped with it, @solana/kit a peer
 * dependency whose declared range the kit this repository tests against satisfies, and `npm publish
 * --dry-run` packing exactly what a partner needs (dist, bin, README, LICENSE, CHANGELOG; no sources or tests).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import { promisify } from 'node:util';
import semver from 'semver';

const dir = new URL('../../packages/sdk/', import.meta.url).pathname;
const pkg = JSON.parse(readFileSync(`${dir}package.json`, 'utf8'));

test('license, changelog entry for this version, @solana/kit a peer in a range the tested kit satisfies', () => {
  assert.equal(pkg.license, 'MIT');
  assert.match(readFileSync(`${dir}LICENSE`, 'utf8'), /^MIT License/);
  assert.ok(readFileSync(`${dir}CHANGELOG.md`, 'utf8').includes(`## ${pkg.version} `), `CHANGELOG.md has an entry for ${pkg.version}`);
  assert.equal(pkg.dependencies['@solana/kit'], undefined, 'kit is the application\'s, not a second copy');
  const range = pkg.peerDependencies['@solana/kit'];
  // kit's exports do not include package.json: read it from where its entry point resolves.
  const entry = createRequire(import.meta.url).resolve('@solana/kit');
  const installed = JSON.parse(readFileSync(`${entry.slice(0, entry.lastIndexOf('/node_modules/@solana/kit/') + '/node_modules/@solana/kit/'.length)}package.json`, 'utf8')).version as string;
  assert.ok(semver.satisfies(installed, range), `the tested kit ${installed} satisfies ${range}`);
});

test('npm publish --dry-run packs the built SDK, its bin, README, LICENSE and CHANGELOG, and nothing else', { timeout: 120_000 }, async () => {
  const { stdout } = await promisify(execFile)('npm', ['publish', '--dry-run', '--json'], { cwd: dir, maxBuffer: 8 << 20 });
  const report = JSON.parse(stdout.slice(stdout.indexOf('{')));
  const files: string[] = (report.files ?? report['@hush/sdk']?.files).map((f: { path: string }) => f.path);
  for (const f of ['LICENSE', 'CHANGELOG.md', 'README.md', 'package.json', 'bin/hush.js', 'dist/index.js', 'dist/index.d.ts']) assert.ok(files.includes(f), `${f} is packed`);
  assert.deepEqual(files.filter((f) => !/^(dist|bin)\//.test(f) && !['LICENSE', 'CHANGELOG.md', 'README.md', 'package.json'].includes(f)), [], 'nothing else');
});
