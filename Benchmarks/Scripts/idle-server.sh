#!/bin/bash
# What an idle server costs: starts the benchmark's Cloudlet server with its hooks in two worker
# processes (`CloudletBenchmark serve workers`), lets it settle 3 s, then prints the CPU time and
# the thread switches (voluntary and not) of the server and its workers over SECONDS, from /proc,
# per second; THREADS=1 also prints each thread that switched more than once a second.
#
# usage: Benchmarks/Scripts/idle-server.sh [SECONDS]   (default 30)
# Build first, from the repository's root: swift build -c release --package-path Benchmarks --product CloudletBenchmark
set -eu
seconds=${1:-30}
# shellcheck source=benchmark-server-common.sh
. "$(cd "$(dirname "$0")" && pwd)/benchmark-server-common.sh"
"$binary" serve workers <"$folder/input" >"$folder/output" 2>/dev/null &
server=$!
exec 3>"$folder/input"   # the server runs until this closes
until grep -q '^port ' "$folder/output" 2>/dev/null; do
    kill -0 $server 2>/dev/null || { echo "the server did not start" >&2; exit 1; }
    sleep 0.2
done
sleep 3
# Each thread of the server and its workers: "pid/tid name cpu-ticks switches".
sample() {
    for pid in $server $(pgrep -P $server); do
        for task in /proc/$pid/task/*; do
            ticks=$(awk '{sub(/.*\) /, ""); print $12 + $13}' "$task/stat")
            switches=$(awk '/ctxt_switches/ {s += $2} END {print s}' "$task/status")
            echo "$pid/$(basename "$task") $(tr ' ' '_' <"$task/comm") $ticks $switches"
        done
    done
}
sample >"$folder/before"
sleep "$seconds"
sample >"$folder/after"
python3 - "$folder/before" "$folder/after" "$seconds" "${THREADS:-}" "$(getconf CLK_TCK)" <<'PY'
import sys
def read(path):
    return {fields[0]: (fields[1], int(fields[2]), int(fields[3])) for fields in (line.split() for line in open(path))}
before, after, seconds, threads, tick = read(sys.argv[1]), read(sys.argv[2]), float(sys.argv[3]), sys.argv[4], int(sys.argv[5])
ticks = sum(t - before.get(k, (None, t, s))[1] for k, (_, t, s) in after.items())
switches = sum(s - before.get(k, (None, t, s))[2] for k, (_, t, s) in after.items())
processes = len({k.split("/")[0] for k in after})
print(f"{processes} processes: CPU {ticks * 1000 / tick / seconds:.2f} ms/s, switches {switches / seconds:.1f}/s")
if threads:
    rows = [((s - before[k][2]) / seconds, k, name) for k, (name, t, s) in after.items() if k in before]
    for rate, k, name in sorted(rows, reverse=True):
        if rate > 1: print(f"  {rate:6.1f}/s  {k} {name}")
PY
