#!/usr/bin/env python3
"""`collprof report` opened in headless Chromium.

    report_browser.py COLLPROF MAKE_REPORT_FIXTURE
    report_browser.py --widths PAGE     (the width and caption checks of one page)

For a varied 8-rank directory, a 1,024-rank one and a timed one (with
timings.cpt: the "Time and waiting" section), the test writes the report,
lets Chromium load it from a file (no network), and checks:
  - no console message at all (errors, uncaught exceptions, failed loads);
  - the rendered DOM (--dump-dom): every heat-map cell of chosen matrices
    has the count and bytes that `collprof matrix --format json` gives
    (summed over the tile's ranks when the map is aggregated); every
    duration histogram holds all (rank, call) pairs of its collective;
  - a screenshot (--screenshot, 1200x900) is a PNG of that size that is not
    blank; it is kept as report-screenshot.png in the working directory;
    a taller one shows the heat maps painted in their colours;
  - at a window 1400 px wide no table scrolls sideways and nothing sticks
    out of the page; at 700 px no chart or heat map does (a table may
    scroll inside itself); screenshots at both widths are kept as
    report-1400.png and report-700.png;
  - the captions that name a colour name the one the chart is drawn in
    (the page's style gives each bar class its fill).
A page with a deliberate script error must be caught, so that a Chromium
whose logging changed cannot make the test pass silently.

Exit 77 (skipped) only when no `chromium` is installed.
"""
import html
import html.parser
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

TIMEOUT = 120  # seconds per Chromium run
failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg)


def chromium_args(chromium, profile, extra, url):
    return [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
            "--no-first-run", "--disable-background-networking",
            "--disable-component-update", "--disable-sync",
            # nothing may be resolved: the page must not need the network
            "--host-resolver-rules=MAP * ~NOTFOUND",
            "--user-data-dir=" + profile] + extra + [url]


def run_chromium(chromium, tmp, name, extra, path):
    """Runs Chromium on the file; returns (stdout, console lines)."""
    profile = tempfile.mkdtemp(prefix="profile-", dir=tmp)  # a fresh profile each run
    url = "file://" + os.path.abspath(path)
    args = chromium_args(chromium, profile, ["--enable-logging=stderr", "--v=0"] + extra, url)
    try:
        p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=TIMEOUT, check=False)
    except subprocess.TimeoutExpired:
        fail("%s: chromium did not finish in %d s" % (name, TIMEOUT))
        return "", []
    err = p.stderr.decode("utf-8", "replace")
    console = [line for line in err.splitlines()
               if ":CONSOLE" in line or "CONSOLE(" in line or "Uncaught" in line]
    if p.returncode != 0:
        fail("%s: chromium exited with %d:\n%s" % (name, p.returncode, err[-2000:]))
    return p.stdout.decode("utf-8", "replace"), console


class Cells(html.parser.HTMLParser):
    """Heat-map cells (elements with data-count) by figure id."""

    def __init__(self):
        super().__init__()
        self.figure = None
        self.cells = {}
        self.bars = {}

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "figure":
            self.figure = a.get("id")
            self.cells.setdefault(self.figure, [])
        elif "data-count" in a and self.figure:
            self.cells[self.figure].append(a)
        elif "data-ranks" in a and self.figure:
            self.bars.setdefault(self.figure, []).append(a)

    def handle_endtag(self, tag):
        if tag == "figure":
            self.figure = None


def matrix(collprof, d, comm, collective, call, recv=False):
    """Rows of `collprof matrix ... --format json` (None: rank without row)."""
    args = [collprof, "matrix", d, "--comm", str(comm), "--collective", collective,
            "--call", str(call), "--format", "json"] + (["--recv"] if recv else [])
    out = subprocess.run(args, stdout=subprocess.PIPE, check=True, timeout=TIMEOUT).stdout
    m = json.loads(out)
    unit = 1 if m["counts_in_bytes"] else m["datatype_size"]
    return m["rows"], unit


def bounds(text):
    lo, _, hi = text.partition("-")
    return int(lo), int(hi or lo)


