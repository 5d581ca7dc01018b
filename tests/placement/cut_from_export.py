#!/usr/bin/env python3
"""Bytes between nodes of a layout, computed independently of collprof's C
code: from `collprof export`'s JSON (every block of every send file) and
the MPI standard's data movement of each collective (docs/placement.md),
for intracommunicators.  Prints one line per layout given:

    cut_from_export.py EXPORT.json PLACEMENT.json

PLACEMENT.json is `collprof placement --format json`; each of its layouts
is recomputed here (block, round-robin, the proposal), and the bytes of
the whole graph.  Prints "NAME BYTES" lines, "graph BYTES" first.
"""
import json
import sys

PER_PEER_SINGLE = {"alltoall", "allgather", "allgatherv", "scatter"}
LEFT_OUT = {"reduce", "allreduce", "reduce_scatter", "reduce_scatter_block", "scan", "exscan",
            "barrier"}


def expand(rl):
    return [x for lo, hi in rl for x in range(lo, hi + 1)]


def items(row, rank):
    form = row.get("form")
    if form == "sparse":
        return list(zip(row["peers"], row["counts"]))
    if form == "relative":
        return [(rank + o, c) for o, c in zip(row["offsets"], row["counts"])]
    return list(enumerate(row["counts"]))


def graph(export):
    comms = {c["id"]: expand(c["members"]) for c in export["manifest"]["communicators"]
             if not c["remote_members"]}
    pairs = {}

    def add(a, b, n):
        if a != b and n:
            k = (min(a, b), max(a, b))
            pairs[k] = pairs.get(k, 0) + n

    for f in export["counts_files"]:
        if f["direction"] != "send":
            continue
        for b in f["blocks"]:
            coll = b["collective"].lower()
            if b["invalid"] or coll in LEFT_OUT or b["comm"] not in comms:
                continue
            members = comms[b["comm"]]
            calls = sum(hi - lo + 1 for lo, hi in b["calls"])
            size = 1 if b["counts_in_bytes"] else b["datatype_size"]
            for row in b["rows"]:
                if row.get("failed"):
                    continue
                for r in expand(row["ranks"]):
                    me = members[r]
                    its = items(row, r)
                    total = sum(c for _, c in its) * size * calls
                    if coll in ("gather", "gatherv"):
                        add(me, members[b["root"]], total)
                    elif coll == "bcast":
                        if r == b["root"]:
                            for m in members:
                                add(me, m, total)
                    elif coll in PER_PEER_SINGLE and len(row["counts"]) == 1 and not row.get("form"):
                        for m in members:
                            add(me, m, row["counts"][0] * size * calls)
                    else:
                        for peer, c in its:
                            add(me, members[peer], c * size * calls)
    return pairs


def cut(pairs, node):
    return sum(n for (a, b), n in pairs.items() if node[a] != node[b])


def main():
    export = json.load(open(sys.argv[1]))
    placement = json.load(open(sys.argv[2]))
    pairs = graph(export)
    ranks, nodes, per = placement["ranks"], placement["nodes"], placement["ranks_per_node"]
    print("graph", sum(pairs.values()))
    layouts = {
        "block": [min(r // per, nodes - 1) for r in range(ranks)],
        "round_robin": [r % nodes for r in range(ranks)],
        "proposal": placement["proposal"],
    }
    for name, node in layouts.items():
        print(name, cut(pairs, node))


main()
