#!/usr/bin/env bash
# The browser tests (test/console/) drive Debian's Chromium through playwright-core, never a browser a test
# tool downloads (docs/decisions.md). npm test runs this first: on a machine without /usr/bin/chromium it
# installs the packages when it can (root, apt-get), and otherwise stops the run here, loudly: the browser
# tests must not pass by being skipped.
set -euo pipefail
CHROMIUM="${HUSH_CHROMIUM:-/usr/bin/chromium}"
if [ -x "$CHROMIUM" ]; then exit 0; fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "ensure-chromium: $CHROMIUM is missing; installing Debian's chromium and chromium-driver" >&2
  export DEBIAN_FRONTEND=noninteractive
  # Another apt run (a second checkout installing at the same time) holds the lock: wait for it.
  apt-get -o DPkg::Lock::Timeout=600 update -qq
  apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends chromium chromium-driver >/dev/null
fi
if [ -x "$CHROMIUM" ]; then exit 0; fi
echo "ensure-chromium: $CHROMIUM is missing and could not be installed (run as root with apt-get, or: apt-get install chromium chromium-driver). The browser tests need it." >&2
exit 1
