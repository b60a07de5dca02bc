#!/bin/sh
# LiveQuery under load: CONNECTIONS WebSocket clients hold SUBSCRIPTIONS subscriptions each
# (`{"room": r}` on class Message, PER_ROOM subscribers to each room) while Message objects are
# saved at RATE a second for SECONDS, each to a random room; measured, for each configuration:
#   sqlite  one `cloudlet serve` node on SQLite, the clients and the saves on it;
#   pg2     two nodes on one PostgreSQL (`--database`, `--nodes 2`), the clients on the second
#           node and the saves on the first, so every event crosses from one node to the other.
# Prints per configuration: saves/s answered, create events delivered a second and against the
# events due (each save's room's subscribers), the delay from a save's request to its event's
# arrival (p50, p99: it holds the save itself, so it bounds commit-to-delivery from above), the
# server's resident memory per connection (with its subscriptions) and the errors seen.
# The clients are Benchmarks/Scripts/livequery-load.py (Python's standard library; two processes
# of subscribers, one of saves over 32 keep-alive connections), on the same cores as the server.
# Usage: Benchmarks/Scripts/livequery.sh [connections] [subscriptions] [rate] [seconds] [per-room]
#   (from the repository's root; defaults 1000 10 1000 10 10). CLOUDLET_BINARY=path uses that
#   `cloudlet` rather than building a release one.
set -eu
connections=${1:-1000} subscriptions=${2:-10} rate=${3:-1000} seconds=${4:-10} per_room=${5:-10}
rooms=$((connections * subscriptions / per_room))
here=$(cd "$(dirname "$0")" && pwd)
. "$here/nodes-common.sh"
if [ -z "${CLOUDLET_BINARY:-}" ]; then
    swift build -c release --product cloudlet >&2
    CLOUDLET_BINARY=$(swift build -c release --show-bin-path)/cloudlet
fi
binary=$CLOUDLET_BINARY
pgport=18560 firstport=18561
ulimit -n "$(ulimit -Hn)"

# Starts node $2 of configuration $1 (its port firstport + $2), on database $3 of $4 nodes if given.
start_node() {
    port=$((firstport + $2))
    mkdir -p "$work/$1"
    set -- "$1" "$2" "${3:-}" "${4:-}" serve --port $port --data "$work/$1/node$2" --client-key bench-client \
        --master-key bench-master --rate-limit off --max-requests-per-address off \
        --max-connections-per-address $((connections + 100)) \
        --live-query-max-connections $((connections + 100)) --live-query-max-subscriptions $((subscriptions + 10)) \
        --log-level warning
    name=$1 index=$2 database=$3 count=$4
    shift 4
    [ -n "$database" ] && set -- "$@" --database "$database" --nodes "$count"
    if [ "$index" = 0 ]; then
        # The app `dev` publishes Message's writes to LiveQuery: an app setting, kept in its registry.
        "$binary" apps create dev --live-query-classes Message --data "$work/$name/node0" \
            ${database:+--database "$database"} >"$work/$name/create.log" 2>&1
    fi
    serve_node "$work/$name/node$index.log" $port "$@"
}
resident_kib() { awk '/^VmRSS/ { print $2 }' "/proc/$1/status"; }

# Measures configuration $1: subscribers on port $2 (the server there is pid $3), saves on port $4.
measure() {
    name=$1 subscribe_port=$2 server=$3 save_port=$4
    before=$(resident_kib "$server")
    half=$((connections / 2))
    python3 "$here/livequery-load.py" subscribe "$subscribe_port" 0 $half "$subscriptions" $rooms "$work/$name/sub0.json" \
        >"$work/$name/sub0.out" 2>&1 &
    first=$!
    python3 "$here/livequery-load.py" subscribe "$subscribe_port" $half $((connections - half)) "$subscriptions" $rooms \
        "$work/$name/sub1.json" >"$work/$name/sub1.out" 2>&1 &
    second=$!
    waited=0
    until grep -q ready "$work/$name/sub0.out" && grep -q ready "$work/$name/sub1.out"; do
        if ! kill -0 $first 2>/dev/null || ! kill -0 $second 2>/dev/null || [ $waited -ge 3000 ]; then
            echo "$name: the subscribers did not get ready:" >&2; tail -5 "$work/$name"/sub*.out >&2; exit 1
        fi
        sleep 0.1; waited=$((waited + 1))
    done
    subscribed=$(resident_kib "$server")
    python3 "$here/livequery-load.py" save "$save_port" "$rate" "$seconds" $rooms "$work/$name/save.json"
    kill -TERM $first $second
    wait $first $second
    python3 - "$name" "$work/$name" "$connections" "$per_room" "$before" "$subscribed" <<'PY'
import json, sys
name, folder, connections, per_room, before, subscribed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])
save = json.load(open(f"{folder}/save.json"))
subscribers = [json.load(open(f"{folder}/sub{i}.json")) for i in (0, 1)]
delays = sorted(d for s in subscribers for d in s["delays"])
creates = len(delays)
due = save["saved"] * per_room
errors = [e for s in subscribers for e in s["errors"]]
closed = sum(s["closed"] for s in subscribers)
def at(q): return delays[min(len(delays) - 1, int(q * len(delays)))] / 1e6 if delays else float("nan")
print(f"{name:7} {save['saved'] / save['seconds']:8.0f} {creates / save['seconds']:10.0f} {creates / due if due else 0:7.3f} "
      f"{at(0.5):8.2f} {at(0.99):8.2f} {(subscribed - before) / connections:10.1f} {len(errors) + closed + sum(save['refused'].values()):7d}")
for error in errors[:3]: print("  error:", error)
PY
}

echo "$(nproc) cores; $connections connections x $subscriptions subscriptions ($rooms rooms, $per_room subscribers each); $rate saves/s for $seconds s"
echo "config   saves/s   events/s  of due  p50 ms   p99 ms  KiB/conn  errors"
start_node sqlite 0
measure sqlite $firstport "${pids##* }" $firstport
stop_nodes

postgres_start $pgport
"$pgbin/createdb" -h 127.0.0.1 -p $pgport -U cloudlet pg2
start_node pg2 0 "postgres://cloudlet@127.0.0.1:$pgport/pg2" 2
start_node pg2 1 "postgres://cloudlet@127.0.0.1:$pgport/pg2" 2
measure pg2 $((firstport + 1)) "${pids##* }" $firstport
