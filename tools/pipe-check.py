#!/usr/bin/env python3
"""Pipelines that can kill the script that runs them.

Under `set -o pipefail`, a pipeline's status is that of its last stage to
fail. A reader that stops before its input ends (head, grep -q, grep -m,
awk with `exit`, sed with `q`) leaves the writer before it to die of
SIGPIPE, status 141, whenever the writer had more to write: a race, lost
on some runs only. Under `set -e` that ends the script without a word
(CI, 2026-12-07: the fresh-machine stage exited 141 in 0 s; `git show |
awk '... exit'` lost 49 of 200 tries here); in an `if` or after `&&` it
turns a match into a miss.

This check finds such pipelines in every tracked shell script that sets
pipefail, and fails naming the file and line. The cure is to read the
input whole first (a variable and `<<<`, a file, `<(...)`), or to let the
reader read to the end (`sed -n 1p` rather than `head -1`). A pipeline
whose writer cannot outlast its reader may say so where it starts, with
`# pipe-ok: WHY`.

    tools/pipe-check.py [--root DIR]   exit 1 and name each pipeline; 0 when none

tests/tree/ runs it in `make test`, on this tree and on planted scripts.
"""
import argparse
import os
import re
import subprocess
import sys

# A stage that may stop reading before its input ends, and why.
EARLY_READERS = [
    (re.compile(r"^head\b"), "head stops after its lines"),
    (re.compile(r"^grep\b(?=.*\s-[a-zA-Z]*[qm])"), "grep -q/-m stops at a match"),
    (re.compile(r"^awk\b.*\bexit\b", re.S), "awk's exit stops reading"),
    (re.compile(r"^sed\b.*(;|\s|')\d*q\b", re.S), "sed's q stops reading"),
]


def sets_pipefail(text):
    return re.search(r"^\s*set\s+-[a-zA-Z]*o\s+pipefail\b|^\s*set\s+.*-o\s+pipefail\b", text, re.M) is not None


def statements(text):
    """Yield (line number, statement, marked ok) for each logical command
    line: a line continued by a trailing `|`, `\\` or an open quote joins
    the next, comments are dropped outside quotes."""
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        start = i
        buf, quote, marked = "", None, False
        while i < len(lines):
            line = lines[i]
            i += 1
            if "# pipe-ok:" in line:
                marked = True
            out, j = [], 0
            while j < len(line):
                c = line[j]
                if quote:
                    if c == quote:
                        quote = None
                    elif c == "\\" and quote == '"':
                        out.append(c)
                        j += 1
                        c = line[j] if j < len(line) else ""
                    out.append(c)
                elif c in "'\"":
                    quote = c
                    out.append(c)
                elif c == "#" and (j == 0 or line[j - 1] in " \t;|&("):
                    break
                else:
                    out.append(c)
                j += 1
            piece = "".join(out).rstrip()
            buf += piece + "\n"
            if quote:
                continue
            if piece.endswith("|") and not piece.endswith("||"):
                continue
            if piece.endswith("\\"):
                continue
            break
        yield start + 1, buf, marked


def stages(statement):
    """The statement split at single `|` outside quotes, each stage stripped."""
    parts, cur, quote, depth = [], [], None, 0
    s = statement
    j = 0
    while j < len(s):
        c = s[j]
        if quote:
            if c == quote:
                quote = None
            cur.append(c)
        elif c in "'\"":
            quote = c
            cur.append(c)
        elif c == "|" and s[j + 1:j + 2] != "|" and (j == 0 or s[j - 1] != "|"):
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(c)
        j += 1
    parts.append("".join(cur))
    return [p.strip().lstrip("\\").strip() for p in parts]


def command_of(stage):
    """The command a stage runs: past `$(`, `(`, `{`, `!`, assignments and sudo."""
    s = stage
    while True:
        s = s.lstrip()
        m = re.match(r"^(\$\(|\(|\{|!|[A-Za-z_][A-Za-z0-9_]*=(\"[^\"]*\"|'[^']*'|\S*)\s|sudo\s|command\s|exec\s)", s)
        if not m:
            return s
        s = s[m.end():]


def problems(path, text):
    found = []
    for line, statement, marked in statements(text):
        if marked:
            continue
        parts = stages(statement)
        if len(parts) < 2:
            continue
        for stage in parts[1:]:
            cmd = command_of(stage)
            for pattern, why in EARLY_READERS:
                if pattern.search(cmd):
                    found.append(f"{path}:{line}: {why}, and the writer before it may die of SIGPIPE "
                                 f"(pipefail makes that the pipeline's status): {cmd.splitlines()[0][:70]}")
                    break
    return found


def shell_scripts(root):
    files = subprocess.run(["git", "-C", root, "ls-files"], capture_output=True, text=True, check=True).stdout.split()
    for f in files:
        path = os.path.join(root, f)
        if not os.path.isfile(path) or os.path.islink(path):
            continue
        if f.endswith(".sh") or f == ".ci/run":
            yield f, path
            continue
        try:
            with open(path, "rb") as fh:
                first = fh.readline(100)
        except OSError:
            continue
        if first.startswith(b"#!") and re.search(rb"\b(ba)?sh\b", first):
            yield f, path


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    args = ap.parse_args(argv)
    found, checked = [], 0
    for name, path in shell_scripts(args.root):
        with open(path, encoding="utf-8", errors="replace") as fh:
            text = fh.read()
        if not sets_pipefail(text):
            continue
        checked += 1
        found += problems(name, text)
    for p in found:
        print(p)
    print(f"pipe-check: {checked} scripts with pipefail, {len(found)} pipelines that can die of SIGPIPE")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
