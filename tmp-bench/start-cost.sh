#!/bin/bash
# usage: start-cost.sh DATA_DIR  — starts the bundled Hush, waits for its URL line, waits N s idle, SIGTERMs, prints CPU
D=$1; IDLE=${2:-0}
export HUSH_DEPOSIT_IDENTITY_TARGET=256 DATA_DIR=$D PORT=0 LOCALNET_PORT=0 LOCALNET_SLOT_MS=200 HUSH_SWEEP_INTERVAL_S=1
node --import ./tmp-bench/cpu-at-exit.mjs --enable-source-maps node_modules/.cache/hush-tests/src/cli/start.mjs > /tmp/start-cost.out 2>&1 &
TP=$!
for i in $(seq 1 600); do grep -q "call the API" /tmp/start-cost.out 2>/dev/null && break; sleep 0.1; done
echo "ready after ~$((i/10)) s"
sleep $IDLE
pkill -TERM -f "hush-tests/src/cli/start.mjs"
wait $TP
tail -1 /tmp/start-cost.out
