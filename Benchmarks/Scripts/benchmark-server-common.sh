# Sourced by the scripts that start the benchmark's own server (`CloudletBenchmark serve …`) with
# its standard input on a pipe, so that it runs until the script closes it. Sets `binary` (BINARY,
# or the release build) and makes `folder` (removed on exit unless KEEP is set) holding the pipe
# `input`; the script opens it as file descriptor 3 once the server reads it.
here=$(cd "$(dirname "$0")" && pwd)
binary=${BINARY:-"$here/../.build/release/CloudletBenchmark"}
[ -x "$binary" ] || { echo "no $binary: build it first (see the comment at the top)" >&2; exit 1; }
folder=$(mktemp -d)
trap 'exec 3>&- 2>/dev/null; [ -n "${KEEP:-}" ] || rm -rf "$folder"' EXIT
mkfifo "$folder/input"
