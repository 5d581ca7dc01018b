#!/usr/bin/env python3
"""The settings the documents describe are the settings the library has,
with the defaults it uses.

usage: settings_documented.py RUN_MPI OUTDIR MPIEXEC LIB PROGRAM README CONFIGURATION_MD

Runs PROGRAM on 2 ranks under collprof with no COLLPROF_* variable set
(run_mpi.sh clears them) and reads the effective settings from the
manifest's "config".  Then: docs/configuration.md (the source of the
collprof-config manual page) and README.md's table list exactly those
variables, and each documented default that is one literal value is the
value the library used.  Defaults that depend on the run (the output
directory's name, the host's name) are not compared.
"""
import json
import os
import re
import subprocess
import sys


def table(path, default_cell):
    """{variable: default cell} of the rows `| `COLLPROF_...` | ...`."""
    rows = {}
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            if not line.startswith("| `COLLPROF_"):
                continue
            cells = [c.strip() for c in line.strip().strip("|").split(" | ")]
            name = cells[0].strip("`")
            if name in rows:
                print(f"{path}:{lineno}: {name} listed twice")
                sys.exit(1)
            rows[name] = cells[default_cell]
    return rows


def literal(cell):
    """The one value a default cell names (`x`, or `default`: `x`), else None."""
    m = re.fullmatch(r"(?:`default`: )?`([^`<>]*)`", cell)
    return m.group(1) if m else None


def main():
    run_mpi, outdir, mpiexec, lib, program, readme, configuration = sys.argv[1:]
    rc = subprocess.call([run_mpi, "--", outdir, mpiexec, lib, "2", "60", program])
    if rc != 0:
        print(f"the run under collprof failed (exit status {rc})")
        return 1
    with open(os.path.join(outdir, "manifest.json"), encoding="utf-8") as f:
        used = json.load(f)["config"]
    docs = table(configuration, 2)
    short = table(readme, 1)
    bad = []
    for where, rows in (("docs/configuration.md", docs), ("README.md", short)):
        for name in sorted(set(used) - set(rows)):
            bad.append(f"{where}: the library reads {name}; the table does not list it")
        for name in sorted(set(rows) - set(used)):
            bad.append(f"{where}: lists {name}, which the library does not read")
        for name, cell in rows.items():
            value = literal(cell)
            if name not in used or value is None:
                continue
            # The signals are shown as their full names (SIGTERM,...).
            shown = used[name].replace("SIG", "") if name == "COLLPROF_SIGNALS" else used[name]
            if value != shown:
                bad.append(f"{where}: {name}: documented default '{value}', the library "
                           f"used '{used[name]}'")
    for name in sorted(short):
        if name in docs and short[name] != docs[name].split(" in the working directory")[0]:
            bad.append(f"README.md: {name}: default '{short[name]}', docs/configuration.md "
                       f"says '{docs[name]}'")
    for b in bad:
        print(b)
    compared = sum(1 for n, c in docs.items() if n in used and literal(c) is not None)
    print(f"{len(used)} settings; {compared} documented defaults compared with the library's")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
