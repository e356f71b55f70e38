#!/bin/sh
# Refreshes docs/presets.md's tables from the presets themselves, so that
# the page cannot drift from what a run plans. A quoted table sits between
#
#   <!-- begin rpclab presets EXPERIMENT -->
#   <!-- end rpclab presets -->
#
# and is replaced by `rpclab presets --markdown EXPERIMENT`.
# tests/harness/report_e2e_test.cc (PresetsPage) fails when they differ.
#
#   tools/docs-presets.sh RPCLAB [FILE]    (make docs-presets)
set -eu
if [ $# -lt 1 ]; then
  echo "usage: $0 path/to/rpclab [FILE]  (default FILE: docs/presets.md)" >&2
  exit 2
fi
rpclab=$1
file=${2:-docs/presets.md}
[ -f "$file" ] || { echo "$0: $file: no such file" >&2; exit 2; }
tmp="$file.presets.$$"
trap 'rm -f "$tmp"' EXIT
refreshed=0
in_block=0
: > "$tmp"
while IFS= read -r line || [ -n "$line" ]; do
  case "$line" in
    "<!-- begin rpclab presets "*" -->")
      printf '%s\n' "$line" >> "$tmp"
      experiment=$(printf '%s' "$line" | sed 's/^<!-- begin rpclab presets \(.*\) -->$/\1/')
      "$rpclab" presets --markdown "$experiment" >> "$tmp"
      in_block=1
      refreshed=$((refreshed + 1))
      continue ;;
    "<!-- end rpclab presets -->")
      in_block=0 ;;
  esac
  [ "$in_block" = 1 ] || printf '%s\n' "$line" >> "$tmp"
done < "$file"
cat "$tmp" > "$file"
echo "$file: $refreshed experiment(s)' presets refreshed"
