#!/bin/sh
# Ships a run a results page quotes, so that anyone can re-derive its
# tables and plots from the repository alone (issue 39): its metadata.json
# and its results.jsonl, gzip'd, into docs/results/runs/<run id>/. That is
# all `rpclab report` and `rpclab compare` read; journals, captures, the
# cell folders and commands.log stay with the run folder (they are large,
# and the quoted figures do not need them). rpclab reads the folder in
# place (`rpclab report docs/results/runs/ID --views DIR` draws its report
# and plots into DIR); tools/docs-check.py --rpclab regenerates every
# quoted table of a shipped run from it and fails on any difference.
#
#   tools/ship-run.sh RUN_FOLDER      (prints the shipped folder and its size)
set -eu
if [ $# -ne 1 ]; then
  echo "usage: $0 RUN_FOLDER  (a folder a run wrote: metadata.json and results.jsonl)" >&2
  exit 2
fi
run=$1
if [ ! -d "$run" ]; then
  echo "$0: $run does not exist" >&2
  exit 2
fi
if [ ! -f "$run/metadata.json" ] || [ ! -f "$run/results.jsonl" ]; then
  echo "$0: $run is not a run folder (it needs metadata.json and results.jsonl)" >&2
  exit 2
fi
id=$(sed -n 's/.*"run_id" *: *"\([0-9a-f-]*\)".*/\1/p' "$run/metadata.json" | head -n 1)
if [ -z "$id" ]; then
  echo "$0: $run/metadata.json has no run_id (a run older than run ids): it cannot be named on a results page" >&2
  exit 2
fi
cd "$(dirname "$0")/.."
root=$(pwd)
cd - >/dev/null
out="$root/docs/results/runs/$id"
# A shipped run is what the pages quote: never written over.
if [ -e "$out" ]; then
  echo "$0: $out exists: run $id is shipped already (remove the folder first to ship it again)" >&2
  exit 1
fi
mkdir -p "$out.part.$$"
trap 'rm -rf "$out.part.$$"' EXIT
cp "$run/metadata.json" "$out.part.$$/metadata.json"
gzip -9nc "$run/results.jsonl" > "$out.part.$$/results.jsonl.gz"
mv "$out.part.$$" "$out"
trap - EXIT
echo "$out: $(du -sk "$out" | cut -f1) KiB (metadata.json, results.jsonl.gz)"
