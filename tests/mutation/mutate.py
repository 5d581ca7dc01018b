#!/usr/bin/env python3
"""Mutation check: does the test suite notice a wrong number?

Each mutant of mutants.txt is one change of one line (or a few) of the
code where a wrong number would be silent: the counts' capture and the call
memo's comparisons, the shape of the rows, the merge of rows, the wait
states, their estimate and its error, the integrity checks, the transpose
check, the findings' ranking.  For each: apply it to a copy of the source
tree, rebuild, run the tests that cover it (meson test names), and count it
killed when one of them fails.  Prints one line per mutant and
"mutants: K of N killed"; exit status 1 when one survived or did not build.

usage: mutate.py [--fast] [--keep] [--only ID,...] SRCDIR [WORKDIR]
  --fast   only the mutants marked fast (what CI runs)
  WORKDIR  where the copy and its build go (default: a new temporary one)
"""
import os
import shutil
import subprocess
import sys
import tempfile
import time


def parse(path):
    """The mutants: blocks of 'key: value' lines, '== ID title' first."""
    mutants, cur = [], None
    for raw in open(path, encoding="utf-8"):
        line = raw.rstrip("\n")
        if line.startswith("#") or not line.strip():
            continue
        if line.startswith("== "):
            ident, _, title = line[3:].partition(" ")
            cur = {"id": ident, "title": title, "fast": False}
            mutants.append(cur)
            continue
        key, sep, value = line.partition(":")
        if cur is None or not sep or key not in ("file", "from", "to", "tests", "fast"):
            sys.exit(f"{path}: cannot read the line {line!r} (expected '== ID title', "
                     "then file:, from:, to:, tests: and optionally fast: yes)")
        value = value[1:] if value.startswith(" ") else value
        if key == "fast":
            cur["fast"] = value.strip() == "yes"
        elif key in ("from", "to"):
            cur[key] = value.replace("\\n", "\n").replace("\\t", "\t")
        else:
            cur[key] = value.strip()
    for m in mutants:
        for key in ("file", "from", "to", "tests"):
            if key not in m:
                sys.exit(f"{path}: mutant {m['id']} has no '{key}:'")
    return mutants


def run(cmd, cwd, log):
    with open(log, "w") as out:
        return subprocess.call(cmd, cwd=cwd, stdout=out, stderr=subprocess.STDOUT)


def main():
    args = sys.argv[1:]
    fast = "--fast" in args
    only = None
    if "--only" in args:
        i = args.index("--only")
        only = set(args[i + 1].split(","))
        del args[i:i + 2]
    args = [a for a in args if a not in ("--fast",)]
    if not args:
        sys.exit(__doc__)
    src = os.path.abspath(args[0])
    work = os.path.abspath(args[1]) if len(args) > 1 else tempfile.mkdtemp(prefix="mutate.")
    mutants = parse(os.path.join(src, "tests/mutation/mutants.txt"))
    if fast:
        mutants = [m for m in mutants if m["fast"]]
    if only:
        mutants = [m for m in mutants if m["id"] in only]
    tree, build = os.path.join(work, "src"), os.path.join(work, "build")
    if not os.path.isdir(tree):
        def top_level_builds(d, names):  # the tree's own build directories, and git's
            if os.path.abspath(d) != src:
                return []
            return [n for n in names if n == ".git" or n.startswith("build")]
        shutil.copytree(src, tree, ignore=top_level_builds)
    if not os.path.isdir(build):
        if run(["meson", "setup", build], tree, os.path.join(work, "setup.log")):
            sys.exit(f"meson setup failed: {work}/setup.log")
    if run(["ninja", "-C", build], tree, os.path.join(work, "build.log")):
        sys.exit(f"the unmutated tree does not build: {work}/build.log")
    killed, results = 0, []
    for m in mutants:
        path = os.path.join(tree, m["file"])
        text = open(path, encoding="utf-8").read()
        if text.count(m["from"]) != 1:
            results.append((m, "ERROR", f"'from' found {text.count(m['from'])} times in {m['file']}"))
            continue
        t0 = time.time()
        open(path, "w", encoding="utf-8").write(text.replace(m["from"], m["to"]))
        try:
            log = os.path.join(work, m["id"] + ".log")
            if run(["ninja", "-C", build], tree, log):
                verdict, why = "ERROR", f"does not build ({log})"
            else:
                tests = m["tests"].split()
                rc = run(["meson", "test", "-C", build, "--no-rebuild", "--print-errorlogs"]
                         + tests, tree, log)
                verdict = "killed" if rc else "SURVIVED"
                why = f"{' '.join(tests)}, {time.time() - t0:.0f} s"
                killed += rc != 0
        finally:
            open(path, "w", encoding="utf-8").write(text)
        results.append((m, verdict, why))
        print(f"{verdict:8} {m['id']:24} {m['title']} ({why})", flush=True)
    if run(["ninja", "-C", build], tree, os.path.join(work, "rebuild.log")):
        print("the tree does not build again after the mutants (see rebuild.log)")
    for m, verdict, why in results:
        if verdict == "ERROR":
            print(f"ERROR    {m['id']:24} {why}")
    n = len(mutants)
    print(f"mutants: {killed} of {n} killed")
    if len(args) < 2 and "--keep" not in sys.argv:
        shutil.rmtree(work, ignore_errors=True)
    sys.exit(0 if killed == n else 1)


if __name__ == "__main__":
    main()
