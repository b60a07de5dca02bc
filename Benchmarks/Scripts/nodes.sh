#!/bin/sh
# Saves/s of 1, 2 and 3 `cloudlet serve` nodes on one PostgreSQL against one node on SQLite, in one
# run: a release build of `cloudlet`, a throwaway PostgreSQL server in a temporary folder (fsync on,
# as shipped), then for each configuration
#   sqlite  one node on SQLite (its data folder);
#   pg1, pg2, pg3  1, 2 and 3 nodes on one fresh PostgreSQL database (`--database`, `--nodes N`);
# a warm-up, then `reps` measurements of `seconds` each. Each node is `cloudlet serve` on its own port
# and data folder, the default app `dev` with the `Hooks/` module's hooks in worker processes (the
# default), rate limits off. One wrk per node (one thread, connections/N connections) POSTs a
# 200-byte `Posts` object, so the same total connections load every configuration.
# Each measurement reads utime+stime (and the times of reaped children) of every node's process tree
# (its server and its workers) and of PostgreSQL's (the postmaster and every backend) in /proc
# before and after: CPU µs per save of each node and of PostgreSQL.
# Prints a line per measurement, then per database what `pg_stat_database` counted per post saved
# (transactions, rows written and read), then a table of each configuration's median against sqlite's.
# Usage: Benchmarks/Scripts/nodes.sh [seconds] [connections] [reps] [warm-up seconds]
#   (from the repository's root; connections divisible by 1, 2 and 3 split evenly)
set -eu
seconds=${1:-10} connections=${2:-24} reps=${3:-3} warmup=${4:-3}
swift build -c release --product cloudlet >&2
binary=$(swift build -c release --show-bin-path)/cloudlet
. "$(dirname "$0")/nodes-common.sh"
pgport=18540 firstport=18541

postgres_start $pgport

cat >"$work/post.lua" <<'LUA'
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["X-Parse-Application-Id"] = "dev"
wrk.headers["X-Parse-REST-API-Key"] = "bench-client"
wrk.body = '{"title":"  Hello from the load generator  ","body":"A post of moderate size, roughly like one a person types into a form before pressing the send key.","tags":["News"," chat ","news"],"kind":"post"}'
LUA

# CPU ticks of a process and all its descendants, counting the children each already reaped.
tree_ticks() {
    python3 - "$@" <<'PY'
import os, sys
parents, ticks = {}, {}
for name in os.listdir("/proc"):
    if not name.isdigit(): continue
    try: fields = open(f"/proc/{name}/stat").read().rsplit(")", 1)[1].split()
    except OSError: continue
    parents.setdefault(int(fields[1]), []).append(int(name))
    ticks[int(name)] = sum(int(f) for f in fields[11:15])
for root in sys.argv[1:]:
    total, stack = 0, [int(root)]
    while stack:
        pid = stack.pop(); total += ticks.get(pid, 0); stack += parents.get(pid, [])
    print(total, end=" ")
print()
PY
}

