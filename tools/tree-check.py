#!/usr/bin/env python3
"""The source tree's floor plan, checked and drawn.

A *unit* is a header and its source that share a path but for the
extension (server/ledger.h + server/ledger.cc), or
either alone. Unit A depends on unit B when a file of A includes a header
of B (#include "..."). A folder (a *room*) depends on another when one of
its units depends on one of the other's. The plan holds when:

- no unit depends on itself through others (no include circle between
  files: each pair of units is ordered, so each can be read, tested and
  replaced from below);
- no folder depends on itself through others (the rooms are layered);
- every folder has a row in ROOMS, and includes only the rooms that row
- nothing under adapters/ includes a header of rpclab's, by any path: an
  adapter is written against docs/adapters.md alone;
  allows (the layers are the ones docs/architecture.md describes);
- no folder of source holds more than MAX_FILES files;
- no file outside harness/record/ reads a record's field by its name
  (r.at("silent_loss"), r.value("calls", 0), r["classes"], ...): a run's
  records are read through their types (harness/record/), whose files
  are the one place a key is spelt. A key is any name the record room's
  files spell; a line that reads JSON of another kind under such a name
  (a call record's header, `ip -j`, Levy's CSV) says so with the comment
  `// not a record: WHY`.

The check sees units by their file names, so a unit must be what it
looks like: each function is declared in the header named for the source
that defines it (a header whose functions live in a file of another name
hides a dependency from the check), and a forward declaration is used
where a type is only named, never to hide a call that goes up a layer.

    tools/tree-check.py [--root DIR]              check; exit 1 and say what breaks the plan
    tools/tree-check.py [--root DIR] --dot        the folders and their includes, as Graphviz
    tools/tree-check.py [--root DIR] --units DIR  the units of DIR and what each includes

--root checks another tree laid out like this one (the tests plant broken
ones). tests/tree/ runs the check in `make test`; docs/architecture.md
shows the picture made from --dot (tools/architecture-picture.sh).
"""
import argparse
import collections
import os
import re
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
SOURCE_DIRS = ['src', 'process', 'netem', 'harness', 'adapters']
MAX_FILES = 32

# What each room may include: its row names the rooms right below it, and
# it may include those and, through them, everything below them (a room
# is above everything it names). A key or a name is a folder, or FOLDER/*
# for every folder under FOLDER; a folder's row is its own, else that of
# the longest FOLDER/* it is under. A new folder needs a row: say where it
# sits before it is built on.
ROOMS = {
    # src/: the transports and what they share, bottom-up; each room's main
    # header says the same in words.
    'src/common': [],                                # what every program links: files, flags, version
    'src/ops': ['src/common'],                       # the operations: arguments, replies, their checks
    'src/transport': ['src/ops'],                    # the one client and server interface, settings
    'src/server': ['src/ops'],                       # the server core: ledger, journal, at-most-once
    'src/client': ['src/transport'],                 # a client's calls and retries, its record
    'src/nfs': ['src/common'],                       # the NFSv3 workload client (rpcgen stubs of idl/nfs3_prot.x)
    'src/*': ['src/client', 'src/server'],           # one folder per RPC system (an adapter)
    'src': ['src/*'],                                # the transport table and the two mains
    # process/: spawning, commands and their log, remote hosts; what both
    # netem/ and harness/ run programs with.
    'process': ['src/*'],
    # netem/: the link between the hosts, bottom-up.
    'netem/spec': [],                                # a fault spec as plain values, and the field table
    'netem/topology': ['process'],                   # the hosts: namespaces, veth, a UML guest
    'netem/load': ['process'],                       # CPU hogs and the load they made
    'netem/faults': ['netem/spec', 'netem/topology'],  # steady faults applied: the backends
    'netem/events': ['netem/faults'],                # timed events applied, when they are due
    'netem/config': ['netem/events'],                # the event kinds table, specs read and checked, the choice of a backend
    'netem/linktest': ['netem/config'],              # a link measured without RPC
    # harness/: rpclab itself, bottom-up.
    'harness/kit': ['process'],                                     # statistics, tables, plots
    'harness/record': ['harness/kit', 'netem/config', 'netem/load'],  # the records as types, their JSON
    'harness/run': ['harness/kit', 'harness/record', 'netem/config', 'netem/load'],  # cells, trials, run folders
    'harness/placement': ['harness/run'],                           # where a trial's server and clients live
    'harness/causes': ['harness/placement'],                        # wire capture and attribution
    'harness/remote': ['harness/placement'],                        # hosts over ssh, a remote placement
    'harness/paths': ['harness/causes'],                            # a proxy before several replicas: the path's hosts, servers, causes
    'harness/dependability': ['harness/causes', 'harness/remote', 'harness/paths'],  # the dependability experiment
    'harness/speed': ['harness/causes', 'harness/remote', 'harness/paths'],  # the speed experiment
    'harness/nfs': ['harness/placement'],                           # the NFS experiment: NFS servers as rows, the NFS client, its classes
    'harness/report': ['harness/run'],                              # text, HTML, compare
    'harness/adapters': ['harness/dependability'],                  # rows from outside: found, built, checked
    'harness/cli': ['harness/dependability', 'harness/speed', 'harness/nfs', 'harness/report', 'harness/adapters'],  # the commands
    # adapters/: RPC stacks written against docs/adapters.md alone: they
    # include nothing of rpclab (see adapter_problems below).
    'adapters/*': [],
}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def source_files(root):
    files = []
    for top in SOURCE_DIRS:
        for dirpath, dirnames, names in os.walk(os.path.join(root, top)):
            dirnames[:] = sorted(d for d in dirnames if d not in ('build',))
            for name in names:
                if name.endswith(('.h', '.cc', '.c')):
                    files.append(os.path.relpath(os.path.join(dirpath, name), root))
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


