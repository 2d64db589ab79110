/**
 * @hush/sdk is publishable (issue 43): a license and a changelog shipped with it, @solana/kit a peer
 * dependency whose declared range the kit this repository tests against satisfies, and `npm publish
 * --dry-run` packing exactly what a partner needs (dist, bin, README, LICENSE, CHANGELOG; no sources or tests).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
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
  assert.match(readFileSync(`${dir}src/version.ts`, 'utf8'), new RegExp(`SDK_VERSION = '${pkg.version.replace(/\./g, '\\.')}'`), '`hush --version` answers the package version');
  assert.equal(pkg.dependencies['@solana/kit'], undefined, 'kit is the application\'s, not a second copy');
  const range = pkg.peerDependencies['@solana/kit'];
  // kit's exports do not include package.json: read it from where its entry point resolves.
  const entry = createRequire(import.meta.url).resolve('@solana/kit');
  const installed = JSON.parse(readFileSync(`${entry.slice(0, entry.lastIndexOf('/node_modules/@solana/kit/') + '/node_modules/@solana/kit/'.length)}package.json`, 'utf8')).version as string;
  assert.ok(semver.satisfies(installed, range), `the tested kit ${installed} satisfies ${range}`);
});

test('the Node range is true of everything the SDK installs, as the README installs it', () => {
  const root = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
  const floor = semver.minVersion(pkg.engines.node)!.version;
  // The SDK's dependencies and its peer, transitively, as installed here (the README's pin applied, as the root's is).
  const seen = new Set<string>();
  const refused: string[] = [];
  const queue = [...Object.keys(pkg.dependencies), ...Object.keys(pkg.peerDependencies)];
  while (queue.length) {
    const name = queue.shift()!;
    if (seen.has(name)) continue;
    seen.add(name);
    const at = [`${dir}node_modules/${name}/package.json`, new URL(`../../node_modules/${name}/package.json`, import.meta.url).pathname].find((p) => existsSync(p));
    if (!at) continue; // an optional dependency not installed on this platform
    const dep = JSON.parse(readFileSync(at, 'utf8'));
    const wanted = dep.engines?.node;
    if (typeof wanted === 'string' && semver.validRange(wanted) && !semver.satisfies(floor, wanted)) refused.push(`${name}@${dep.version} wants node ${wanted}`);
    queue.push(...Object.keys(dep.dependencies ?? {}));
  }
  assert.ok(seen.size > 20, `${seen.size} packages checked`);
  assert.deepEqual(refused, [], `every package the SDK installs supports its floor, Node ${floor}`);
  const readme = readFileSync(`${dir}README.md`, 'utf8');
  // The install commands are the root README's, which test/docs/readme-example-outside.test.ts runs: the same here.
  const install = (text: string) => /<!-- readme-install: sdk -->\n```sh\n([\s\S]*?)```/.exec(text)?.[1];
  const commands = install(readFileSync(new URL('../../README.md', import.meta.url), 'utf8'));
  assert.ok(commands?.includes('npm install ./hush-sdk-*.tgz @solana/kit'), 'the root README installs the packed SDK with its peer');
  assert.ok(readme.includes(`\`\`\`sh\n${commands}\`\`\``), "the SDK README gives the root README's install commands");
  assert.ok(readme.includes(`\`${pkg.engines.node}\``), 'the README states the engines range');
  // The one dependency whose latest engines exclude Node 20 (commander@15, via @solana/errors) is pinned as the repository pins it.
  const pin = JSON.parse(/```json\n(\{ "overrides".*\})\n```/.exec(readme)![1]!);
  assert.deepEqual(pin.overrides, { commander: root.overrides.commander });
  assert.ok(readme.includes(`Node ≥ ${floor.replace(/\.0$/, '')}`), 'the README says the same floor');
});

test('npm publish --dry-run packs the built SDK, its bin, README, LICENSE and CHANGELOG, and nothing else', { timeout: 120_000 }, async () => {
  const { stdout, stderr } = await promisify(execFile)('npm', ['publish', '--dry-run', '--json'], { cwd: dir, maxBuffer: 8 << 20 });
  // Issue 53: npm corrected nothing (it once dropped "./bin/hush.js" with 'bin[hush] … was invalid and removed').
  assert.doesNotMatch(stderr, /auto-corrected|invalid|bin\[/, 'package.json needs no correction');
  assert.equal(pkg.bin.hush, 'bin/hush.js');
  const report = JSON.parse(stdout.slice(stdout.indexOf('{')));
  const files: string[] = (report.files ?? report['@hush/sdk']?.files).map((f: { path: string }) => f.path);
  for (const f of ['LICENSE', 'CHANGELOG.md', 'README.md', 'package.json', 'bin/hush.js', 'dist/index.js', 'dist/index.d.ts']) assert.ok(files.includes(f), `${f} is packed`);
  assert.deepEqual(files.filter((f) => !/^(dist|bin)\//.test(f) && !['LICENSE', 'CHANGELOG.md', 'README.md', 'package.json'].includes(f)), [], 'nothing else');
});
