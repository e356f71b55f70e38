#!/usr/bin/env bash
# Runs every libFuzzer program in BUILD/tests/fuzz for SECONDS each, then
# prints one line per target: executions per second and the final corpus
# (from libFuzzer's own summary). Exits 1 if any target crashed, leaked,
# hung or failed a check; the input that did it is kept and printed.
#   tests/fuzz/run-fuzzers.sh BUILD SECONDS [TARGET...]
#
# Each target starts from its seeds (tests/fuzz/corpus/<target>/) and past
# crashes (tests/fuzz/regressions/<target>/), read only. What it finds goes
# to BUILD/fuzz-corpus/<target>/, kept between runs in the same build folder.
set -uo pipefail
[[ $# -ge 2 ]] || { echo "usage: $0 BUILD SECONDS [TARGET...]" >&2; exit 2; }
build=$1 seconds=$2
shift 2
cd "$(dirname "$0")/../.."
src=tests/fuzz

programs=()
if [[ $# -gt 0 ]]; then
  for t in "$@"; do programs+=("$build/tests/fuzz/rpclab-fuzz-$t"); done
else
  for p in "$build"/tests/fuzz/rpclab-fuzz-*; do [[ -x "$p" ]] && programs+=("$p"); done
fi
if [[ ${#programs[@]} -eq 0 ]]; then
  echo "run-fuzzers: no fuzz programs in $build/tests/fuzz (build them with: make fuzz)" >&2
  exit 1
fi

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
log_dir="$build/fuzz-logs"
mkdir -p "$log_dir"
failed=()
rows=()
for p in "${programs[@]}"; do
  name=${p##*/rpclab-fuzz-}
  work="$build/fuzz-corpus/$name" crashes="$build/fuzz-crashes/$name"
  mkdir -p "$work" "$crashes"
  seeds=("$src/corpus/$name")
  [[ -d "$src/regressions/$name" ]] && seeds+=("$src/regressions/$name")
  log="$log_dir/$name.log"
  echo "=== $name: ${seconds} s"
  "$p" -max_total_time="$seconds" -timeout=25 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$crashes/" "$work" "${seeds[@]}" >"$log" 2>&1
  rc=$?
  # libFuzzer's last status line: "#N DONE cov: C ft: F corp: UNITS/BYTES ... exec/s: E rss: M"
  done_line=$(grep -E '^#[0-9]+[[:space:]]+DONE' "$log" | tail -1)
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  eps=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  corp=$(sed -n 's/.* corp: \([0-9]*\/[0-9]*[a-zA-Z]*\).*/\1/p' <<<"$done_line")
  cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$done_line")
  if [[ $rc -eq 0 && -n "$done_line" ]]; then
    result=ok
  else
    result="FAILED (exit $rc)"
    failed+=("$name")
    grep -E 'ERROR: |SUMMARY: |runtime error|FuzzCheckFailure|what\(\)|Test unit written' "$log" | sed -n 1,20p | sed 's/^/  /'
    for a in "$crashes"/*; do
      [[ -f "$a" ]] || continue
      echo "  input: $a ($(stat -c %s "$a") bytes), base64:"
      head -c 65536 "$a" | base64 | sed 's/^/    /'
    done
    echo "  full log: $log"
    echo "  replay: $p $crashes/<file>; once fixed, keep it in $src/regressions/$name/"
  fi
  rows+=("$(printf '%-16s %9s %11s %7s %14s %8s  %s' "$name" "${eps:--}" "${execs:--}" "${cov:--}" "${corp:--}" "$seconds" "$result")")
done

echo
echo "=== Fuzz summary (corpus: units/bytes at the end, seeds included)"
printf '%-16s %9s %11s %7s %14s %8s  %s\n' target exec/s executions cov corpus seconds result
printf '%s\n' "${rows[@]}"
if [[ ${#failed[@]} -gt 0 ]]; then
  # Again, after the table: CI shows only the end of its log, and the
  # reason and the input are what a reader needs to replay the failure.
  for name in "${failed[@]}"; do
    echo
    echo "=== $name failed (full log: $log_dir/$name.log)"
    for a in "$build/fuzz-crashes/$name"/*; do
      [[ -f "$a" ]] || continue
      echo "  input $a ($(stat -c %s "$a") bytes), its first 1 KB in base64:"
      head -c 1024 "$a" | base64 -w 0 | fold -w 160 | sed 's/^/    /'
    done
    grep -E 'ERROR: |SUMMARY: |runtime error|FuzzCheckFailure|what\(\)' "$log_dir/$name.log" | sed -n 1,4p | cut -c1-300 | sed 's/^/  why: /'
  done
  echo "run-fuzzers: failed: ${failed[*]}" >&2
  exit 1
fi