def graph(root):
    files = source_files(root)
    fileset = set(files)
    edges = collections.defaultdict(set)
    why = {}
    for f in files:
        with open(os.path.join(root, f), errors='replace') as text:
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


def folder_edges(edges, why):
    """Folder -> the folders it includes, and one include that shows each."""
    folders = collections.defaultdict(set)
    folder_why = {}
    for a, targets in edges.items():
        for b in sorted(targets):
            fa, fb = os.path.dirname(a), os.path.dirname(b)
            if fa != fb:
                folders[fa].add(fb)
                folder_why.setdefault((fa, fb), why[(a, b)])
    return folders, folder_why


def explain_cycle(group, edges, why):
    inside = set(group)
    lines = []
    for a in group:
        for b in sorted(edges.get(a, ())):
            if b in inside:
                lines.append('    ' + why.get((a, b), a + ' -> ' + b))
    return '\n'.join(lines)


def matches(pattern, folder):
    if pattern.endswith('/*'):
        return folder.startswith(pattern[:-1])
    return folder == pattern


def row_of(folder, rooms):
    """The ROOMS key that speaks for `folder`, or None."""
    if folder in rooms:
        return folder
    under = [k for k in rooms if k.endswith('/*') and matches(k, folder)]
    return max(under, key=len) if under else None


def allowed(folder, rooms, folders):
    """The folders `folder` may include: those its row names, and theirs, down."""
    seen, todo = set(), [folder]
    while todo:
        key = row_of(todo.pop(), rooms)
        for pattern in rooms.get(key, ()):
            for f in folders:
                if matches(pattern, f) and f not in seen:
                    seen.add(f)
                    todo.append(f)
    seen.discard(folder)
    return seen


def room_problems(counts, folders, folder_why, rooms):
    problems = []
    names = sorted(counts)
    for folder in names:
        if row_of(folder, rooms) is None:
            problems.append('%s has no row in ROOMS (tools/tree-check.py): add one naming the rooms it may '
                            'include' % folder)
    for a in names:
        key = row_of(a, rooms)
        if key is None:
            continue
        may = allowed(a, rooms, names)
        for b in sorted(folders.get(a, ())):
            if b not in may:
                problems.append('%s may not include %s: %s (its row in ROOMS, %s: %s)' % (
                    a, b, folder_why[(a, b)], key, ', '.join(rooms[key]) or 'nothing of ours'))
    return problems


RECORD_ROOM = 'harness/record'
NOT_A_RECORD = '// not a record:'
KEY_LITERAL = re.compile(r'"([a-z][a-z0-9_]*)"')
# A read by name: j.at("k"), j.value("k", ...), j.contains("k"), j.count("k"),
# j.find("k"), or j["k"] that is not assigned to.
KEYED_READ = re.compile(r'(?:\.(?:at|value|contains|count|find)\(\s*"([a-z][a-z0-9_]*)"'
                        r'|\[\s*"([a-z][a-z0-9_]*)"\s*\](?!\s*=[^=]))')


