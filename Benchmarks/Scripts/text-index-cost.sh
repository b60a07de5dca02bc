#!/bin/sh
# What the $text index's triggers add to writes: the same inserts and updates on two copies of an
# app database made by `cloudlet serve` (its migrations applied), one with the class written listed
# among those the index covers (as its first search lists it), one with the text index's triggers
# dropped. Usage: Benchmarks/Scripts/text-index-cost.sh data/apps/dev.sqlite [objects]
set -eu
source_db=$1
count=${2:-20000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$source_db" "$work/with.sqlite"
cp "$source_db" "$work/without.sqlite"
sqlite3 "$work/with.sqlite" "INSERT OR IGNORE INTO text_classes (class) VALUES ('Bench');"
sqlite3 "$work/without.sqlite" "DROP TRIGGER objects_text_insert; DROP TRIGGER objects_text_delete; DROP TRIGGER objects_text_update;"
for db in with without; do
    echo "== $db the text index: $count inserts of three ~60-byte strings and a number, then an update of one string each, then of the number"
    sqlite3 "$work/$db.sqlite" <<SQL
.timer on
BEGIN;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $count)
INSERT INTO objects (class, id, created_at, updated_at, acl, data)
SELECT 'Bench', 'b' || i, '2026-11-26T00:00:00.000Z', '2026-11-26T00:00:00.000Z', NULL,
       json_object('title', 'A title of some words number ' || i || ' about coffee and tea',
                   'body', 'Body text that says a little more about item ' || i || ' for the search',
                   'author', 'Author name ' || (i % 100), 'score', i)
FROM n;
COMMIT;
UPDATE objects SET data = json_set(data, '$.title', 'A changed title ' || id) WHERE class = 'Bench';
UPDATE objects SET data = json_set(data, '$.score', 0) WHERE class = 'Bench';
SQL
    ls -l "$work/$db.sqlite" | awk '{print "file bytes:", $5}'
done
