#!/usr/bin/env python3
# What the full-text index behind `$text` costs a save as the server commits saves (where
# text-index-cost.sh times one bulk insert): CPU per insert into a WAL-mode SQLite file,
# with and without the index's insert trigger (as the `text_index` migration writes it), with and
# without a savepoint per insert (as group commit runs each save), one insert per transaction (one
# connection) or 64 (a full group). Python's sqlite3 module links the system's libsqlite3, as the
# server does.
#
# usage: python3 Benchmarks/Scripts/text-index-save-cost.py
import json, os, sqlite3, tempfile, time
def setup(path, fts):
    if os.path.exists(path): os.remove(path)
    for s in ("-wal","-shm"):
        if os.path.exists(path+s): os.remove(path+s)
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL"); db.execute("PRAGMA synchronous=NORMAL")
    db.execute("CREATE TABLE objects (class TEXT, id TEXT, created_at REAL, updated_at REAL, acl TEXT, data TEXT, PRIMARY KEY(class,id))")
    if fts:
        db.executescript("""
        CREATE TABLE text_fields (doc INTEGER PRIMARY KEY, class TEXT NOT NULL, id TEXT NOT NULL, field TEXT NOT NULL, UNIQUE (class, id, field));
        CREATE VIRTUAL TABLE text_index USING fts5(text, content = '', tokenize = 'porter unicode61 remove_diacritics 2');
        CREATE TRIGGER objects_text_insert AFTER INSERT ON objects WHEN (substr(NEW.class,1,1) <> '_') BEGIN
          INSERT INTO text_fields (class, id, field) SELECT NEW.class, NEW.id, json_each.key FROM json_each(NEW.data) WHERE json_each.type = 'text';
          INSERT INTO text_index (rowid, text) SELECT f.doc, e.value FROM json_each(NEW.data) AS e JOIN text_fields AS f ON f.class = NEW.class AND f.id = NEW.id AND f.field = e.key WHERE e.type = 'text' ORDER BY f.doc;
        END;""")
    return db
data = json.dumps({"title":"A day at the seaside with friends","body":"We went to the beach and swam","author":"bo","stars":4,"tags":["a","b"],"flag":True,"n":1})
def run(fts, savepoints, group=64, total=20000):
    db = setup(os.path.join(tempfile.gettempdir(), "text-index-cost.sqlite"), fts)
    t=time.process_time(); n=0
    while n < total:
        db.execute("BEGIN IMMEDIATE")
        for i in range(group):
            if savepoints: db.execute("SAVEPOINT s")
            db.execute("INSERT INTO objects VALUES ('Posts', ?, 1, 1, NULL, ?)", (f"id{n}", data)); n+=1
            if savepoints: db.execute("RELEASE s")
        db.execute("COMMIT")
    return (time.process_time()-t)/total*1e6
for fts in (False, True):
    for sp in (False, True):
        for g in (1, 64):
            print(f"fts={fts} savepoints={sp} group={g}: {run(fts,sp,g):.1f} us/insert")