def check_cells(dom, fig, want, unit, name):
    """Every cell of figure fig against want[i][j] (sender i, receiver j)."""
    cells = dom.cells.get(fig)
    if not cells:
        fail("%s: no rendered cells in figure %s" % (name, fig))
        return
    n = len(want)
    covered = 0
    for c in cells:
        r0, r1 = bounds(c["data-sender"])
        c0, c1 = bounds(c["data-receiver"])
        count = sum(want[i][j] for i in range(r0, r1 + 1) for j in range(c0, c1 + 1))
        covered += (r1 - r0 + 1) * (c1 - c0 + 1)
        if int(c["data-count"]) != count or int(c["data-bytes"]) != count * unit:
            fail("%s: %s cell %s -> %s: count %s bytes %s, the matrix says %d (%d bytes)"
                 % (name, fig, c["data-sender"], c["data-receiver"], c["data-count"],
                    c["data-bytes"], count, count * unit))
            return
    if covered != n * n:
        fail("%s: %s: cells cover %d rank pairs, the matrix has %d" % (name, fig, covered, n * n))


def per_peer(rows):
    """A per-peer matrix (one count per peer in every row) as a list of lists."""
    return [row if row is not None else [0] * len(rows) for row in rows]


def png_samples(path, name):
    """(width, height, {colour: samples}) of an 8-bit RGB(A) PNG, every 4th
    pixel sampled; None (failure reported) when it is not such a PNG."""
    try:
        data = open(path, "rb").read()
    except OSError:
        fail("%s: no screenshot written" % name)
        return None
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        fail("%s: the screenshot is not a PNG" % name)
        return None
    pos, idat, ihdr = 8, b"", None
    while pos + 8 <= len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        pos += 12 + n
        if kind == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body[:13])
        elif kind == b"IDAT":
            idat += body
    if not ihdr or ihdr[2] != 8 or ihdr[3] not in (2, 6) or ihdr[6] != 0:
        fail("%s: the screenshot is not an 8-bit RGB PNG: %s" % (name, ihdr))
        return None
    w, h, ctype = ihdr[0], ihdr[1], ihdr[3]
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(idat)
    stride = w * bpp
    prev = bytearray(stride)
    samples, i = {}, 0
    for _ in range(h):
        f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):  # undo the row filter (PNG specification, 9)
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        for x in range(0, stride, bpp * 4):
            px = bytes(line[x:x + 3])
            samples[px] = samples.get(px, 0) + 1
        prev = line
    return w, h, samples


# The heat maps' colours (tools/report/html.c): viridis in 9 steps.
VIRIDIS = ["440154", "472d7b", "3b528b", "2c728e", "21918c", "28ae80", "5ec962", "addc30",
           "fde725"]


# Measured in the page itself: what sticks out of the window on the right,
# and which tables scroll sideways; written into the DOM for --dump-dom.
WIDTH_PROBE = """<script>(function(){var W=document.documentElement.clientWidth,out=[],scroll=[];
function nm(e){var f=e.closest('figure,table');return e.tagName+(e.id?'#'+e.id:'')+
 (f&&f!==e&&f.id?' in #'+f.id:'');}
document.querySelectorAll('svg,figure,table,pre,dl,p,img,ol').forEach(function(e){
 if(e.parentElement&&e.parentElement.closest('svg'))return;
 var r=e.getBoundingClientRect();if(r.width>0&&r.right>W+0.5)out.push(nm(e)+' to '+Math.round(r.right));});
document.querySelectorAll('table').forEach(function(e){if(e.scrollWidth>e.clientWidth+1)
 scroll.push(nm(e)+' '+e.scrollWidth+' > '+e.clientWidth);});
var p=document.createElement('pre');p.id='cp-widths';p.textContent=JSON.stringify(
 {width:W,out:out,scroll:scroll});document.body.appendChild(p);})();</script>"""


def widths(chromium, tmp, page, width, name):
    """The WIDTH_PROBE's findings for the page in a window `width` wide."""
    src = open(page, encoding="utf-8").read()
    probed = os.path.join(tmp, "probe-%d.html" % width)
    i = src.rfind("</body>")
    with open(probed, "w", encoding="utf-8") as f:
        f.write(src[:i] + WIDTH_PROBE + src[i:] if i >= 0 else src + WIDTH_PROBE)
    out, console = run_chromium(chromium, tmp, name, ["--dump-dom", "--hide-scrollbars",
                                                      "--window-size=%d,1000" % width], probed)
    for line in console:
        fail("%s: console: %s" % (name, line))
    m = re.search(r'<pre id="cp-widths">(.*?)</pre>', out, re.S)
    if not m:
        fail("%s: the width probe did not run" % name)
        return None
    got = json.loads(html.unescape(m.group(1)))
    if got["width"] != width:
        fail("%s: a window %d px wide measured %d px" % (name, width, got["width"]))
    return got


