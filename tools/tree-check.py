#!/usr/bin/env python3
"""The source tree's floor plan, checked and drawn.

A *unit* is a header and its source (server/ledger.h + server/ledger.cc), or
either alone. Unit A depends on unit B when a file of A includes a header
of B (#include "..."). A folder depends on another when one of its units
depends on one of the other's. The plan holds when:

- no unit depends on itself through others (no include circle between
  files: each pair of units is ordered, so each can be read, tested and
  replaced from below);
- no folder depends on itself through others (the rooms are layered);
- no folder of source holds more than MAX_FILES files;
- src/'s rooms include only the rooms below them (SRC_MAY_INCLUDE; each
  room's main header says the same in words).

    tools/tree-check.py              check; exit 1 and say what breaks the plan
    tools/tree-check.py --dot        the folders and their includes, as Graphviz
    tools/tree-check.py --units DIR  the units of DIR and what each includes

tests/tree/ runs the check in `make test`; docs/architecture.md shows the
picture made from --dot (tools/architecture-picture.sh).
"""
import collections
import os
import re
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
SOURCE_DIRS = ['src', 'process', 'netem', 'harness']
MAX_FILES = 32

# What each of src/'s rooms may include. An adapter's folder (src/sunrpc,
# src/grpc, ...) may include common, ops, transport and server; the
# transport table and the two mains in src/ itself, anything.
SRC_MAY_INCLUDE = {
    'src/common': set(),
    'src/ops': {'src/common'},
    'src/transport': {'src/common', 'src/ops'},
    'src/server': {'src/common', 'src/ops'},
    'src/client': {'src/common', 'src/ops', 'src/transport'},
}
SRC_ADAPTER_MAY_INCLUDE = {'src/common', 'src/ops', 'src/transport', 'src/server'}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def source_files():
    files = []
    for top in SOURCE_DIRS:
        for dirpath, dirnames, names in os.walk(os.path.join(ROOT, top)):
            dirnames[:] = [d for d in dirnames if d not in ('build',)]
            for name in names:
                if name.endswith(('.h', '.cc', '.c')):
                    files.append(os.path.relpath(os.path.join(dirpath, name), ROOT))
    return sorted(files)


def resolve(included, files):
    # rpclab includes from the project root (harness/..., netem/...,
    # process/...) or from src/ (common/..., sunrpc/...).
    for base in ('', 'src/'):
        if base + included in files:
            return base + included
    return None


def unit_of(path):
    return os.path.splitext(path)[0]


def graph():
    files = source_files()
    fileset = set(files)
    edges = collections.defaultdict(set)
    why = {}
    for f in files:
        with open(os.path.join(ROOT, f), errors='replace') as text:
            for line in text:
                m = INCLUDE.match(line)
                if not m:
                    continue
                target = resolve(m.group(1), fileset)
                if target and unit_of(target) != unit_of(f):
                    edges[unit_of(f)].add(unit_of(target))
                    why.setdefault((unit_of(f), unit_of(target)), f + ' includes ' + m.group(1))
    units = sorted({unit_of(f) for f in files})
    return files, units, edges, why


def strongly_connected(nodes, edges):
    """Tarjan's algorithm: the groups of two or more nodes that reach each other."""
    index, low, stack, on_stack, groups = {}, {}, [], set(), []
    counter = [0]
    sys.setrecursionlimit(100000)

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for v in nodes:
        if v not in index:
            visit(v)
    return groups


def folder_edges(edges):
    folders = collections.defaultdict(set)
    for a, targets in edges.items():
        for b in targets:
            fa, fb = os.path.dirname(a), os.path.dirname(b)
            if fa != fb:
                folders[fa].add(fb)
    return folders


def explain_cycle(group, edges, why):
    inside = set(group)
    lines = []
    for a in group:
        for b in sorted(edges.get(a, ())):
            if b in inside:
                lines.append('    ' + why.get((a, b), a + ' -> ' + b))
    return '\n'.join(lines)


def check():
    files, units, edges, why = graph()
    problems = []
    for group in strongly_connected(units, edges):
        problems.append('include circle between files: ' + ' <-> '.join(group) + '\n' +
                        explain_cycle(group, edges, why))
    folders = folder_edges(edges)
    folder_why = {}
    for (a, b), w in why.items():
        folder_why.setdefault((os.path.dirname(a), os.path.dirname(b)), w)
    for group in strongly_connected(sorted(folders), folders):
        problems.append('include circle between folders: ' + ' <-> '.join(group) + '\n' +
                        explain_cycle(group, folders, folder_why))
    for a in sorted(folders):
        if not a.startswith('src/'):
            continue
        allowed = SRC_MAY_INCLUDE.get(a, SRC_ADAPTER_MAY_INCLUDE)
        for b in sorted(folders[a]):
            if b.startswith('src/') and b not in allowed:
                problems.append('%s may not include %s (tools/tree-check.py SRC_MAY_INCLUDE)\n    %s' %
                                (a, b, folder_why.get((a, b), '')))
    counts = collections.Counter(os.path.dirname(f) for f in files)
    for folder, n in sorted(counts.items()):
        if n > MAX_FILES:
            problems.append('%s holds %d source files (at most %d): split it along its seams' % (folder, n, MAX_FILES))
    for p in problems:
        print(p)
    if not problems:
        print('tree-check: %d units in %d folders, no include circle between files or folders, '
              'no folder over %d files' % (len(units), len(counts), MAX_FILES))
    return 1 if problems else 0


def dot():
    files, units, edges, why = graph()
    folders = folder_edges(edges)
    counts = collections.Counter(os.path.dirname(f) for f in files)
    # Only the edges that are not implied by a longer path (the transitive
    # reduction), so the picture shows the layers rather than a hairball.
    def reaches(a, b, skip):
        seen, todo = set(), [x for x in folders.get(a, ()) if (a, x) != skip]
        while todo:
            x = todo.pop()
            if x == b:
                return True
            if x not in seen:
                seen.add(x)
                todo.extend(folders.get(x, ()))
        return False
    out = ['// made by tools/tree-check.py --dot; do not edit',
           'digraph rpclab {', '  rankdir=BT;', '  node [shape=box, fontname="Helvetica", fontsize=11];',
           '  edge [color="#777777"];']
    tops = collections.defaultdict(list)
    for folder in sorted(counts):
        tops[folder.split('/')[0]].append(folder)
    for top in SOURCE_DIRS:
        out.append('  subgraph "cluster_%s" { label="%s/"; fontname="Helvetica"; color="#bbbbbb";' % (top, top))
        for folder in tops[top]:
            out.append('    "%s" [label="%s\\n%d files"];' % (folder, folder, counts[folder]))
        out.append('  }')
    for a in sorted(folders):
        for b in sorted(folders[a]):
            if not reaches(a, b, (a, b)):
                out.append('  "%s" -> "%s";' % (a, b))
    out.append('}')
    print('\n'.join(out))
    return 0


def list_units(folder):
    files, units, edges, why = graph()
    for u in units:
        if os.path.dirname(u) == folder.rstrip('/'):
            print(u + ': ' + ' '.join(sorted(edges.get(u, ()))))
    return 0


if __name__ == '__main__':
    if len(sys.argv) > 1 and sys.argv[1] == '--dot':
        sys.exit(dot())
    if len(sys.argv) > 2 and sys.argv[1] == '--units':
        sys.exit(list_units(sys.argv[2]))
    if len(sys.argv) > 1:
        print(__doc__)
        sys.exit(2)
    sys.exit(check())