# Runs one configuration: $1 its name, $2 its node count, $3 "pg" or "sqlite".
run_configuration() {
    name=$1 count=$2 store=$3
    database=""
    if [ "$store" = pg ]; then
        "$pgbin/createdb" -h 127.0.0.1 -p $pgport -U cloudlet "$name"
        database="postgres://cloudlet@127.0.0.1:$pgport/$name"
    fi
    i=0 urls=""
    while [ $i -lt "$count" ]; do
        port=$((firstport + i))
        set -- serve --port $port --data "$work/$name/node$i" --client-key bench-client --master-key bench-master \
            --rate-limit off --max-requests-per-address off --log-level warning
        [ -n "$database" ] && set -- "$@" --database "$database" --nodes "$count"
        mkdir -p "$work/$name"
        serve_node "$work/$name/node$i.log" $port "$@"
        urls="$urls http://127.0.0.1:$port/parse/classes/Posts"
        i=$((i + 1))
    done
    each=$((connections / count))
    loads=""
    for url in $urls; do wrk -t1 -c$each -d${warmup}s -s "$work/post.lua" "$url" >/dev/null & loads="$loads $!"; done
    for load in $loads; do wait "$load"; done
    rep=1
    while [ "$rep" -le "$reps" ]; do
        before=$(tree_ticks $pids $postmaster)
        i=0 loads=""
        for url in $urls; do
            wrk -t1 -c$each -d${seconds}s --latency -s "$work/post.lua" "$url" >"$work/$name/wrk$i" &
            loads="$loads $!" i=$((i + 1))
        done
        for load in $loads; do wait "$load"; done
        after=$(tree_ticks $pids $postmaster)
        cat "$work/$name"/wrk* | awk -v name="$name" -v rep="$rep" -v before="$before" -v after="$after" \
            -v hz="$(getconf CLK_TCK)" -v seconds="$seconds" '
            function ms(text) { if (text ~ /us$/) return text / 1000; if (text ~ /ms$/) return text + 0; return text * 1000 }
            / requests in / { requests += $1 }
            /Non-2xx/ { bad += $NF }
            /Socket errors/ { gsub(/,/, ""); errors += $4 + $6 + $8 + $10 }
            / 50%/ { if (ms($2) > p50) p50 = ms($2) } / 99%/ { if (ms($2) > p99) p99 = ms($2) }
            END {
                saves = requests - bad
                n = split(before, b, " "); split(after, a, " ")
                nodes = ""
                for (i = 1; i < n; i++) nodes = nodes sprintf("%s%.0f", i > 1 ? "," : "", (a[i] - b[i]) / hz * 1e6 / saves)
                printf "%s %d %.0f %.2f %.2f %d %d %s %.0f\n", name, rep, saves / seconds, p50, p99, bad, errors,
                    nodes, (a[n] - b[n]) / hz * 1e6 / saves
            }' | tee -a "$work/results"
        rep=$((rep + 1))
    done
    posts=$(curl -s -H X-Parse-Application-Id:dev -H X-Parse-Master-Key:bench-master \
        "http://127.0.0.1:$firstport/parse/classes/Posts?count=1&limit=0" | python3 -c 'import json, sys; print(json.load(sys.stdin)["count"])')
    stop_nodes
    if [ "$store" = pg ]; then
        "$pgbin/psql" -h 127.0.0.1 -p $pgport -U cloudlet -d "$name" -Atc "select xact_commit, tup_inserted, tup_updated,
            tup_deleted, tup_returned + tup_fetched from pg_stat_database where datname = '$name'" | awk -F'|' -v name="$name" -v posts="$posts" '
            { printf "%s: %d posts saved in all (warm-up included); per post, the database committed %.1f transactions, inserted %.1f rows, updated %.1f, deleted %.1f, read %.1f\n",
                name, posts, $1 / posts, $2 / posts, $3 / posts, $4 / posts, $5 / posts }' >>"$work/database"
    fi
    if grep -h -i -E 'level=(error|critical|warning)|error' "$work/$name"/node*.log >"$work/$name/problems"; then
        echo "$name: the nodes logged $(wc -l <"$work/$name/problems") warnings or errors, the first:" >&2
        head -5 "$work/$name/problems" >&2
    fi
}

echo "$(nproc) cores, $seconds s x $reps after ${warmup} s of warm-up, $connections connections in all; PostgreSQL $("$pgbin/postgres" --version | awk '{print $3}') fsync on"
echo "config rep saves/s p50ms p99ms non-2xx socket-errors node-cpu-us/save pg-cpu-us/save"
run_configuration sqlite 1 sqlite
run_configuration pg1 1 pg
run_configuration pg2 2 pg
run_configuration pg3 3 pg

echo; cat "$work/database"
python3 - "$work/results" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    name, rep, saves, p50, p99, bad, errors, nodes, pg = line.split()
    rows.setdefault(name, []).append((float(saves), float(p50), float(p99), int(bad), int(errors), [float(x) for x in nodes.split(",")], float(pg)))
def median_row(runs): return sorted(runs, key=lambda run: run[0])[len(runs) // 2]
base = median_row(rows["sqlite"])
print("\nmedian of each configuration's measurements, ratios against sqlite's:")
print("| config | saves/s (ratio) | p50 / p99 ms | non-2xx | CPU µs/save: each node | PostgreSQL | all (ratio) |")
print("|---|---|---|---|---|---|---|")
for name, runs in rows.items():
    saves, p50, p99, bad, errors, nodes, pg = median_row(runs)
    total = sum(nodes) + pg
    print(f"| {name} | {saves:,.0f} ({saves / base[0]:.2f}) | {p50:.1f} / {p99:.1f} | {sum(r[3] + r[4] for r in runs)} "
          f"| {', '.join(f'{n:.0f}' for n in nodes)} | {pg:.0f} | {total:.0f} ({total / (sum(base[5]) + base[6]):.2f}) |")
PY
