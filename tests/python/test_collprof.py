"""The Python package against the CLI's own output: every attribute of
collprof.load(DIR) on the reader's fixtures (good, gzip, damaged), the
other tools' dialect and a real timed run, compared with what `collprof
summary`, `matrix`, `export`, `timings` and `callsites` print.

Run by meson test (tests/python/meson.build) with the environment:
COLLPROF (the command), MAKE_FIXTURE, DIALECT (tests/data/dialect),
MPIEXEC, LIBCOLLPROF and MINIAPP (a real run), PYTHONPATH (the built
package)."""
import json
import math
import os
import re
import subprocess

import numpy as np
import pytest

import collprof

CLI = os.environ["COLLPROF"]


def cli(*args, check=True):
    r = subprocess.run([CLI, *map(str, args)], capture_output=True, text=True)
    if check and r.returncode not in (0, 3):
        raise AssertionError("collprof %s: %s" % (" ".join(map(str, args)), r.stderr))
    return r.stdout


def fixture(tmp_path, variant):
    d = tmp_path / variant
    subprocess.run([os.environ["MAKE_FIXTURE"], str(d), variant], check=True)
    return d


def summary_rows(d):
    """(comm, size, collective, calls, send matrices, bytes) per table row."""
    rows = []
    for line in cli("summary", d).splitlines():
        m = re.match(r"^\s*(\d+)\s+(\d+)\s+(-?\d+)\s+(\S+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s", line)
        if m:
            g = m.groups()
            rows.append((int(g[0]), int(g[1]), g[3], int(g[4]), int(g[5]), int(g[7])))
    return rows


def check_series(p, d):
    want = summary_rows(d)
    got = [(r.comm, r.size, r.collective, r.calls, r.matrices, r.bytes)
           for r in p.series.itertuples()]
    assert got == want and want


def check_matrices(p, d):
    """Every call's send and receive matrix against `collprof matrix`."""
    export = json.loads(cli("export", d))
    for f in export["counts_files"]:
        for b in f["blocks"]:
            for lo, hi in b["calls"][:2]:
                recv = f["direction"] == "recv"
                args = ["matrix", d, "--comm", b["comm"], "--collective", b["collective"],
                        "--call", lo, "--format", "json"] + (["--recv"] if recv else [])
                want = json.loads(cli(*args))
                m = p.matrix(b["comm"], b["collective"], lo, recv=recv,
                             bytes=want["counts_in_bytes"])
                assert m.shape[0] == len(want["rows"]), (b["collective"], lo)
                for i, w in enumerate(want["rows"]):
                    if w is None:  # the rank passed no counts: its row masked
                        assert m.mask[i].all(), (b["collective"], lo, i)
                    else:  # its counts, then masked past its row's end
                        assert m[i].compressed().tolist() == w, (b["collective"], lo, i)
                        assert not m.mask[i][:len(w)].any()
                # bytes=True: every count times the datatype size
                mb = p.matrix(b["comm"], b["collective"], lo, recv=recv, bytes=True)
                unit = 1 if want["counts_in_bytes"] else want["datatype_size"]
                assert (mb.filled(0) == m.filled(0) * unit).all()


def test_good_fixture(tmp_path):
    d = fixture(tmp_path, "good")
    p = collprof.load(d)
    assert p.damaged == {}
    check_series(p, d)
    check_matrices(p, d)
    export = json.loads(cli("export", d))
    man = export["manifest"]
    assert p.manifest["world_size"] == man["world_size"]
    assert p.manifest["config"] == man["config"]
    for c, e in zip(p.manifest["communicators"], man["communicators"]):
        assert c["id"] == e["id"] and c["size"] == e["size"]
        assert c["members"] == [x for lo, hi in e["members"] for x in range(lo, hi + 1)]
    # no timings: time and waiting are not numbers, timings None
    assert p.series["time"].isna().all() and p.timings is None and p.waits is None
    assert list(p.findings["text"]) == [f["text"] for f in export["findings"]]


def test_matrix_shape_and_mask(tmp_path):
    d = fixture(tmp_path, "good")
    p = collprof.load(d)
    m = p.matrix(0, "Alltoallv", 0)
    assert m.shape == (3, 3) and m.dtype == np.int64 and not m.mask.any()
    assert m.tolist() == [[1, 2, 0], [0, 0, 3], [0, 0, 3]]
    # Gatherv's receive side: only the root passed counts, the other rows masked
    g = p.matrix(0, "Gatherv", 0, recv=True)
    assert g.shape == (3, 3)
    assert list(g.mask.all(axis=1)) == [False, True, True]
    assert g[0].tolist() == [1, 2, 3]
    with pytest.raises(KeyError):
        p.matrix(0, "Alltoallv", 99)


def test_calls_of_a_series(tmp_path):
    d = fixture(tmp_path, "good")
    p = collprof.load(d)
    c = p.calls(0, "Alltoallv")
    assert list(c["call"]) == [0, 1, 2]
    # calls 0-1 moved the first matrix, call 2 the second (the fixture)
    assert list(c["matrix"]) == [0, 0, 1]
    for call, mid in zip(c["call"], c["matrix"]):
        same = [x for x, y in zip(c["call"], c["matrix"]) if y == mid]
        first = p.matrix(0, "Alltoallv", same[0])
        assert (p.matrix(0, "Alltoallv", call) == first).all()