def check_widths(chromium, tmp, page, name, keep):
    """1400 px: no table scrolls, nothing sticks out; 700 px: no chart or
    heat map sticks out (tables may scroll in themselves)."""
    wide = widths(chromium, tmp, page, 1400, name + " at 1400 px")
    if wide:
        for what in wide["scroll"]:
            fail("%s at 1400 px: a table scrolls sideways: %s" % (name, what))
        for what in wide["out"]:
            fail("%s at 1400 px: sticks out of the window: %s" % (name, what))
    narrow = widths(chromium, tmp, page, 700, name + " at 700 px")
    if narrow:
        for what in narrow["out"]:
            fail("%s at 700 px: sticks out of the window: %s" % (name, what))
    if keep:
        for w in (1400, 700):
            screenshot(chromium, tmp, page, os.path.abspath("report-%d.png" % w), (w, 2400),
                       "%s screenshot at %d px" % (name, w))


def hue_name(fill):
    """The colour word for a bar fill ("#3b6fb6": blue)."""
    r, g, b = (int(fill[i:i + 2], 16) for i in (1, 3, 5))
    if b > r and b > g:
        return "blue"
    if r > g > b:
        return "orange"
    return fill


def check_captions(page, name):
    """The findings charts' captions name their bars' colours truly: the
    fill of the class the legend labels "in collectives" and of the one it
    labels "waiting"."""
    src = open(page, encoding="utf-8").read()
    fills = dict(re.findall(r"svg\.bars \.([a-z])\{fill:(#[0-9a-f]{6})\}", src))
    m = re.search(r'<figure><figcaption>(Each rank.*?)</figcaption>\s*<svg id="chart-waiting"'
                  r'(.*?)</svg>', src, re.S)
    if not m:
        fail("%s: no waiting chart" % name)
        return
    caption, svg = html.unescape(m.group(1)), m.group(2)
    legend = dict((label, cls) for cls, label in
                  re.findall(r'<rect class="([a-z])"[^>]*/><text[^>]*>([a-z ]+)</text>', svg))
    for label, words in (("in collectives", "time in collectives (%s)"),
                         ("waiting", "waiting in them (%s")):
        cls = legend.get(label)
        if not cls or cls not in fills:
            fail("%s: the waiting chart's legend has no %r in a styled class: %s"
                 % (name, label, legend))
            continue
        if words % hue_name(fills[cls]) not in caption:
            fail("%s: the caption does not say %r (the %s bars are %s): %s"
                 % (name, words % hue_name(fills[cls]), label, fills[cls], caption))


def screenshot(chromium, tmp, page, path, size, name):
    """Screenshot of the page; returns png_samples() of it."""
    if os.path.exists(path):
        os.remove(path)
    _, console = run_chromium(chromium, tmp, name, ["--screenshot=" + path,
                                                    "--window-size=%d,%d" % size,
                                                    "--hide-scrollbars"], page)
    for line in console:
        fail("%s: console: %s" % (name, line))
    got = png_samples(path, name)
    if got and got[:2] != size:
        fail("%s: screenshot of %dx%d, expected %dx%d" % ((name,) + got[:2] + size))
    return got


def render(chromium, tmp, collprof, make_fixture, name, fixture):
    """Writes fixture directory `name`, its report, and renders it: returns
    (directory, page, Cells of the DOM); the DOM is None when nothing
    rendered.  Any console message is a failure."""
    d = os.path.join(tmp, name)
    subprocess.run([make_fixture, d] + fixture, check=True, timeout=TIMEOUT)
    page = os.path.join(tmp, name + ".html")
    subprocess.run([collprof, "report", d, "-o", page], check=True, timeout=TIMEOUT,
                   stdout=subprocess.DEVNULL)
    out, console = run_chromium(chromium, tmp, name, ["--dump-dom"], page)
    for line in console:
        fail("%s: console: %s" % (name, line))
    if "</html>" not in out:
        fail("%s: no rendered DOM" % name)
        return d, page, None
    dom = Cells()
    dom.feed(out)
    return d, page, dom


