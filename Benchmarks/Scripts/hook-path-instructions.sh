#!/bin/sh
# Instructions per hooked save by stage, counted by valgrind's callgrind (repeatable where time is
# not): runs the benchmark's Cloudlet server with its beforeSave + afterSave in worker processes
# (`CloudletBenchmark serve workers`) and the workers it starts under callgrind (valgrind 3.19),
# sends WARMUP saves on one keep-alive connection (or CONNECTIONS), zeroes the counts, sends SAVES more, dumps them,
# and sums each process's instructions by stage (Scripts/hook-path-stages.py says how).
# KEEP=1 keeps the dumps (the script prints their folder) for callgrind_annotate. SCENARIO=bare
# (or no-hooks, in-process) counts another of the benchmark's servers the same way (default workers);
# BY_TYPE=1 sums each process's instructions by the type that runs them instead of by stage (the
# 40 largest); CONNECTIONS=N sends the saves over N keep-alive connections at once (default 1), so that
# writes share commits and frames as they do under load; BINARY=path counts another build of CloudletBenchmark (default the release build below);
# LOG_LEVEL=info logs as `cloudlet serve` does by default, a line per request to standard error (default error: none).
#
# usage: Benchmarks/Scripts/hook-path-instructions.sh [SAVES] [WARMUP]   (defaults 500 and 100)
# Build first, from the repository's root: swift build -c release --package-path Benchmarks --product CloudletBenchmark
set -eu
scenario=${SCENARIO:-workers}
connections=${CONNECTIONS:-1}
saves=${1:-500}
warmup=${2:-100}
# shellcheck source=benchmark-server-common.sh
. "$(cd "$(dirname "$0")" && pwd)/benchmark-server-common.sh"
# Valgrind cannot read the DWARF 5 the Swift toolchain writes: a copy without it keeps the symbol
# table, which is all the stages need.
objcopy --strip-debug "$binary" "$folder/CloudletBenchmark"
# Valgrind 3.19 crashes when a program passes sigsuspend(2) a mask in read-only memory, as Swift's
# main thread does (through libdispatch): a preloaded sigsuspend passes it a copy.
cat >"$folder/sigsuspend.c" <<'C'
#define _GNU_SOURCE
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>
int sigsuspend(const sigset_t *mask) {
    sigset_t copy = *mask;
    return (int)syscall(SYS_rt_sigsuspend, &copy, 8);
}
C
cc -shared -fPIC -O2 -o "$folder/sigsuspend.so" "$folder/sigsuspend.c"
# The workers run under callgrind through a wrapper the server starts in their place (valgrind
# 3.19 does not follow the server into them: --trace-children=yes leaves them ending at once),
# with the preload, since the server gives them an environment of its own.
cat >"$folder/worker" <<SH
#!/bin/sh
export LD_PRELOAD="$folder/sigsuspend.so"
exec valgrind --tool=callgrind --vgdb-prefix="$folder/vgdb" --callgrind-out-file="$folder/callgrind.%p" "$folder/CloudletBenchmark" "\$@" 2>>"$folder/valgrind-workers.log"
SH
chmod +x "$folder/worker"
export LD_PRELOAD="$folder/sigsuspend.so" BENCHMARK_WORKER_EXECUTABLE="$folder/worker"
# One place for valgrind's control pipes, which the workers' TMPDIR (of their own) would move.
valgrind --tool=callgrind --vgdb-prefix="$folder/vgdb" --callgrind-out-file="$folder/callgrind.%p" \
    "$folder/CloudletBenchmark" serve "$scenario" <"$folder/input" >"$folder/output" 2>"$folder/valgrind.log" &
server=$!
exec 3>"$folder/input"   # the server runs until this closes
tries=0
until grep -q '^port ' "$folder/output" 2>/dev/null; do
    tries=$((tries + 1))
    kill -0 $server 2>/dev/null && [ $tries -lt 600 ] || { echo "the server did not start under callgrind:" >&2; tail -20 "$folder/valgrind.log" >&2; exit 1; }
    sleep 0.5
done
port=$(sed -n 's/^port //p' "$folder/output")
send() {
    python3 - "$port" "$1" "$2" "$connections" <<'PY'
import http.client, sys, threading
port, count, strict, connections = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3] == "strict", int(sys.argv[4])
body = ('{"text":"Hello from the load generator; this is a chat message body of moderate size, roughly like a real one typed by a person.",'
        '"channel":"general","clientId":"c0ffee-1234-5678-9abc","kind":"chat"}')
headers = {"X-Parse-Application-Id": "bench", "X-Parse-REST-API-Key": "ck", "Content-Type": "application/json"}
failures = []
def client(saves):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    for _ in range(saves):
        connection.request("POST", "/parse/classes/X", body, headers)
        answer = connection.getresponse()
        answer.read()
        if answer.status != 201 and strict: failures.append(answer.status)
threads = [threading.Thread(target=client, args=(count // connections + (index < count % connections),)) for index in range(connections)]
for thread in threads: thread.start()
for thread in threads: thread.join()
if failures: sys.exit(f"{len(failures)} saves answered other than 201: {sorted(set(failures))}")
PY
}
# The first calls may pass the hooks' time limit while valgrind translates the code they run.
send "$warmup" lenient
callgrind_control --vgdb-prefix="$folder/vgdb" -z >/dev/null 2>&1
send "$saves" strict
callgrind_control --vgdb-prefix="$folder/vgdb" -d >/dev/null 2>&1
dumps=$(ls "$folder"/callgrind.*.* 2>/dev/null || true)
[ -n "$dumps" ] || { echo "callgrind wrote no dump" >&2; exit 1; }
echo "$saves saves after $warmup unmeasured, $connections connection(s); server: $scenario"
[ -z "${KEEP:-}" ] || echo "dumps kept in $folder"
# shellcheck disable=SC2086
python3 "$here/hook-path-stages.py" "$saves" $dumps
exec 3>&-
wait $server || true
