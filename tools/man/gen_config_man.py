#!/usr/bin/env python3
"""Write the manual page collprof-config(7) from the table of settings in
docs/configuration.md, the one place every COLLPROF_* variable is described.

usage: gen_config_man.py CONFIGURATION_MD VERSION OUTPUT

Every row of the table whose first cell is a `COLLPROF_...` name becomes one
entry: the name, the accepted values, the default and the meaning.  Markdown
inline code becomes bold, links keep their text, emphasis is dropped.
"""
import re
import sys


def roff(text):
    """Markdown cell text as roff: code in bold, links as their text."""
    text = text.replace("\\", "\\e")
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"\*\*([^*]+)\*\*", r"\1", text)
    text = re.sub(r"(?<!\w)\*([^*]+)\*(?!\w)", r"\1", text)
    text = re.sub(r"`([^`]*)`", lambda m: "\\fB" + m.group(1) + "\\fR", text)
    text = text.replace("-", "\\-")
    # Beyond ASCII: groff's escape for the code point (no preconv needed).
    return "".join(c if ord(c) < 128 else "\\[u%04X]" % ord(c) for c in text)


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: gen_config_man.py CONFIGURATION_MD VERSION OUTPUT")
    source, version, output = sys.argv[1:]
    rows = []
    with open(source, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            if not line.startswith("| `COLLPROF_"):
                continue
            cells = [c.strip() for c in line.strip().strip("|").split(" | ")]
            if len(cells) != 4:
                sys.exit(f"{source}:{lineno}: expected 4 cells (variable, accepted values, "
                         f"default, meaning), found {len(cells)}")
            rows.append(cells)
    if not rows:
        sys.exit(f"{source}: no row of COLLPROF_* settings found")
    out = [
        ".\\\" collprof-config(7), made by tools/man/gen_config_man.py from docs/configuration.md.",
        f'.TH COLLPROF\\-CONFIG 7 "" "collprof {version}" "collprof"',
        ".SH NAME",
        "collprof\\-config \\- the environment variables that configure collprof",
        ".SH DESCRIPTION",
        "The collprof library (see",
        ".BR collprof (3))",
        "reads these variables once, when MPI is initialised. With MPICH's launcher, pass them",
        "to the ranks with",
        ".B mpiexec \\-genv",
        ".I NAME VALUE",
        "or export them before",
        ".BR mpiexec .",
        "A value that is not valid gets one message on stderr from rank 0, naming the",
        "variable and the values it accepts; the setting keeps its default and the",
        "application runs on. The effective values are recorded in manifest.json.",
        ".SH VARIABLES",
    ]
    for name, accepted, default, meaning in rows:
        out += [".TP", roff(name), f"Accepted: {roff(accepted)}. Default: {roff(default)}.",
                ".br", roff(meaning)]
    out += [".SH SEE ALSO", ".BR collprof (1),", ".BR collprof (3);",
            "docs/configuration.md in share/doc/collprof."]
    with open(output, "w", encoding="utf-8") as f:
        f.write("\n".join(out) + "\n")


main()
