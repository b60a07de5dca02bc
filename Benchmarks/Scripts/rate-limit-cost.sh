#!/bin/sh
# What one rate limit charge costs on the PostgreSQL store (`PostgresRateLimitStore`) against the
# in-memory one, in one run: the tests' own PostgreSQL server (started and stopped as for the tests),
# N charges of the app quota's stage (a client address's share and the app's quota, two keys) on
# each store, and N `SELECT 1` round trips as the floor of any charge through the database.
# Prints wall and CPU time per charge, this process's and the database server's.
# Usage: Benchmarks/Scripts/rate-limit-cost.sh [charges [swift test options…]]   (from the repository's root),
# as Benchmarks/Scripts/rate-limit-cost.sh 20000 -c release -Xswiftc -enable-testing for a release build
set -eu
charges=${1:-20000}
[ $# -gt 0 ] && shift
CLOUDLET_MEASURE_RATE_LIMITS=$charges swift test "$@" --filter RateLimitCostMeasurement 2>&1 |
    grep -E '^(in-memory|SELECT 1|postgres)|error|failed'
