# Sourced by the benchmark scripts that run `cloudlet serve` nodes beside a PostgreSQL server of
# their own. Makes the folder `work` (removed on exit, with the nodes in `pids` stopped and the
# PostgreSQL server, if started, stopped too) and defines:
#   stop_nodes              stops the processes in `pids` and empties it;
#   serve_node LOG PORT ARGS…  starts `$binary` with ARGS (a `serve` command line on PORT), its
#                           output in LOG, adds it to `pids` and waits until it answers /health;
#   postgres_start PORT     runs initdb and a server (fsync on, as shipped) in $work/pg on
#                           127.0.0.1:PORT, its only role `cloudlet` trusted, and sets `postmaster`
#                           (the server's pid); `pgbin` is PostgreSQL's bin folder.
# As root, PostgreSQL runs as the `postgres` user.
pgbin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
work=$(mktemp -d)
chmod 755 "$work"
pids=""
as_postgres() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
stop_nodes() {
    for pid in $pids; do kill "$pid" 2>/dev/null || true; done
    for pid in $pids; do wait "$pid" 2>/dev/null || true; done
    pids=""
}
serve_node() {
    log=$1 port=$2
    shift 2
    "$binary" "$@" >"$log" 2>&1 &
    pids="$pids $!"
    node=$! waited=0
    until curl -sf "http://127.0.0.1:$port/parse/health" >/dev/null 2>&1; do
        if ! kill -0 $node 2>/dev/null || [ $waited -ge 600 ]; then
            echo "the node in $log did not start:" >&2; tail -20 "$log" >&2; exit 1
        fi
        sleep 0.2; waited=$((waited + 1))
    done
}
postgres_start() {
    mkdir "$work/pg"
    [ "$(id -u)" = 0 ] && chown postgres "$work/pg"
    as_postgres "$pgbin/initdb" -D "$work/pg/data" -U cloudlet --auth=trust -E UTF8 --locale=C.UTF-8 >/dev/null
    as_postgres "$pgbin/pg_ctl" -D "$work/pg/data" -l "$work/pg/server.log" -w \
        -o "-p $1 -k $work/pg -c listen_addresses=127.0.0.1 -c max_connections=300" start >/dev/null
    postmaster=$(head -1 "$work/pg/data/postmaster.pid")
}
cleanup() {
    stop_nodes
    [ -d "$work/pg/data" ] && as_postgres "$pgbin/pg_ctl" -D "$work/pg/data" -m fast stop >/dev/null 2>&1
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
