#!/usr/bin/env bash
# Holds each skipped test of a run against the reasons this machine may
# give, so that a skip the product caused fails instead of passing.
#   tests/check-skips.sh SKIPPED [REASONS]
# SKIPPED is the list tests/run-tests.sh wrote (BUILD/tests/skipped.txt: test,
# where, reason, tab-separated); REASONS is the reviewed list of the
# machine's and the build's reasons (default tests/ci-skip-reasons.txt: each
# entry a "reason:" line, the start of a reason exactly as a test prints it,
# and a "why:" line saying why it is a fact of the machine or the build).
# Prints the count and each skip whose reason is not listed; exits 1 if
# there is one, 2 if a file is missing or the list has an entry without why.
set -uo pipefail
skipped=${1:?usage: tests/check-skips.sh SKIPPED [REASONS]}
reasons=${2:-$(dirname "$0")/ci-skip-reasons.txt}
for f in "$skipped" "$reasons"; do
  [[ -r $f ]] || { echo "check-skips: cannot read $f" >&2; exit 2; }
done
[[ -s $reasons ]] || { echo "check-skips: $reasons lists no reason" >&2; exit 2; }

awk -F'\t' '
  # The list first: "reason: TEXT" opens an entry, "why: TEXT" closes it.
  FNR == NR {
    if ($0 ~ /^reason: /) {
      if (open != "") bad = bad "\n  " open
      open = substr($0, 9)
    } else if ($0 ~ /^why: ./ && open != "") {
      listed[++n] = open; open = ""
    }
    next
  }
  /^#/ || NF == 0 { next }
  {
    total++
    ok = 0
    for (i = 1; i <= n; i++) if (index($3, listed[i]) == 1) { ok = 1; break }
    if (!ok) unlisted[++u] = sprintf("  %s (%s): %s", $1, $2, $3)
  }
  END {
    if (open != "") bad = bad "\n  " open
    if (bad != "") {
      printf "check-skips: %s has a reason without a why: line (each entry says why it is a fact of the machine or the build):%s\n", list, bad > "/dev/stderr"
      exit 2
    }
    printf "check-skips: %d skipped, %d for a reason not in %s\n", total, u, list
    for (i = 1; i <= u; i++) print unlisted[i]
    if (u > 0) {
      print "check-skips: a skip the machine or the build does not explain is a failure: make the test run, or, if its reason is a fact of the machine, add it to the list with why"
      exit 1
    }
  }
' list="$reasons" "$reasons" "$skipped"
