#!/bin/sh
# What publishing a save to an app's LiveQuery feed costs, on each store: N saves of a small object
# with the app's `liveQuery.classNames` empty, then listing the class with one subscriber counting
# what it hears (on PostgreSQL, every save heard through the database's notifications), in one task
# and in sixteen at once (group commit on SQLite). SQLite on a file in the temporary folder,
# PostgreSQL on the tests' own server (started and stopped as for the tests).
# Prints wall and CPU time per save, this process's.
# Usage: Benchmarks/Scripts/live-changes-cost.sh [saves [swift test options…]]   (from the repository's root),
# as Benchmarks/Scripts/live-changes-cost.sh 4000 -c release -Xswiftc -enable-testing for a release build
set -eu
saves=${1:-2000}
[ $# -gt 0 ] && shift
CLOUDLET_MEASURE_LIVE_CHANGES=$saves swift test "$@" --filter LiveChangesCostMeasurement 2>&1 |
    grep -E '^(sqlite|postgres) |error|failed'
