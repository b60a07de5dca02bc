#!/usr/bin/env bash
# What an app far over its quota costs the server: wrk floods one app (quota 10/s, burst 10) with
# saves from 64 connections, and the server's answers per second and CPU time per answer are set
# against its cheapest route, GET /health, flooded the same way in the same run.
#
#   swift build -c release --product cloudlet && Benchmarks/Refusals/refusals.sh [seconds]
#
# CLOUDLET=<path> runs another build of `cloudlet` the same way (an earlier commit's, say).
# Needs wrk (apt-get install -y wrk). Keeps its data in a temporary folder.
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-15}
port=18337
data=$(mktemp -d)
trap 'kill "$server" 2>/dev/null || true; rm -rf "$data"' EXIT

"${CLOUDLET:-.build/release/cloudlet}" serve --data "$data" --port "$port" --client-key bench-client --master-key bench-master \
    --operator-key bench-operator --rate-limit 10/s,burst=10 --max-requests-per-address off > "$data/server.log" 2>&1 &
server=$!
for _ in $(seq 100); do curl -sf -o /dev/null "http://127.0.0.1:$port/health" && break; sleep 0.2; done

cat > "$data/save.lua" <<'LUA'
wrk.method = "POST"
wrk.body = '{"title":"flood"}'
wrk.headers["Content-Type"] = "application/json"
wrk.headers["X-Parse-Application-Id"] = "dev"
wrk.headers["X-Parse-REST-API-Key"] = "bench-client"
LUA

cpu_ticks() { awk '{print $14 + $15}' "/proc/$server/stat"; }

# Prints "answers/s µs-of-server-CPU-each 2xx" for a wrk flood of `seconds` at the given URL.
flood() {
    local url=$1; shift
    wrk -t1 -c64 -d2s "$@" "$url" > /dev/null
    local before after output
    before=$(cpu_ticks)
    output=$(wrk -t1 -c64 -d"${seconds}s" "$@" "$url")
    after=$(cpu_ticks)
    local answered non2xx
    answered=$(awk '/requests in/ {print $1}' <<< "$output")
    non2xx=$(awk '/Non-2xx/ {print $NF}' <<< "$output")
    python3 -c "
ticks = $after - $before
print(f'{$answered / $seconds:.0f} {ticks * 1e6 / $(getconf CLK_TCK) / $answered:.1f} {$answered - ${non2xx:-0}}')"
}

read -r health_rate health_cpu _ <<< "$(flood "http://127.0.0.1:$port/health")"
read -r refused_rate refused_cpu admitted <<< "$(flood "http://127.0.0.1:$port/parse/classes/Flood" -s "$data/save.lua")"
echo "GET /health:                      $health_rate answers/s, $health_cpu µs of server CPU each"
echo "saves over the app's quota (429): $refused_rate answers/s, $refused_cpu µs of server CPU each; $admitted admitted in $seconds s"
python3 -c "print(f'refusals / health: {$refused_rate / $health_rate:.2f}× the answers per second, {$refused_cpu / $health_cpu:.2f}× the CPU each')"
