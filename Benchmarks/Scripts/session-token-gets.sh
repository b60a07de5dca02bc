#!/bin/sh
# What resolving the caller costs an authenticated request: wrk GETs of one object (public read)
# with X-Parse-Session-Token (a user who holds one role), then the same GETs with no token, against
# `cloudlet serve` on a fresh data folder, for each binary given, in turn, `reps` times.
# Usage: Benchmarks/Scripts/session-token-gets.sh <seconds> <connections> <reps> <cloudlet binary>...
set -eu
seconds=$1 connections=$2 reps=$3
shift 3
port=18437
base=http://127.0.0.1:$port/parse
keys='-H X-Parse-Application-Id:dev -H X-Parse-REST-API-Key:bench-client'
master='-H X-Parse-Application-Id:dev -H X-Parse-Master-Key:bench-master -H Content-Type:application/json'

measure() {
    work=$(mktemp -d)
    "$1" serve --port $port --data "$work/data" --client-key bench-client --master-key bench-master \
        --max-requests-per-address off --log-level error >"$work/serve.log" 2>&1 &
    pid=$!
    until curl -sf "$base/health" >/dev/null 2>&1; do sleep 0.2; done
    # shellcheck disable=SC2086
    token=$(curl -s $master -X POST "$base/users" -d '{"username":"bench","password":"bench-password"}' |
        sed 's/.*"sessionToken":"\([^"]*\)".*/\1/')
    user=$(curl -s $keys -H "X-Parse-Session-Token: $token" "$base/users/me" | sed 's/.*"objectId":"\([^"]*\)".*/\1/')
    # shellcheck disable=SC2086
    curl -s $master -X POST "$base/roles" -o /dev/null \
        -d '{"name":"Staff","ACL":{"*":{"read":true}},"users":{"__op":"AddRelation","objects":[{"__type":"Pointer","className":"_User","objectId":"'"$user"'"}]}}'
    # shellcheck disable=SC2086
    object=$(curl -s $master -X POST "$base/classes/Bench" -d '{"title":"a benchmark object","ACL":{"*":{"read":true}}}' |
        sed 's/.*"objectId":"\([^"]*\)".*/\1/')
    for who in token none; do
        header="X-Parse-Session-Token: $token"
        [ "$who" = none ] && header="X-Bench: none"
        # shellcheck disable=SC2086
        wrk -t2 -c"$connections" -d"${seconds}s" --latency $keys -H "$header" "$base/classes/Bench/$object" |
            awk -v bin="$1" -v who="$who" '/Requests\/sec/ { rps = $2 } / 50%/ { p50 = $2 } /Non-2xx/ { bad = $NF }
                END { printf "%s  %-5s  %10s req/s  p50 %s  non-2xx %s\n", bin, who, rps, p50, bad + 0 }'
    done
    kill "$pid"
    wait "$pid" 2>/dev/null || true
    rm -rf "$work"
}

rep=1
while [ "$rep" -le "$reps" ]; do
    for binary in "$@"; do measure "$binary"; done
    rep=$((rep + 1))
done
