#!/usr/bin/env python3
"""The docs' floor plan as a check (issue 25: a guide, results pages, reference).

    python3 tools/docs-check.py [--root DIR]

Reads README.md and every docs/**/*.md under the root and fails, naming
file and line, when

  - a run is cited outside docs/results/: a run id (YYYYMMDD-HHMMSS), a
    run folder under /work/runs/ or results/2..., or a table quoted from a
    run (<!-- begin rpclab report ...). The results pages are the only
    place a run and its figures appear; the other pages explain and link;
  - a results page cites a run its "## The runs" table does not list (the
    table names each run's id, date and command, so every figure on the
    page can be traced to the run folder it came from);
  - a relative link points to a file that is not there, or to a #heading
    that file does not have (GitHub's anchors: lowercase, punctuation
    dropped, spaces as hyphens, repeats numbered -1, -2, ...);
  - a page under docs/ is not linked from docs/README.md, the map a
    newcomer starts from;
  - README.md or docs/guide.md states a count or a time about a preset
    that is not what the preset plans: on a line that names a preset
    (`PRESET=quick`, `QUICK=1`, `--preset NAME`, "the quick preset",
    `make run-dependability` alone = levy1989), every "N cells" must be the
    preset's cells (or one of its tables'), every "N trials" its trials
    in all or a cell's, and every time ("about a minute", "16 min") must
    be in the preset's own summary, unless the line links to the results
    page that lists the run it was measured in. What a preset plans is
    read from docs/presets.md, which `rpclab presets --markdown` writes
    and a test holds to the presets (PresetsPage.QuotesWhatThePresetsPlan);
  - a run that "## The runs" lists is neither shipped (its metadata.json
    and results.jsonl.gz under docs/results/runs/<run id>/, made by
    tools/ship-run.sh) nor marked "not shipped" in its row;
  - with --rpclab PATH: a quoted table from a shipped run differs from
    what `rpclab report --markdown --table TABLE` prints from the shipped
    data today (tools/docs-tables.sh refreshes it), so every quoted figure
    can be re-derived by anyone from the repository alone.

Exit 0 when all hold, 1 when one does not, 2 on bad usage.
"""
import argparse
import os
import re
import subprocess
import sys
import unicodedata

RUN_ID = re.compile(r"(?<![0-9])(20[0-9]{6}-[0-9]{6})(?:-[0-9a-f]{8})?(?![0-9])")
RUN_FOLDER = re.compile(r"/work/runs/|(?<![A-Za-z0-9_/.-])results/20[0-9]{6}")
QUOTED_TABLE = "<!-- begin rpclab report"
RUNS_HEADING = "## The runs"
SHIPPED_RUNS = "docs/results/runs"
NOT_SHIPPED = "not shipped"
QUOTED_RUN = re.compile(r"^Run `(20[0-9]{6}-[0-9]{6}-[0-9a-f]{8})`")
INLINE_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE_DEF = re.compile(r"^\s{0,3}\[[^\]]+\]:\s+<?(\S+?)>?(?:\s|$)")
HTML_ANCHOR = re.compile(r"<a\s+(?:id|name)=\"([^\"]+)\"")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
FENCE = re.compile(r"^\s*(```|~~~)")
PRESET_PAGE = "docs/presets.md"
PRESET_PROSE = ("README.md", "docs/guide.md")
EXPERIMENT_HEADING = re.compile(r"^## `rpclab (\w+)`")
PRESET_HEADING = re.compile(r"^### `([\w.-]+)`")
PRESET_SUMMARY = re.compile(r"^`rpclab \w+ --preset [\w.-]+`: (.*)$")
IN_ALL = re.compile(r"^In all: ([\d,]+) cells?, ([\d,]+) trials?\.")
CELLS = re.compile(r"(?<![\w.])(\d[\d,]*) (?:small timing |timing )?cells\b")
TRIALS = re.compile(r"(?<![\w.])(\d[\d,]*) trials\b")
TIME = re.compile(r"(?:about |under |over |in )?(?:half an|an|a|one|two|three|four|five|ten|\d+(?:\.\d+)?(?: to \d+)?) "
                  r"(?:minutes?|min|hours?|seconds|s)\b")


