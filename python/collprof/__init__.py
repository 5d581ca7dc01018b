"""collprof profiles in Python: load an output directory with the reader
library (the C extension collprof._collprof) and get pandas DataFrames and
numpy arrays.  docs/python.md describes every attribute and each matrix's
shape.

    import collprof
    p = collprof.load("collprof.local.20261127-101500")
    p.series.sort_values("time", ascending=False).head()
    m = p.matrix(0, "Alltoallv", call=5)
"""
import numpy as np
import pandas as pd

from . import _collprof

__all__ = ["load", "Profile", "DamagedProfile"]


class DamagedProfile(Exception):
    """The profile lost something (a file cut short, changed since the run,
    a block missing): .damaged maps each damaged file or series to what is
    wrong.  load(DIR, allow_damaged=True) reads what is left."""

    def __init__(self, directory, damaged):
        self.directory = directory
        self.damaged = dict(damaged)
        what = "; ".join("%s: %s" % kv for kv in self.damaged.items())
        super().__init__("%s: damaged: %s" % (directory, what))


def load(directory, allow_damaged=False):
    """The profile of a collprof output directory (or of a directory of
    collective_profiler count files).  Raises DamagedProfile when the
    integrity check finds damage, unless allow_damaged; OSError when
    nothing can be read."""
    return Profile(directory, allow_damaged=allow_damaged)


_SERIES_COLUMNS = ["comm", "size", "collective", "calls", "bytes", "matrices", "time",
                   "waiting", "waiting_se"]
_TIMING_COLUMNS = ["comm", "collective", "timed_rank_calls", "aggregated", "time", "min",
                   "median", "max", "late_arrival", "hist_calls", "p50", "p90", "p99",
                   "waiting", "waiting_se", "calls_per_sampled_call", "unseen_time"]
_WAIT_COLUMNS = ["comm", "collective", "pattern", "instances", "waiting", "waiting_se",
                 "sampled"]
_CALLSITE_COLUMNS = ["id", "function", "module", "file", "line", "collectives", "calls",
                     "bytes", "time", "waiting"]


class Profile:
    """A loaded profile.  The DataFrames are built when first asked for."""

    def __init__(self, directory, allow_damaged=False):
        self.directory = str(directory)
        self._p = _collprof.Profile(self.directory)
        self.damaged = self._p.damaged()
        if self.damaged and not allow_damaged:
            raise DamagedProfile(self.directory, self.damaged)
        self.manifest = self._p.manifest()
        self._cache = {}

    def _frame(self, key, rows, columns):
        if key not in self._cache:
            self._cache[key] = pd.DataFrame(rows() or [], columns=columns)
        return self._cache[key]

    @property
    def series(self):
        """One row per (communicator, collective): comm, size, collective,
        calls, bytes (sent, as `collprof summary` counts them), matrices
        (distinct send matrices), time (seconds in the calls, summed over
        ranks), waiting and waiting_se (the whole-run estimate and its
        standard error, 0 when exact); time and waiting NaN without
        timings."""
        df = self._frame("series", self._p.series, _SERIES_COLUMNS)
        return df.astype({"time": float, "waiting": float, "waiting_se": float})

    @property
    def timings(self):
        """timings.cpt per (communicator, collective), as `collprof
        timings`; None without timings."""
        rows = self._p.timings()
        return None if rows is None else self._frame("timings", lambda: rows, _TIMING_COLUMNS)

    @property
    def waits(self):
        """Waiting per wait-state pattern (mpi_wait_nxn, mpi_latebroadcast,
        ...): instances, the whole-run waiting, its standard error and the
        sample's own; None without timings."""
        rows = self._p.waits()
        return None if rows is None else self._frame("waits", lambda: rows, _WAIT_COLUMNS)

    @property
    def callsites(self):
        """Per call path of profile.cubex: id (the manifest's call tree),
        function, module, file and line of the call, collectives, rank-calls,
        bytes sent, time, waiting; None without call paths."""
        rows = self._p.callsites()
        return None if rows is None else self._frame("callsites", lambda: rows,
                                                     _CALLSITE_COLUMNS)

    @property
    def findings(self):
        """`collprof summary`'s findings in its order: kind, cost (the
        seconds each explains), text."""
        return self._frame("findings", self._p.findings, ["kind", "cost", "text"])

    def calls(self, comm, collective):
        """One row per call of a series: call (its index), matrix (the
        series' distinct matrices numbered by their first call), callsite
        (the call path that issued that matrix's calls; -1 when several or
        none recorded)."""
        raw, _side = self._p.calls(int(comm), str(collective))
        v = np.frombuffer(raw, dtype=np.int64).reshape(-1, 3)
        return pd.DataFrame({"call": v[:, 0], "matrix": v[:, 1], "callsite": v[:, 2]})

    def matrix(self, comm, collective, call, recv=False, bytes=False):
        """The count matrix of one call: a numpy int64 masked array, one row
        per rank of the communicator (the rank that passed the counts), one
        column per peer its counts address; masked where a rank passed no
        count.  In elements as the program passed them, or in bytes
        (bytes=True; Alltoallw and mixed datatypes only in bytes).  KeyError
        when the call is not recorded."""
        got = self._p.matrix(int(comm), str(collective), int(call), bool(recv), bool(bytes))
        if got is None:
            raise KeyError("communicator %s, %s: call %s is not recorded on the %s side"
                           % (comm, collective, call, "receive" if recv else "send"))
        values, mask, rows, cols, _unit = got
        data = np.frombuffer(values, dtype=np.int64).reshape(rows, cols)
        m = np.frombuffer(mask, dtype=np.uint8).reshape(rows, cols).astype(bool)
        return np.ma.MaskedArray(data, mask=m)

    def plot_matrix(self, comm, collective, call, recv=False, bytes=True, ax=None):
        """A heat map of one call's matrix with matplotlib (sender rows,
        receiver columns, log colours, grey where no count).  Returns the
        matplotlib Axes."""
        import matplotlib.pyplot as plt
        from matplotlib.colors import LogNorm
        m = self.matrix(comm, collective, call, recv=recv, bytes=bytes)
        if ax is None:
            _fig, ax = plt.subplots()
        shown = np.ma.masked_where(m.filled(0) <= 0, m.filled(0))
        cmap = plt.get_cmap("viridis").copy()
        cmap.set_bad("#dddddd")
        im = ax.imshow(shown, cmap=cmap, norm=LogNorm() if shown.count() else None,
                       interpolation="nearest")
        ax.set_xlabel("peer")
        ax.set_ylabel("rank")
        ax.set_title("communicator %s, %s, call %s (%s)"
                     % (comm, collective, call, "bytes" if bytes else "elements"))
        ax.figure.colorbar(im, ax=ax)
        return ax

    def __repr__(self):
        ws = self.manifest["world_size"] if self.manifest else "?"
        return "<collprof profile %s: %s ranks>" % (self.directory, ws)
