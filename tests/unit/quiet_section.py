#!/usr/bin/env python3
"""The quiet section (lib/signals.h) in a built core library: every function
of a repeated call's path that changes its memo without a busy mark is in
it, for the signal handler finds a thread inside such a change by the
interrupted instruction's section alone.  A wrapper part left in .text
would let a termination signal write a profile from a memo half-way
through a change (the counts and the histogram out of step).

usage: quiet_section.py OBJDUMP CORE_LIBRARY"""
import subprocess
import sys

# The parts, by the prefix of their names (lib/gen_wrappers.py, lib/call.c).
PARTS = ("cp_quick_", "cp_slow_", "cp_memo_after_")


def main():
    objdump, core = sys.argv[1:3]
    table = subprocess.run([objdump, "-t", core], check=True, capture_output=True,
                           text=True).stdout
    found = {p: 0 for p in PARTS}
    wrong = []
    for line in table.splitlines():
        fields = line.split()
        # address, flags (one or more columns), section, size, name
        if len(fields) < 5 or "F" not in fields[1:-3]:
            continue
        section, name = fields[-3], fields[-1]
        for p in PARTS:
            if name.startswith(p):
                found[p] += 1
                if section != "cp_quiet":
                    wrong.append(f"{name} in {section}")
    missing = [p for p, n in found.items() if n == 0]
    if missing:
        sys.exit(f"{core}: no function named {', '.join(p + '*' for p in missing)} "
                 "(not built with symbols, or renamed: update this test)")
    if wrong:
        sys.exit(f"{core}: outside the quiet section: " + "; ".join(wrong))
    print(f"{core}: " + ", ".join(f"{n} {p}*" for p, n in found.items()) +
          " in the quiet section")


if __name__ == "__main__":
    main()
