#!/usr/bin/env bash
# Runs every rpclab GoogleTest program in BUILD (default build/) and ends with
# one summary: passed, failed, and each skipped test with the reason it gave.
#   tests/run-tests.sh [BUILD] [gtest flags...]
set -uo pipefail
build=${1:-build}
shift || true
cd "$(dirname "$0")/.."

programs=()
for p in "$build"/tests/rpclab_*_tests "$build"/tests/*/rpclab_*_tests; do
  [[ -x "$p" ]] && programs+=("$p")
done
if [[ ${#programs[@]} -eq 0 ]]; then
  echo "run-tests: no test programs under $build/tests (run make first)" >&2
  exit 1
fi

log_dir=$(mktemp -d /tmp/rpclab-tests.XXXXXX)
failed=0
start=$(date +%s)
for p in "${programs[@]}"; do
  name=$(basename "$p")
  echo "=== $name"
  t0=$(date +%s)
  "$p" --gtest_color=no "$@" 2>&1 | tee "$log_dir/$name.log"
  rc=${PIPESTATUS[0]}
  echo "=== $name: exit $rc in $(( $(date +%s) - t0 )) s"
  [[ $rc -ne 0 ]] && failed=1
done

echo
echo "=== Summary ($(( $(date +%s) - start )) s)"
grep -h '^\[  PASSED  \]' "$log_dir"/*.log | sed 's/^/  /'
grep -h '^\[  FAILED  \] [^ ]*\.[^ ]*' "$log_dir"/*.log | sed 's/^/  /'
# A skipped test prints its reason on the lines just before "[  SKIPPED ]".
skips=$(grep -h -B3 '^\[  SKIPPED \] [^ ]*\.' "$log_dir"/*.log | grep -E 'Skipped|SKIPPED \]' || true)
if [[ -n "$skips" ]]; then
  echo "  Skipped tests and why:"
  grep -h -B2 '^\[  SKIPPED \] [^ ]*\.' "$log_dir"/*.log | grep -vE '^\[ RUN|^--$' | sed 's/^/    /'
fi
rm -rf "$log_dir"
exit $failed