def test_gzip_reads_the_same(tmp_path):
    good, gz = fixture(tmp_path, "good"), fixture(tmp_path, "gzip")
    a, b = collprof.load(good), collprof.load(gz)
    assert a.series.equals(b.series)
    check_matrices(b, gz)


@pytest.mark.parametrize("variant", ["manifest-mismatch", "syntax-error"])
def test_damaged_profile(tmp_path, variant):
    d = fixture(tmp_path, variant)
    with pytest.raises(collprof.DamagedProfile) as e:
        collprof.load(d)
    export = json.loads(cli("export", d))
    assert e.value.damaged == export["damaged"] and export["damaged"]
    for name in export["damaged"]:
        assert name in str(e.value)
    p = collprof.load(d, allow_damaged=True)
    assert p.damaged == export["damaged"]
    check_series(p, d)


def test_other_tools_dialect():
    base = os.environ["DIALECT"]
    for name in sorted(os.listdir(base)):
        d = os.path.join(base, name)
        p = collprof.load(d, allow_damaged=True)
        check_series(p, d)
        check_matrices(p, d)
        assert p.manifest is None


def test_not_a_profile(tmp_path):
    with pytest.raises(OSError, match="not a collprof output directory"):
        collprof.load(tmp_path)


@pytest.fixture(scope="module")
def real_run(tmp_path_factory):
    """The miniapp on 4 ranks (its sub-communicators cycle through three
    matrices), profiled with the defaults (timings, call paths)."""
    out = tmp_path_factory.mktemp("run") / "out"
    env = dict(os.environ, COLLPROF_OUTPUT_DIR=str(out))
    mpiexec, lib = os.environ["MPIEXEC"], os.environ["LIBCOLLPROF"]
    version = subprocess.run([mpiexec, "--version"], capture_output=True, text=True)
    said = version.stdout + version.stderr
    if "Open MPI" in said or "OpenRTE" in said:  # its own syntax, and root allowed
        env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
        launch = [mpiexec, "--oversubscribe", "-n", "4", "-x", "LD_PRELOAD=" + lib]
    else:
        launch = [mpiexec, "-n", "4", "-genv", "LD_PRELOAD", lib]
    r = subprocess.run(launch + [os.environ["MINIAPP"], "20", "5"],
                       env=env, capture_output=True, text=True, timeout=240)
    assert r.returncode == 0, r.stderr
    return out


def table(text, header):
    """The rows of the table that starts with a line beginning `header`."""
    lines = text.splitlines()
    start = next(i for i, l in enumerate(lines) if l.startswith(header))
    rows = []
    for l in lines[start + 1:]:
        if not l.strip():
            break
        rows.append(l.split())
    return rows


def test_real_run(real_run):
    d = real_run
    p = collprof.load(d)
    check_series(p, d)
    check_matrices(p, d)
    # time and waiting as `collprof timings` prints them (6 decimals)
    want = {(int(r[0]), r[1]): r for r in table(cli("timings", d), "comm  collective  timed")}
    t = p.timings
    assert len(t) == len(want)
    for r in t.itertuples():
        w = want[(r.comm, r.collective)]
        assert int(w[2]) == r.timed_rank_calls and int(w[3]) == r.aggregated
        assert "%.6f" % r.time == w[4] and "%.6f" % r.min == w[5]
        assert "%.6f" % r.max == w[7] and "%.6f" % r.waiting == w[8]
    s = p.series.set_index(["comm", "collective"])
    for r in t.itertuples():
        assert s.loc[(r.comm, r.collective), "time"] == r.time
        assert s.loc[(r.comm, r.collective), "waiting"] == r.waiting
    # the waiting of each pattern as `collprof timings` lists it
    waits = {(int(r[0]), r[1], r[2]): r for r in
             table(cli("timings", d), "comm  collective  pattern")}
    assert len(p.waits) == len(waits) and len(waits)
    for r in p.waits.itertuples():
        w = waits[(r.comm, r.collective, r.pattern)]
        assert int(w[3]) == r.instances and w[4] == "%.6f" % r.waiting
    # patterns sum to the series' waiting
    for (comm, coll), g in p.waits.groupby(["comm", "collective"]):
        assert math.isclose(g["waiting"].sum(), s.loc[(comm, coll), "waiting"], rel_tol=1e-12)
    # call sites as `collprof callsites` lists them
    cs = p.callsites
    text = cli("callsites", d)
    assert len(cs) > 0
    for r in cs.itertuples():
        assert re.search(r"^\s*%d\s" % r.id, text, re.M), r
        assert r.function in text
    # every call of a series points to a matrix that holds it
    for r in p.series.itertuples():
        c = p.calls(r.comm, r.collective)
        assert len(c) == r.calls
        assert c["matrix"].nunique() == r.matrices
        assert c["call"].is_monotonic_increasing and c["call"].is_unique
        first = c.groupby("matrix")["call"].min()
        for call, mid in zip(c["call"][:50], c["matrix"][:50]):
            a = p.matrix(r.comm, r.collective, call, bytes=True)
            b = p.matrix(r.comm, r.collective, first[mid], bytes=True)
            assert (a.filled(-1) == b.filled(-1)).all()
    export = json.loads(cli("export", d))
    assert list(p.findings["text"]) == [f["text"] for f in export["findings"]]
    assert p.manifest["job"] == export["manifest"]["job"]


def test_plot_matrix(real_run):
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    p = collprof.load(real_run)
    ax = p.plot_matrix(0, "Alltoallv", 0)
    assert ax.get_images() and "Alltoallv" in ax.get_title()
