#!/usr/bin/env python3
"""What a read of the hook log by hook costs without an index by hook: builds a copy of an app's
`hook_runs` table (as `SQLiteHookRunStore` makes it, key only) holding the retention's 10,000
runs, one in 1,000 of them of a rare hook, and times the query `cloudlet logs --hook` runs (the
newest LIMIT runs of one hook) for a busy hook, the rare one and one with no runs, through
Python's sqlite3 (the same SQLite library the server links).

usage: python3 Benchmarks/Scripts/hook-log-scan.py [RUNS] [LIMIT]   (defaults 10000 and 100)
"""
import os, sqlite3, sys, tempfile, time

runs = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
limit = int(sys.argv[2]) if len(sys.argv) > 2 else 100
with tempfile.TemporaryDirectory() as folder:
    db = sqlite3.connect(os.path.join(folder, "app.sqlite"))
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("""CREATE TABLE hook_runs (
        seq INTEGER PRIMARY KEY, hook TEXT NOT NULL, request_id TEXT NOT NULL,
        started_at REAL NOT NULL, duration_ms REAL NOT NULL, outcome TEXT NOT NULL, error TEXT,
        lines TEXT NOT NULL, dropped_lines INTEGER NOT NULL)""")
    db.executemany(
        "INSERT INTO hook_runs (hook, request_id, started_at, duration_ms, outcome, error, lines, dropped_lines) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        [("function:rare" if n % 1000 == 0 else "beforeSave:GameScore", f"{n:032x}", 1.7e9 + n, 0.1, "ok", None, "[]", 0)
         for n in range(runs)])
    db.commit()
    query = "SELECT * FROM hook_runs WHERE hook = ? ORDER BY seq DESC LIMIT ?"
    print(f"{runs} runs, the newest {limit} of one hook:")
    for hook in ("beforeSave:GameScore", "function:rare", "function:none"):
        start = time.perf_counter()
        for _ in range(20): found = db.execute(query, (hook, limit)).fetchall()
        print(f"  {hook:<22} {len(found):>4} runs  {(time.perf_counter() - start) / 20 * 1000:.2f} ms")