def slug(text):
    """GitHub's anchor for a heading's text (github-slugger's rule)."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)  # a link in a heading anchors on its text
    text = re.sub(r"<[^>]+>", "", text)
    out = []
    for ch in text.lower():
        if ch in " -_" or ch.isalnum() or unicodedata.category(ch).startswith("M"):
            out.append(ch)
    return "".join(out).replace(" ", "-")


def prose_lines(lines):
    """(line number, text) of the lines outside fenced code blocks."""
    fenced = False
    for number, line in enumerate(lines, 1):
        if FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            yield number, line


def anchors_of(lines):
    found, seen = set(), {}
    for _, line in prose_lines(lines):
        for a in HTML_ANCHOR.findall(line):
            found.add(a)
        m = HEADING.match(line)
        if not m:
            continue
        base = slug(m.group(2))
        n = seen.get(base, 0)
        seen[base] = n + 1
        found.add(base if n == 0 else f"{base}-{n}")
    return found


def without_inline_code(line):
    return re.sub(r"`[^`]*`", "``", line)


def relative_links(path, lines):
    """(line number, target, the path it links to, #anchor) of each link in
    the page at `path` that is not a URL (http:, https:, mailto:) and not in
    code; a link to an anchor alone links to the page itself."""
    here = os.path.dirname(path)
    for number, line in prose_lines(lines):
        text = without_inline_code(line)
        targets = INLINE_LINK.findall(text)
        m = REFERENCE_DEF.match(text)
        if m:
            targets.append(m.group(1))
        for target in targets:
            if re.match(r"^[a-z][a-z0-9+.-]*:", target):
                continue
            file_part, _, anchor = target.partition("#")
            linked = os.path.normpath(os.path.join(here, file_part)) if file_part else path
            yield number, target, linked, anchor


def number(text):
    return int(text.replace(",", ""))


def table_row(lines, what):
    """The cells of the row `| what | ... |` of the table in `lines`."""
    for line in lines:
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if cells and cells[0] == what:
            return cells[1:]
    return None


def read_presets(lines):
    """{(experiment, preset): facts} from docs/presets.md: the cells of the
    preset and of each table, the trials in all and a cell's, its summary."""
    presets, experiment, name, body = {}, None, None, []

    def close():
        if not (experiment and name):
            return
        cells = [number(c) for c in table_row(body, "cells") or [] if re.fullmatch(r"[\d,]+", c)]
        per_cell = table_row(body, "trials a cell") or []
        trials_a_cell = {int(t) for v in per_cell for t in re.findall(r"\d+", v)}
        summary = next((m.group(1) for m in map(PRESET_SUMMARY.match, body) if m), "")
        in_all = next((m for m in map(IN_ALL.match, body) if m), None)
        total_trials = number(in_all.group(2)) if in_all else None
        if total_trials is None and len(per_cell) == len(cells) and all(v.isdigit() for v in per_cell):
            total_trials = sum(c * int(t) for c, t in zip(cells, per_cell))
        presets[(experiment, name)] = {
            "cells": number(in_all.group(1)) if in_all else sum(cells), "table_cells": set(cells),
            "trials": total_trials, "trials_a_cell": trials_a_cell, "summary": summary}

    for line in lines:
        e, p = EXPERIMENT_HEADING.match(line), PRESET_HEADING.match(line)
        if e or p or line.startswith("## "):
            close()
            name, body = None, []
            if e:
                experiment = e.group(1)
            elif p:
                name = p.group(1)
            elif line.startswith("## "):
                experiment = None
            continue
        body.append(line)
    close()
    return presets


def presets_named(line, presets):
    """The (experiment, preset) pairs a line of prose is about."""
    names = {p for _, p in presets}
    speed = "run-speed" in line or "rpclab speed" in line
    named = []

    def add(experiment, preset):
        if (experiment, preset) in presets and (experiment, preset) not in named:
            named.append((experiment, preset))

    for m in re.finditer(r"PRESET=([\w.-]+)", line):
        p = m.group(1).rstrip(".")
        if speed:
            add("nfs", "nfs-speed") if p == "nfs" else add("speed", p)
        else:
            add("nfs", p) if p.startswith("nfs") else add("dependability", p)
    if "QUICK=1" in line:
        add("speed", "quick")
    for m in re.finditer(r"rpclab (\w+)[^`]*?--preset ([\w.-]+)", line):
        add(m.group(1), m.group(2))
    for m in re.finditer(r"\bpreset `?([\w.-]+)`?|\b[Tt]he `?([\w.-]+)`? preset", line):
        p = m.group(1) or m.group(2)
        if p in names:
            for experiment in (["speed"] if speed else []) + ["dependability", "speed", "nfs"]:
                if (experiment, p) in presets:
                    add(experiment, p)
                    break
    if not named:
        if re.search(r"make run-dependability(?![ \w=]*PRESET=)", line):
            add("dependability", "levy1989")
        if re.search(r"make run-speed(?![ \w=]*(?:PRESET|QUICK)=)", line):
            add("speed", "levy1989")
    return named


def runs_rows(lines):
    """The table rows of a page's RUNS_HEADING section, as (line number, line); None without the section."""
    start = next((i for i, line in enumerate(lines) if line.strip() == RUNS_HEADING), None)
    if start is None:
        return None
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
    return [(i + 1, lines[i]) for i in range(start + 1, end) if lines[i].lstrip().startswith("|")]


class Docs:
    def __init__(self, root, rpclab=None):
        self.root = root
        self.rpclab = rpclab
        self.regenerated = 0
        self.pages = {}  # path relative to root -> lines
        paths = ["README.md"] if os.path.isfile(os.path.join(root, "README.md")) else []
        for folder, dirs, files in os.walk(os.path.join(root, "docs")):
            dirs.sort()
            for name in sorted(files):
                if name.endswith(".md"):
                    paths.append(os.path.relpath(os.path.join(folder, name), root))
        for path in paths:
            with open(os.path.join(root, path), encoding="utf-8") as f:
                self.pages[path] = f.read().split("\n")
        self._anchors = {}
        self.problems = []
        self.links = 0
        self.preset_lines = 0

    def anchors(self, path):
        if path not in self._anchors:
            full = os.path.join(self.root, path)
            lines = self.pages.get(path)
            if lines is None:
                with open(full, encoding="utf-8") as f:
                    lines = f.read().split("\n")
            self._anchors[path] = anchors_of(lines)
        return self._anchors[path]

    def problem(self, path, line, what):
        self.problems.append(f"{path}:{line}: {what}")

    @staticmethod
    def is_results(path):
        return path.startswith("docs/results/")

    def check_runs_cited_where_allowed(self, path, lines):
        if self.is_results(path):
            return
        for number, line in enumerate(lines, 1):
            m = RUN_ID.search(line)
            if m:
                self.problem(path, number, f"cites run {m.group(1)}: runs and their figures belong on a page "
                             "under docs/results/ (link to it from here)")
            if RUN_FOLDER.search(line):
                self.problem(path, number, "names a run folder: runs and their figures belong on a page "
                             "under docs/results/ (link to it from here)")
            if line.lstrip().startswith(QUOTED_TABLE):
                self.problem(path, number, "quotes a run's table: quoted tables belong on a page under "
                             "docs/results/")

    def check_runs_listed(self, path, lines):
        if not self.is_results(path):
            return
        rows = runs_rows(lines)
        if rows is None:
            self.problem(path, 1, f"a results page has no '{RUNS_HEADING}' section listing the runs it cites")
            return
        listed = set()
        for _, line in rows:
            listed.update(RUN_ID.findall(line))
        for number, line in enumerate(lines, 1):
            for run in RUN_ID.findall(line):
                if run not in listed:
                    self.problem(path, number, f"cites run {run}, which '{RUNS_HEADING}' does not list "
                                 "(add its id, date and command there)")

    def shipped(self, run):
        folder = os.path.join(self.root, SHIPPED_RUNS, run)
        return os.path.isfile(os.path.join(folder, "metadata.json")) and \
            os.path.isfile(os.path.join(folder, "results.jsonl.gz"))

    def check_runs_shipped(self, path, lines):
        if not self.is_results(path):
            return
        for number, line in runs_rows(lines) or []:  # no section: check_runs_listed names it
            full = re.findall(r"20[0-9]{6}-[0-9]{6}-[0-9a-f]{8}", line)
            if full and any(self.shipped(run) for run in full):
                continue
            if NOT_SHIPPED not in line and (full or RUN_ID.search(line)):
                self.problem(path, number, f"lists a run that is not under {SHIPPED_RUNS}/: ship it "
                             f"(tools/ship-run.sh RUN) or say '{NOT_SHIPPED}' in its row")

    def check_quoted_tables(self, path, lines):
        """Each quoted table of a shipped run, against what rpclab prints from the shipped data."""
        if not self.rpclab or not self.is_results(path):
            return
        number = 0
        while number < len(lines):
            line = lines[number].strip()
            number += 1
            if not line.startswith(QUOTED_TABLE) or not line.endswith("-->"):
                continue
            begin = number
            spec = line[len(QUOTED_TABLE):-3].split()
            end = next((i for i in range(begin, len(lines)) if lines[i].strip() == "<!-- end rpclab report -->"),
                       None)
            if end is None or len(spec) != 2:
                self.problem(path, begin, "a quoted table without its end marker or without PRESET TABLE")
                continue
            quoted = lines[begin:end]
            m = QUOTED_RUN.match(quoted[0]) if quoted else None
            if not m or not self.shipped(m.group(1)):
                continue  # a run not shipped: its row says so (check_runs_shipped)
            folder = os.path.join(self.root, SHIPPED_RUNS, m.group(1))
            out = subprocess.run([self.rpclab, "report", "--markdown", "--if-preset", spec[0], "--table", spec[1],
                                  folder], capture_output=True, text=True)
            printed = out.stdout.rstrip("\n").split("\n")
            self.regenerated += 1
            if out.returncode != 0:
                self.problem(path, begin, f"rpclab report of shipped run {m.group(1)} failed "
                             f"({out.returncode}): {out.stderr.strip()}")
            elif printed != quoted:
                differ = next((i for i, (a, b) in enumerate(zip(printed, quoted)) if a != b),
                              min(len(printed), len(quoted)))
                self.problem(path, begin + differ + 1, f"the quoted {spec[0]} {spec[1]} table differs from what "
                             f"`rpclab report` prints from shipped run {m.group(1)} (refresh: tools/docs-tables.sh "
                             f"RPCLAB {SHIPPED_RUNS}/{m.group(1)}): the page has "
                             f"{quoted[differ] if differ < len(quoted) else '(nothing)'!r}, the run gives "
                             f"{printed[differ] if differ < len(printed) else '(nothing)'!r}")
            number = end + 1

    def check_links(self, path, lines):
        for number, target, linked, anchor in relative_links(path, lines):
            self.links += 1
            if not os.path.exists(os.path.join(self.root, linked)):
                self.problem(path, number, f"links to {target}: there is no {linked}")
            elif anchor and linked.endswith(".md") and anchor not in self.anchors(linked):
                self.problem(path, number, f"links to {target}: {linked} has no heading '#{anchor}'")

    def check_map(self):
        index = "docs/README.md"
        if index not in self.pages:
            return
        linked = {page for _, _, page, _ in relative_links(index, self.pages[index])}
        for path in self.pages:
            if path.startswith("docs/") and path != index and path not in linked:
                self.problem(index, 1, f"does not link to {path}: every page is on the map")

    def check_preset_facts(self):
        if PRESET_PAGE not in self.pages:
            return
        presets = read_presets(self.pages[PRESET_PAGE])
        for path in PRESET_PROSE:
            for number_, line in prose_lines(self.pages.get(path, [])):
                named = presets_named(line, presets)
                if not named:
                    continue
                self.preset_lines += 1
                facts = [presets[n] for n in named]
                which = ", ".join(f"{e} {p}" for e, p in named)
                for m in CELLS.finditer(line):
                    n = number(m.group(1))
                    if not any(n == f["cells"] or n in f["table_cells"] for f in facts):
                        planned = ", ".join(str(f["cells"]) for f in facts)
                        self.problem(path, number_, f"says {m.group(0)} of {which}, which plans {planned} "
                                     f"cells ({PRESET_PAGE}, `rpclab presets`)")
                for m in TRIALS.finditer(line):
                    n = number(m.group(1))
                    if not any(n == f["trials"] or n in f["trials_a_cell"] for f in facts):
                        planned = ", ".join(f"{f['trials']} in all, {sorted(f['trials_a_cell'])} a cell"
                                            for f in facts)
                        self.problem(path, number_, f"says {m.group(0)} of {which}, which plans {planned} "
                                     f"({PRESET_PAGE}, `rpclab presets`)")
                if "results/" in line:
                    continue  # a time measured in a run, named on the results page linked
                for m in TIME.finditer(line):
                    if not any(m.group(0) in f["summary"] for f in facts):
                        self.problem(path, number_, f"says '{m.group(0)}' of {which}: a time about a preset is "
                                     "its summary's (`rpclab presets`) or a run's (link its results page)")

    def check(self):
        for path, lines in self.pages.items():
            self.check_runs_cited_where_allowed(path, lines)
            self.check_runs_listed(path, lines)
            self.check_runs_shipped(path, lines)
            self.check_quoted_tables(path, lines)
            self.check_links(path, lines)
        self.check_map()
        self.check_preset_facts()
        return self.problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                        help="the repository to check (default: this script's)")
    parser.add_argument("--rpclab", help="an rpclab binary: regenerate every quoted table of a shipped run with it "
                        "and fail on any difference")
    args = parser.parse_args()
    if not os.path.isdir(os.path.join(args.root, "docs")):
        print(f"docs-check: {args.root} has no docs/ folder; give the repository with --root", file=sys.stderr)
        return 2
    if args.rpclab and not os.access(args.rpclab, os.X_OK):
        print(f"docs-check: --rpclab {args.rpclab} is not an executable (build it: make build)", file=sys.stderr)
        return 2
    docs = Docs(args.root, args.rpclab)
    problems = docs.check()
    for p in problems:
        print(p)
    results = sum(1 for p in docs.pages if Docs.is_results(p))
    if problems:
        print(f"docs-check: {len(problems)} problem(s) in {len(docs.pages)} pages")
        return 1
    print(f"docs-check: {len(docs.pages)} pages ({results} results pages), {docs.links} relative links: "
          "runs cited only on results pages and listed there, each shipped or marked not shipped, every link and "
          "heading found, every page on the map; "
          f"{docs.preset_lines} lines about a preset state what it plans" +
          (f"; {docs.regenerated} quoted tables regenerated from shipped runs with no difference" if args.rpclab
           else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
