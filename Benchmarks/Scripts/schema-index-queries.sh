#!/bin/sh
# What the statements the query builder writes cost, before and after equality, ranges and order
# compared fields by their sort key with the class and paths as literals, on 100,000 objects of one
# class (and as many of another), without and then with the indexes `/schemas` makes on the two
# fields. Usage: Benchmarks/Scripts/schema-index-queries.sh [objects per class] [runs of each]
set -eu
count=${1:-100000}
runs=${2:-5}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
db="$work/app.sqlite"
sqlite3 "$db" <<SQL
CREATE TABLE objects (class TEXT NOT NULL, id TEXT NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL,
    acl TEXT, data TEXT NOT NULL, PRIMARY KEY (class, id)) WITHOUT ROWID;
CREATE INDEX objects_by_creation ON objects (class, created_at);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $count)
INSERT INTO objects SELECT c.name, 'id' || i, printf('2026-%07d', i), 'u', NULL,
    json_object('score', i % 100, 'name', 'n' || (i % 300), 'pad', printf('%.200c', 'x'))
FROM n, (SELECT 'Game' AS name UNION SELECT 'Other') AS c;
ANALYZE objects;
SQL
queries() {
    i=0
    while [ $i -lt "$runs" ]; do
        cat <<'SQL'
.parameter set :c 'Game'
.parameter set :p '$.name'
.parameter set :v 'n7'
.parameter set :s '$.score'
.parameter set :si '$.score.iso'
.parameter set :x 95
.print == equality before
SELECT count(*) FROM objects WHERE class = :c AND ((json_type(data, :p) IN ('text') AND json_extract(data, :p) = :v) OR EXISTS (SELECT 1 FROM json_each(CASE WHEN json_type(data, :p) = 'array' THEN json_extract(data, :p) ELSE '[]' END) WHERE json_each.type IN ('text') AND json_each.value = :v));
.print == equality after
SELECT count(*) FROM objects WHERE class='Game' AND ((class='Game' AND (COALESCE(json_extract(data,'$.name.iso'),json_extract(data,'$.name')) = :v AND (json_type(data,'$.name') IN ('text')))) OR (class='Game' AND json_type(data,'$.name')='array' AND COALESCE(json_extract(data,'$.name.iso'),json_extract(data,'$.name')) BETWEEN '[' AND '\' AND EXISTS (SELECT 1 FROM json_each(iif(json_type(data,'$.name')='array',json_extract(data,'$.name'),'[]')) WHERE json_each.type IN ('text') AND json_each.value = :v)));
.print == range before
SELECT count(*) FROM objects WHERE class = :c AND (json_type(data, :s) IN ('integer','real') AND json_extract(data, :s) > :x);
.print == range after
SELECT count(*) FROM objects WHERE class='Game' AND (COALESCE(json_extract(data,'$.score.iso'),json_extract(data,'$.score')) > :x AND json_type(data,'$.score') IN ('integer','real'));
.print == order before
SELECT count(*) FROM (SELECT id FROM objects WHERE class = :c ORDER BY COALESCE(json_extract(data, :si), json_extract(data, :s)) DESC, created_at, id LIMIT 100);
.print == order after
SELECT count(*) FROM (SELECT id FROM objects WHERE class='Game' ORDER BY COALESCE(json_extract(data,'$.score.iso'),json_extract(data,'$.score')) DESC, created_at, id LIMIT 100);
SQL
        i=$((i + 1))
    done
}
# The median user CPU of each statement's runs.
measure() {
    { echo ".timer on"; queries; } | sqlite3 "$db" | awk '
        /^== / { name = substr($0, 4) }
        /^Run Time/ { printf "%s\t%.1f\n", name, $6 * 1000 }' | sort -t "$(printf '\t')" -k1,1 -k2,2n | awk -F '\t' '
        { times[$1] = times[$1] " " $2; count[$1]++ }
        END { for (name in times) { split(times[name], t, " "); printf "%-18s %s ms\n", name, t[int((count[name] + 1) / 2)] } }' | sort
}
echo "== no index on the fields ($count objects per class, median user CPU of $runs runs)"
measure
sqlite3 "$db" <<'SQL'
CREATE INDEX "schema_4_Game_by_name" ON objects (COALESCE(json_extract(data, '$.name.iso'), json_extract(data, '$.name')) ASC) WHERE class = 'Game';
CREATE INDEX "schema_4_Game_by_score" ON objects (COALESCE(json_extract(data, '$.score.iso'), json_extract(data, '$.score')) ASC) WHERE class = 'Game';
ANALYZE objects;
SQL
echo "== with the indexes /schemas makes on name and score"
measure