def check_timed(chromium, tmp, collprof, make_fixture):
    """A directory with timings.cpt: the "Time and waiting" section renders,
    each histogram holds every (rank, call) pair of its collective; the
    page fits both widths; its captions name their colours truly."""
    _, page, dom = render(chromium, tmp, collprof, make_fixture, "timed", ["timed"])
    if not dom:
        return
    check_widths(chromium, tmp, page, "timed", True)
    check_captions(page, "timed")
    for fig, pairs in (("t-c0-Alltoallv", 9), ("t-c0-Gatherv", 3), ("t-c1-Alltoall", 8)):
        bars = dom.cells.get(fig, [])
        got = sum(int(b["data-count"]) for b in bars)
        if not bars or got != pairs:
            fail("timed: histogram %s: %d bars holding %d (rank, call) pairs, expected %d"
                 % (fig, len(bars), got, pairs))
        for b in bars:
            if not float(b["data-lo"]) < float(b["data-hi"]):
                fail("timed: histogram %s: a bar from %s to %s" % (fig, b["data-lo"],
                                                                   b["data-hi"]))


def widths_only(page):
    """The width and caption checks of one written page (a real run's)."""
    chromium = shutil.which("chromium")
    if not chromium:
        print("SKIP: chromium is not installed (Debian package chromium)")
        return 77
    tmp = tempfile.mkdtemp(prefix="cp-report-widths-")
    try:
        check_widths(chromium, tmp, os.path.abspath(page), os.path.basename(page), False)
        check_captions(page, os.path.basename(page))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 1 if failures else 0


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--widths":
        return widths_only(sys.argv[2])
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    collprof, make_fixture = (os.path.abspath(a) for a in sys.argv[1:3])
    chromium = shutil.which("chromium")
    if not chromium:
        print("SKIP: chromium is not installed (Debian package chromium)")
        return 77
    tmp = tempfile.mkdtemp(prefix="cp-report-browser-")
    try:
        # the detector itself: a script error must show up
        bad = os.path.join(tmp, "bad.html")
        with open(bad, "w") as f:
            f.write("<!DOCTYPE html><p>x</p><script>noSuchFunction();</script>\n")
        _, console = run_chromium(chromium, tmp, "control", ["--dump-dom"], bad)
        if not any("noSuchFunction" in line for line in console):
            fail("control page: Chromium's console output was not seen; cannot check the "
                 "report for errors")

        for name, fixture in (("mixed", ["mixed"]), ("large", ["large", "1024"])):
            d, page, dom = render(chromium, tmp, collprof, make_fixture, name, fixture)
            if not dom:
                continue
            check_widths(chromium, tmp, page, name, False)
            rows, unit = matrix(collprof, d, 0, "Alltoallv", 0)
            check_cells(dom, "m-c0-Alltoallv-send-1", per_peer(rows), unit, name)
            if name == "large":
                rows, unit = matrix(collprof, d, 0, "Alltoallv", 3)
                check_cells(dom, "m-c0-Alltoallv-send-2", per_peer(rows), unit, name)
                # Gatherv: the root receives rank i's count from i
                rows, unit = matrix(collprof, d, 0, "Gatherv", 0, recv=True)
                want = [[rows[0][i] if j == 0 else 0 for j in range(1024)] for i in range(1024)]
                check_cells(dom, "m-c0-Gatherv-send-1", want, unit, name)
                if len(dom.bars.get("bytes-c0", [])) != 128:
                    fail("large: %d bars, expected 128 of 8 ranks"
                         % len(dom.bars.get("bytes-c0", [])))
            else:
                rows, unit = matrix(collprof, d, 0, "Bcast", 0, recv=True)
                want = [[rows[j][0] if i == 2 and rows[j] else 0 for j in range(8)]
                        for i in range(8)]
                check_cells(dom, "m-c0-Bcast-send-1", want, unit, name)
            if name == "mixed":
                # what a reader sees first (kept for humans and CI artifacts) ...
                shot = os.path.abspath("report-screenshot.png")
                got = screenshot(chromium, tmp, page, shot, (1200, 900), "screenshot")
                if got:
                    ink = sum(n for px, n in got[2].items() if px != b"\xff\xff\xff")
                    if ink < sum(got[2].values()) // 100 or len(got[2]) < 8:
                        fail("screenshot: blank (%d coloured samples, %d colours)"
                             % (ink, len(got[2])))
                print("screenshot: " + shot)
                # ... and, further down, heat maps painted in their colours
                got = screenshot(chromium, tmp, page, os.path.join(tmp, "tall.png"),
                                 (1200, 2400), "tall screenshot")
                if got:
                    seen = [c for c in VIRIDIS if got[2].get(bytes.fromhex(c), 0) >= 20]
                    if len(seen) < 5:
                        fail("tall screenshot: heat-map colours %s, expected at least 5 of "
                             "the 9" % seen)
        check_timed(chromium, tmp, collprof, make_fixture)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if failures:
        print("%d failure(s)" % len(failures))
        return 1
    print("OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
