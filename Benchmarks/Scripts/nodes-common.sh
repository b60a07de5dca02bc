# Sourced by the benchmark scripts that run `cloudlet serve` nodes beside a PostgreSQL server of
# their own. Makes the folder `work` (removed on exit, with the nodes in `pids` stopped and the
# PostgreSQL server, if started, stopped too) and defines:
#   stop_nodes              stops the processes in `pids` and empties it;
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
