#!/bin/sh
# Refreshes the tables quoted in docs from a run folder, so that they
# cannot drift from what a run printed. A quoted table sits between
#
#   <!-- begin rpclab report PRESET TABLE -->
#   <!-- end rpclab report -->
#
# and is replaced by `rpclab report --markdown --table TABLE RUN` (which
# heads it with the run's id, date and command) when RUN is a run of
# PRESET; blocks of other presets are left as they are. Without FILE, the
# results page of the run's experiment: docs/results/EXPERIMENT.md (both
# dependability and speed have a preset named levy1989). Quoted tables live
# only on results pages (tools/docs-check.py).
#
#   tools/docs-tables.sh RPCLAB RUN [FILE...]    (make docs-tables RUN=results/...)
set -eu
if [ $# -lt 2 ]; then
  echo "usage: $0 path/to/rpclab RUN_FOLDER [FILE...]  (default FILE: docs/results/EXPERIMENT.md of the run)" >&2
  exit 2
fi
rpclab=$1
run=$2
shift 2
if [ ! -f "$run/metadata.json" ] || { [ ! -f "$run/results.jsonl" ] && [ ! -f "$run/results.jsonl.gz" ]; }; then
  echo "$0: $run is not a run folder (no metadata.json and results.jsonl); give one, e.g. RUN=results/latest" >&2
  exit 2
fi
if [ $# -eq 0 ]; then
  experiment=$(grep -o '"experiment" *: *"[a-z]*"' "$run/metadata.json" | head -n 1 | sed 's/.*"\([a-z]*\)"$/\1/')
  if [ ! -f "docs/results/$experiment.md" ]; then
    echo "$0: $run/metadata.json names experiment '$experiment', which has no results page docs/results/$experiment.md; name the file" >&2
    exit 2
  fi
  set -- "docs/results/$experiment.md"
fi
for file in "$@"; do
  tmp="$file.tables.$$"
  refreshed=0
  : > "$tmp"
  in_block=0
  while IFS= read -r line || [ -n "$line" ]; do
    case "$line" in
      "<!-- begin rpclab report "*" -->")
        printf '%s\n' "$line" >> "$tmp"
        spec=$(printf '%s' "$line" | sed 's/^<!-- begin rpclab report \(.*\) -->$/\1/')
        preset=${spec%% *}
        table=${spec#* }
        out=$("$rpclab" report --markdown --if-preset "$preset" --table "$table" "$run")
        if [ -n "$out" ]; then
          printf '%s\n' "$out" >> "$tmp"
          in_block=1
          refreshed=$((refreshed + 1))
        else
          in_block=2  # another preset's block: kept
        fi
        continue ;;
      "<!-- end rpclab report -->")
        in_block=0 ;;
    esac
    [ "$in_block" = 1 ] || printf '%s\n' "$line" >> "$tmp"
  done < "$file"
  mv "$tmp" "$file"
  echo "$file: $refreshed table(s) refreshed from $run"
done
