#!/usr/bin/env bash
# What a flood from one client address costs another address: `cloudlet serve` (hooks in-process,
# no app quota), a steady client saving from 127.0.0.2 every 50 ms, alone and then beside wrk
# flooding `GET /health` from 127.0.0.1 over 64 connections. Prints the steady client's p50/p99,
# wrk's answers per second and the server's CPU ticks. Extra arguments go to `serve`, so
#   Benchmarks/AddressFlood/address-flood.sh                                  # the default pace
#   Benchmarks/AddressFlood/address-flood.sh --max-requests-per-address off   # no pace
# measure the two in one run. Needs wrk (apt-get install -y wrk) and a release build.
set -euo pipefail
cd "$(dirname "$0")/../.."
bin="${CLOUDLET:-.build/release/cloudlet}"
port="${PORT:-18411}"
data=$(mktemp -d)
"$bin" serve --data "$data" --port "$port" --isolation in-process --rate-limit off "$@" > "$data/log" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null || true; rm -rf "$data"' EXIT
for _ in $(seq 50); do curl -s "http://127.0.0.1:$port/health" > /dev/null && break; sleep 0.2; done
key=$(grep -o 'client key: [^ ]*' "$data/log" | awk '{print $3}')
echo "alone:  $(python3 Benchmarks/AddressFlood/steady.py "$port" "$key" 8)"
wrk -t1 -c64 -d10s "http://127.0.0.1:$port/health" > "$data/wrk" 2>&1 &
flood=$!
sleep 1
echo "flood:  $(python3 Benchmarks/AddressFlood/steady.py "$port" "$key" 8)"
wait "$flood"
echo "wrk:    $(grep -E 'Requests/sec' "$data/wrk")"
echo "server CPU ticks: $(awk '{print $14 + $15}' "/proc/$server/stat")"