ADAPTERS = 'adapters/'
# The top folders of rpclab's headers, as an include may spell them from
# the root or from src/ (common/..., server/...).
RPCLAB_HEADER = re.compile(r'^(\.\./)*(src|harness|netem|process|common|ops|transport|server|client)/')


def adapter_problems(root, files):
    problems = []
    fileset = set(files)
    for f in files:
        if not f.startswith(ADAPTERS):
            continue
        with open(os.path.join(root, f), errors='replace') as text:
            for n, line in enumerate(text, 1):
                m = re.match(r'^\s*#\s*include\s+["<]([^">]+)[">]', line)
                ours = resolve(m.group(1), fileset) if m else None
                if m and (RPCLAB_HEADER.search(m.group(1)) or (ours and not ours.startswith(ADAPTERS))):
                    problems.append('%s:%d includes %s: an adapter includes nothing of rpclab\'s (docs/adapters.md)'
                                    % (f, n, m.group(1)))
    return problems


def record_key_reads(root, files):
    keys = set()
    for f in files:
        if f.startswith(RECORD_ROOM + '/'):
            with open(os.path.join(root, f), errors='replace') as text:
                keys.update(KEY_LITERAL.findall(text.read()))
    problems = []
    for f in files:
        if not f.startswith('harness/') or f.startswith(RECORD_ROOM + '/'):
            continue
        with open(os.path.join(root, f), errors='replace') as text:
            for number, line in enumerate(text, 1):
                if NOT_A_RECORD in line:
                    continue
                for m in KEYED_READ.finditer(line):
                    key = m.group(1) or m.group(2)
                    if key in keys:
                        problems.append('%s:%d reads the record field "%s" by name: read it through its type in '
                                        '%s/ (or, for JSON that is no record, say so: %s WHY)\n    %s' %
                                        (f, number, key, RECORD_ROOM, NOT_A_RECORD, line.strip()))
    return problems


def check(root):
    files, units, edges, why = graph(root)
    problems = []
    for group in strongly_connected(units, edges):
        problems.append('include circle between files: ' + ' <-> '.join(group) + '\n' +
                        explain_cycle(group, edges, why))
    folders, folder_why = folder_edges(edges, why)
    for group in strongly_connected(sorted(folders), folders):
        problems.append('include circle between folders: ' + ' <-> '.join(group) + '\n' +
                        explain_cycle(group, folders, folder_why))
    counts = collections.Counter(os.path.dirname(f) for f in files)
    problems += room_problems(counts, folders, folder_why, ROOMS)
    for folder, n in sorted(counts.items()):
        if n > MAX_FILES:
            problems.append('%s holds %d source files (at most %d): split it along its seams' % (folder, n, MAX_FILES))
    problems += record_key_reads(root, files)
    problems += adapter_problems(root, files)
    for p in problems:
        print(p)
    if not problems:
        print('tree-check: %d units in %d folders, no include circle between files or folders, each folder '
              'includes only what its row in ROOMS allows, no folder over %d files, no record field read by '
              'name outside %s/' % (len(units), len(counts), MAX_FILES, RECORD_ROOM))
    return 1 if problems else 0


def dot(root):
    files, units, edges, why = graph(root)
    folders, _ = folder_edges(edges, why)
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
    out = ['// made by tools/tree-check.py --dot (tools/architecture-picture.sh); do not edit',
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


def list_units(root, folder):
    files, units, edges, why = graph(root)
    for u in units:
        if os.path.dirname(u) == folder.rstrip('/'):
            print(u + ': ' + ' '.join(sorted(edges.get(u, ()))))
    return 0


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--root', default=ROOT, help='the tree to check (default: this one)')
    what = parser.add_mutually_exclusive_group()
    what.add_argument('--dot', action='store_true', help='print the folder graph as Graphviz')
    what.add_argument('--units', metavar='DIR', help='list the units of DIR and what each includes')
    args = parser.parse_args(argv)
    root = os.path.normpath(args.root)
    if not os.path.isdir(root):
        parser.error('--root %s: not a folder' % args.root)
    if args.dot:
        return dot(root)
    if args.units:
        return list_units(root, args.units)
    return check(root)


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
