#!/usr/bin/env bash
# Runs every rpclab GoogleTest program in BUILD (default build/) and ends with
# one summary: passed, failed, and each skipped test with the reason it gave
# (also written to BUILD/tests/skipped.txt, one a line: test, where, why).
#   tests/run-tests.sh [BUILD] [gtest flags...]
#
# Programs run side by side in RPCLAB_TEST_LANES lanes (default: 2, or the
# number of CPUs if fewer). Much of the suite waits rather than computes
# (guest boots, libtirpc's 35 s for a stalled peer, SIGKILLed runs), and the
# tests are written to run beside others: namespaces carry their owner's
# pid, a test looks only at its own processes and guests. Each program's
# output is printed whole when it ends, so lanes never interleave lines.
# The longest programs start first, by the times the last whole run wrote
# to BUILD/tests/.durations, else by tests/durations.txt (a program in
# neither counts as the longest).
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

cpus=$(nproc 2>/dev/null || echo 1)
lanes=${RPCLAB_TEST_LANES:-$(( cpus < 2 ? cpus : 2 ))}
if ! [[ $lanes =~ ^[1-9][0-9]*$ ]]; then
  echo "run-tests: RPCLAB_TEST_LANES=$lanes is not a whole number of 1 or more (try RPCLAB_TEST_LANES=1 to run one program at a time)" >&2
  exit 2
fi

durations="$build/tests/.durations"
known=tests/durations.txt
[[ -s $durations ]] && known=$durations
last_seconds() { awk -v n="$1" '$1 == n { s = $2 } END { print (s == "" ? 999999 : s) }' "$known" 2>/dev/null || echo 999999; }
mapfile -t programs < <(for p in "${programs[@]}"; do
  printf '%s %s\n' "$(last_seconds "$(basename "$p")")" "$p"
done | sort -k1,1nr -k2 | cut -d' ' -f2-)

log_dir=$(mktemp -d /tmp/rpclab-tests.XXXXXX)
trap 'rm -rf "$log_dir"' EXIT
export log_dir

# One program: its whole output printed at its end, under a lock, and
# "name exit seconds" added to the results.
run_one() {
  local p=$1; shift
  local name; name=$(basename "$p")
  local t0; t0=$(date +%s)
  echo "--- $name started"
  "$p" --gtest_color=no "$@" >"$log_dir/$name.log" 2>&1
  local rc=$? took=$(( $(date +%s) - t0 ))
  {
    flock 9
    echo "=== $name"
    cat "$log_dir/$name.log"
    echo "=== $name: exit $rc in $took s"
    echo "$name $rc $took" >>"$log_dir/results"
  } 9>"$log_dir/lock"
}
export -f run_one

start=$(date +%s)
echo "=== ${#programs[@]} test programs in $lanes lane(s), longest first"
printf '%s\n' "${programs[@]}" | xargs -d '\n' -P "$lanes" -I{} bash -c 'run_one "$@"' _ {} "$@"

failed=0
if [[ $(wc -l <"$log_dir/results" 2>/dev/null || echo 0) -ne ${#programs[@]} ]]; then
  echo "run-tests: only $(wc -l <"$log_dir/results" 2>/dev/null || echo 0) of ${#programs[@]} programs reported (interrupted?)" >&2
  failed=1
fi
awk '$2 != 0 { bad = 1 } END { exit bad }' "$log_dir/results" 2>/dev/null || failed=1
# Next run's order; written only by a whole run, so a filtered one does not
# teach it a filtered program's time.
if [[ $# -eq 0 && $failed -eq 0 ]]; then
  awk '{ print $1, $3 }' "$log_dir/results" >"$durations.tmp" && mv "$durations.tmp" "$durations"
fi

echo
echo "=== Summary ($(( $(date +%s) - start )) s, $lanes lane(s))"
grep -h '^\[  PASSED  \]' "$log_dir"/*.log | sed 's/^/  /'
grep -h '^\[  FAILED  \] [^ ]*\.[^ ]*' "$log_dir"/*.log | sed 's/^/  /'

# Every skipped test, one a line: its name, where it skipped, and the
# reason it printed (the lines between gtest's "FILE:LINE: Skipped" and
# its "[  SKIPPED ]"), tab-separated, into BUILD/tests/skipped.txt, so a
# skip is counted, not only shown: .ci/run holds each reason against the
# list of the machine's reasons (tests/check-skips.sh).
skipped_file="$build/tests/skipped.txt"
for log in "$log_dir"/*.log; do
  awk '
    /^\[ RUN      \] / { where = ""; reason = ""; taking = 0; next }
    /^[^ ]+:[0-9]+: Skipped$/ { where = $1; sub(/:$/, "", where); sub(/^(\.\.\/)+/, "", where); reason = ""; taking = 1; next }
    /^\[  SKIPPED \] [^ ]+ \(/ {
      if (reason == "") reason = "(no reason printed)"
      printf "%s\t%s\t%s\n", $4, (where == "" ? "?" : where), reason
      where = ""; reason = ""; taking = 0; next
    }
    /^\[       OK \]|^\[  FAILED  \]/ { taking = 0 }
    taking && NF { reason = (reason == "" ? "" : reason " ") $0 }
  ' "$log"
done >"$skipped_file.tmp" && mv "$skipped_file.tmp" "$skipped_file"
skipped=$(wc -l <"$skipped_file")
if [[ $skipped -gt 0 ]]; then
  echo "  Skipped tests and why (also in $skipped_file):"
  awk -F'\t' '{ printf "    %s (%s): %s\n", $1, $2, $3 }' "$skipped_file"
fi
# The counts on one closing line; a program that ended without gtest's
# summary (a crash) counts as one failure.
passed=$(grep -h '^\[  PASSED  \] [0-9]* test' "$log_dir"/*.log | awk '{ n += $4 } END { print n + 0 }')
failures=$(for log in "$log_dir"/*.log; do
  if grep -q '^\[  FAILED  \] [0-9]* tests\?, listed below' "$log"; then
    grep -h '^\[  FAILED  \] [0-9]* tests\?, listed below' "$log" | awk '{ print $4 }'
  elif ! grep -q '^\[  PASSED  \] [0-9]* test' "$log"; then
    echo 1
  fi
done | awk '{ n += $1 } END { print n + 0 }')
echo "tests: $passed passed, $failures failed, $skipped skipped"
exit $failed
