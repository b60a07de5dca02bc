# Sourced by the benchmark scripts that need a PostgreSQL server of their own: `postgres_start
# FOLDER PORT` runs initdb and a server (fsync on, as shipped) in FOLDER/pg on 127.0.0.1:PORT, its
# only role `cloudlet` trusted, and sets `pgbin` and `postmaster` (the server's pid);
# `postgres_stop FOLDER` stops it. As root, both run PostgreSQL as the `postgres` user.
pgbin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
as_postgres() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
postgres_start() {
    mkdir "$1/pg"
    [ "$(id -u)" = 0 ] && chown postgres "$1/pg"
    as_postgres "$pgbin/initdb" -D "$1/pg/data" -U cloudlet --auth=trust -E UTF8 --locale=C.UTF-8 >/dev/null
    as_postgres "$pgbin/pg_ctl" -D "$1/pg/data" -l "$1/pg/server.log" -w \
        -o "-p $2 -k $1/pg -c listen_addresses=127.0.0.1 -c max_connections=300" start >/dev/null
    postmaster=$(head -1 "$1/pg/data/postmaster.pid")
}
postgres_stop() {
    as_postgres "$pgbin/pg_ctl" -D "$1/pg/data" -m fast stop >/dev/null 2>&1 || true
}
