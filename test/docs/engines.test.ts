import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import semver from 'semver';

// npm ci warns EBADENGINE for any installed package whose engines.node excludes the running Node; the
// README promises the Node the project declares, so a partner's first install must not open with that.
function packageDirs(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    if (!existsSync(dir)) return;
    for (const name of readdirSync(dir)) {
      if (name.startsWith('.')) continue;
      const full = join(dir, name);
      if (name.startsWith('@')) { walk(full); continue; }
      if (existsSync(join(full, 'package.json'))) out.push(full);
      walk(join(full, 'node_modules'));
    }
  };
  walk(root);
  return out;
}

test('every installed package supports the running Node and the declared engines floor', () => {
  const own = JSON.parse(readFileSync('package.json', 'utf8')) as { engines: { node: string } };
  const floor = semver.minVersion(own.engines.node);
  assert.ok(floor, 'package.json declares engines.node');
  const dirs = packageDirs('node_modules');
  assert.ok(dirs.length > 100, `found ${dirs.length} installed packages`);
  const refused: string[] = [];
  for (const dir of dirs) {
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string; engines?: { node?: unknown } };
    const wanted = pkg.engines?.node;
    if (typeof wanted !== 'string' || !semver.validRange(wanted)) continue;
    for (const v of [process.versions.node, floor.version]) {
      if (!semver.satisfies(v, wanted, { includePrerelease: true })) refused.push(`${pkg.name}@${pkg.version} wants node ${wanted}, not ${v}`);
    }
  }
  assert.deepEqual([...new Set(refused)], []);
});
