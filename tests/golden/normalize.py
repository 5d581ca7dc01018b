#!/usr/bin/env python3
"""Normalize a collprof output directory for the golden test.

    normalize.py OUTPUT_DIR NORMALIZED_DIR [--timed]

Writes into NORMALIZED_DIR what must not change between two builds of the
same code on the same MPI: the count files as they are; manifest.json and
profile.cubex's anchor.xml with what differs between runs and machines
masked (the start time, the output directory, the job id, absolute paths cut to their
last name, code addresses, build ids, the clock, the sizes and CRCs of the
files that hold the start time or measured times);
profile.cubex's data members as they are (untimed runs: visits and bytes).
With --timed, the members that hold measured times (the cube's data,
profile.stat, timings.cpt) are left out: only their presence is kept.
"""
import io
import json
import os
import re
import sys
import tarfile

PATH = re.compile(r'(["\'>=])/[^"\'<>\s]*/([^/"\'<>\s]+)')


def mask_text(s):
    s = PATH.sub(r"\1\2", s)
    s = re.sub(r'("start_time": ")[^"]*(")', r"\1START\2", s)
    s = re.sub(r'(<attr key="start time" value=")[^"]*(")', r"\1START\2", s)
    s = re.sub(r'("COLLPROF_OUTPUT_DIR": ")[^"]*(")', r"\1OUT\2", s)
    # the batch system's job id, where there is one
    s = re.sub(r'("job": ")[^"]*(")', r"\1JOB\2", s)
    s = re.sub(r'(<attr key="job" value=")[^"]*(")', r"\1JOB\2", s)
    s = re.sub(r'(<name>job )[^<]*(</name>)', r"\1JOB\2", s)
    s = re.sub(r'("address": )\d+', r"\1ADDR", s)
    # the timing sample's seed, drawn anew each run
    s = re.sub(r'("COLLPROF_TIMING_SEED": ")\d+(")', r"\1SEED\2", s)
    # the program collprof run started, by its path
    s = re.sub(r'("collprof run": "[^"(]*\([^:"]*: )[^"]* (is linked with)', r"\1PROGRAM \2", s)
    return s


def manifest(src):
    m = json.load(open(src, encoding="utf-8"))
    text = mask_text(open(src, encoding="utf-8").read())
    for mod in m.get("modules", {}):  # build ids differ with the build's paths
        text = text.replace(m["modules"][mod], "BUILD_ID")
    # profile.cubex holds the start time, timings.cpt and profile.stat
    # measured times: their sizes and CRCs differ per run
    text = re.sub(r'(\{"name": "(profile\.cubex|timings\.cpt|profile\.stat)", "bytes": )\d+'
                  r'(, "crc32": )\d+', r"\1N\3N", text)
    # the clock: its source and rate are the machine's
    text = re.sub(r'"clock": \{[^}]*\}', '"clock": CLOCK', text)
    return text


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    src, dst, timed = sys.argv[1], sys.argv[2], sys.argv[3:] == ["--timed"]
    os.makedirs(dst, exist_ok=True)
    present = []
    for name in sorted(os.listdir(src)):
        path = os.path.join(src, name)
        present.append(name)
        if name == "manifest.json":
            open(os.path.join(dst, name), "w", encoding="utf-8").write(manifest(path))
        elif "-counters." in name:
            open(os.path.join(dst, name), "wb").write(open(path, "rb").read())
        elif name == "profile.cubex":
            with tarfile.open(path) as tar:
                for member in tar.getmembers():
                    data = tar.extractfile(member).read()
                    out = os.path.join(dst, "profile.cubex." + member.name)
                    if member.name == "anchor.xml":
                        open(out, "w", encoding="utf-8").write(mask_text(data.decode("utf-8")))
                    elif not timed:
                        open(out, "wb").write(data)
    open(os.path.join(dst, "files"), "w", encoding="utf-8").write("\n".join(present) + "\n")


if __name__ == "__main__":
    main()
