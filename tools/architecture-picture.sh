#!/usr/bin/env bash
# Redraws the picture of the rooms that docs/architecture.md shows: the
# folders and which include which (tools/tree-check.py --dot, transitive
# reduction) into docs/images/architecture.dot, rendered by Graphviz into
# docs/images/architecture.svg. Commit both. tests/tree/ fails while the
# committed .dot is not what the tree draws today.
#   tools/architecture-picture.sh
set -euo pipefail
cd "$(dirname "$0")/.."

dot_file=docs/images/architecture.dot
svg_file=docs/images/architecture.svg

python3 tools/tree-check.py --dot > "$dot_file.tmp"
mv "$dot_file.tmp" "$dot_file"
echo "architecture-picture: wrote $dot_file"

# Graphviz draws the picture only; building and testing do not need it.
if ! command -v dot > /dev/null; then
  echo "architecture-picture: Graphviz's dot is not installed, so $svg_file is not redrawn:" \
       "apt-get install graphviz, then run this again" >&2
  exit 1
fi
dot -Tsvg "$dot_file" -o "$svg_file.tmp"
mv "$svg_file.tmp" "$svg_file"
echo "architecture-picture: wrote $svg_file"
