#!/bin/sh
# What resolving the caller costs an authenticated request, with and without the session cache, in
# one server: `cloudlet serve` on a fresh data folder, a user who holds one role, 12,000 sessions of
# that user and one object (public read); then wrk (one thread, so requests go out in order) GETs
# the object `reps` times in each of three ways:
#   miss  each request presents the next of the 12,000 tokens, more than the cache holds
#         (SessionCache.maximumEntries), so each is read from the database with its roles, as every
#         authenticated request was before the cache;
#   hit   each request presents the next of the first 1,000 tokens, all answered from the cache;
#   none  no token.
# Before each run a write of the role empties the cache, so each starts from nothing.
# Usage: Benchmarks/Scripts/session-token-gets.sh <cloudlet binary> [seconds] [connections] [reps]
set -eu
binary=$1 seconds=${2:-8} connections=${3:-16} reps=${4:-2}
port=18437
base=http://127.0.0.1:$port/parse
work=$(mktemp -d)
"$binary" serve --port $port --data "$work/data" --client-key bench-client --master-key bench-master \
    --max-requests-per-address off --rate-limit off --log-level error >"$work/serve.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$work"' EXIT
until curl -sf "$base/health" >/dev/null 2>&1; do sleep 0.2; done

python3 - "$port" "$work" <<'PY'
import http.client, json, sys
port, work = int(sys.argv[1]), sys.argv[2]
connection = http.client.HTTPConnection("127.0.0.1", port)
def call(method, path, body, token=None, master=False):
    headers = {"X-Parse-Application-Id": "dev", "Content-Type": "application/json"}
    headers["X-Parse-Master-Key" if master else "X-Parse-REST-API-Key"] = "bench-master" if master else "bench-client"
    if token: headers["X-Parse-Session-Token"] = token
    connection.request(method, "/parse" + path, json.dumps(body), headers)
    return json.loads(connection.getresponse().read())
user = call("POST", "/users", {"username": "bench", "password": "bench-password"})
pointer = {"__type": "Pointer", "className": "_User", "objectId": user["objectId"]}
role = call("POST", "/roles", {"name": "Staff", "ACL": {"*": {"read": True}}, "users": {"__op": "AddRelation", "objects": [pointer]}}, master=True)
thing = call("POST", "/classes/Bench", {"title": "a benchmark object", "ACL": {"*": {"read": True}}}, master=True)
tokens = []
for _ in range(12000):
    made = call("POST", "/sessions", {}, token=user["sessionToken"])
    if "sessionToken" not in made: sys.exit("POST /sessions answered %s after %d sessions" % (made, len(tokens)))
    tokens.append(made["sessionToken"])
open(work + "/all.tokens", "w").write("\n".join(tokens) + "\n")
open(work + "/cached.tokens", "w").write("\n".join(tokens[:1000]) + "\n")
open(work + "/object", "w").write(thing["objectId"])
open(work + "/role", "w").write(role["objectId"])
PY

cat >"$work/tokens.lua" <<'LUA'
local tokens, next = {}, 0
local file = os.getenv("TOKENS")
if file ~= "" then for line in io.lines(file) do tokens[#tokens + 1] = line end end
request = function()
    local headers = { ["X-Parse-Application-Id"] = "dev", ["X-Parse-REST-API-Key"] = "bench-client" }
    if #tokens > 0 then
        headers["X-Parse-Session-Token"] = tokens[next % #tokens + 1]
        next = next + 1
    end
    return wrk.format("GET", nil, headers)
end
LUA
url="$base/classes/Bench/$(cat "$work/object")"
rep=1
while [ "$rep" -le "$reps" ]; do
    for mode in miss hit none; do
        curl -s -X PUT -H X-Parse-Application-Id:dev -H X-Parse-Master-Key:bench-master -H Content-Type:application/json \
            -d '{"note":"flush"}' "$base/roles/$(cat "$work/role")" >/dev/null
        case $mode in miss) tokens="$work/all.tokens" ;; hit) tokens="$work/cached.tokens" ;; none) tokens="" ;; esac
        TOKENS=$tokens wrk -t1 -c"$connections" -d"${seconds}s" --latency -s "$work/tokens.lua" "$url" |
            awk -v mode="$mode" '/Requests\/sec/ { rps = $2 } / 50%/ { p50 = $2 } / 99%/ { p99 = $2 } /Non-2xx/ { bad = $NF }
                END { printf "%-4s  %10s req/s  p50 %8s  p99 %8s  non-2xx %s\n", mode, rps, p50, p99, bad + 0 }'
    done
    rep=$((rep + 1))
done
