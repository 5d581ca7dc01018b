#!/usr/bin/env python3
"""Check `collprof export` against the files and against `collprof matrix`.

    export_check.py COLLPROF DIR...

For each DIR: the export must be JSON of schema_version 1; its manifest must
hold every value of DIR/manifest.json (read here with Python's json module,
its range strings expanded here); it must list every counts file of DIR with
as many blocks as the file has "# Raw counters" lines; and for every call of
every block, the matrix rebuilt from the block's rows must equal the output
of `collprof matrix --format json` for that call, while calls listed in
"all_calls" but in no block must be refused by `collprof matrix`.  Prints one
line per problem and "N directories, M calls compared"; exit status 1 when
something differs.
"""
import gzip
import json
import os
import re
import subprocess
import sys

COUNTS_NAME = re.compile(r'^(send|recv)-counters\.(?:job\d+\.)?rank(\d+)\.txt(?:\.gz)?$')
problems = []


def problem(msg):
    problems.append(msg)
    print('FAIL: ' + msg)


def expand_pairs(pairs):
    """[[lo, hi], ...] in order -> [lo, ..., hi, ...]."""
    out = []
    for lo, hi in pairs:
        assert isinstance(lo, int) and isinstance(hi, int) and lo <= hi, pairs
        out.extend(range(lo, hi + 1))
    return out


def expand_string(text):
    """"2,0", "0-3,5" (the manifest's form) -> list, in order."""
    out = []
    for item in text.replace(' ', '').split(','):
        lo, _, hi = item.partition('-')
        out.extend(range(int(lo), int(hi or lo) + 1))
    return out


def read_text(path):
    with open(path, 'rb') as f:
        data = f.read()
    if data[:2] == b'\x1f\x8b':
        data = gzip.decompress(data)
    return data.decode('utf-8', 'replace')


def check_manifest(d, exported):
    path = os.path.join(d, 'manifest.json')
    if not os.path.exists(path):
        if exported is not None:
            problem(f'{d}: no manifest.json, but the export has a manifest')
        return
    m = json.loads(read_text(path))
    if exported is None:
        problem(f'{d}: manifest.json not exported')
        return
    for key in ('format_version', 'counts_format_version', 'collprof_version', 'mpi_version',
                'job', 'start_time', 'world_size', 'partial', 'partial_reason', 'files'):
        if exported.get(key) != m[key]:
            problem(f'{d}: manifest {key}: exported {exported.get(key)!r}, file {m[key]!r}')
    if list(exported['config'].items()) != list(m['config'].items()):
        problem(f'{d}: manifest config differs')
    if list(exported['missing'].items()) != list(m.get('missing', {}).items()):
        problem(f'{d}: manifest missing files differ')
    if len(exported['communicators']) != len(m['communicators']):
        problem(f'{d}: {len(exported["communicators"])} communicators exported, '
                f'{len(m["communicators"])} in the manifest')
    for e, c in zip(exported['communicators'], m['communicators']):
        want = {'id': c['id'], 'size': c['size'], 'lead': c['lead'],
                'members': expand_string(c['members']),
                'remote_members': expand_string(c['remote_members'])
                if 'remote_members' in c else [],
                'neighbors': c.get('neighbors')}
        got = dict(e)
        got['members'] = expand_pairs(e['members'])
        got['remote_members'] = expand_pairs(e['remote_members'])
        if got != want:
            problem(f'{d}: communicator {c["id"]}: exported {got}, manifest {want}')


def matrix(collprof, d, comm, coll, direction, call):
    cmd = [collprof, 'matrix', d, '--comm', str(comm), '--collective', coll, '--call',
           str(call), '--format', 'json']
    if direction == 'recv':
        cmd.append('--recv')
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return r.returncode, r.stdout


def row_of(block, row, rank):
    """Rank's dense counts from an exported row of any form (counts format 5:
    "sparse" lists peers, "relative" offsets from the rank)."""
    form = row.get('form')
    if form is None:
        return row['counts']
    dense = [0] * block['row_len']
    where = row['peers'] if form == 'sparse' else [rank + o for o in row['offsets']]
    for peer, count in zip(where, row['counts']):
        dense[peer] = count
    return dense


def rebuild(block):
    """The block's matrix as `collprof matrix --format json` gives its rows."""
    rows = [None] * block['nranks']
    for row in block['rows']:
        for rank in expand_pairs(row['ranks']):
            rows[rank] = row_of(block, row, rank)
    return rows


def check_dir(collprof, d):
    r = subprocess.run([collprof, 'export', d], stdout=subprocess.PIPE, text=True)
    if r.returncode != 0:
        problem(f'{d}: collprof export exited with {r.returncode}')
        return 0
    x = json.loads(r.stdout)
    if x.get('schema_version') != 1 or x.get('format') != 'collprof-export':
        problem(f'{d}: schema_version {x.get("schema_version")}, format {x.get("format")}')
    check_manifest(d, x['manifest'])

    names = sorted(n for n in os.listdir(d) if COUNTS_NAME.match(n))
    exported = sorted(f['file'] for f in x['counts_files'])
    if names != exported:
        problem(f'{d}: counts files {names}, exported {exported}')
    calls_done = 0
    covered = {}  # (comm, collective, direction) -> calls in some block
    listed = {}   # the same -> calls of "all_calls"
    for f in x['counts_files']:
        m = COUNTS_NAME.match(f['file'])
        if not m:
            problem(f'{d}: exported file name {f["file"]!r}')
            continue
        if f['direction'] != m.group(1) or f['lead_rank'] != int(m.group(2)):
            problem(f'{d}/{f["file"]}: direction {f["direction"]}, lead {f["lead_rank"]}')
        text = read_text(os.path.join(d, f['file']))
        if text.count('# Raw counters') != len(f['blocks']):
            problem(f'{d}/{f["file"]}: {text.count("# Raw counters")} blocks in the file, '
                    f'{len(f["blocks"])} exported')
        version = re.match(r'# collprof counts (\d+)', text)
        if f['format_version'] != (int(version.group(1)) if version else 0):
            problem(f'{d}/{f["file"]}: format_version {f["format_version"]}')
        for b in f['blocks']:
            key = (b['comm'], b['collective'], f['direction'])
            covered.setdefault(key, set()).update(expand_pairs(b['calls']))
            listed.setdefault(key, set()).update(expand_pairs(b['all_calls']))
            dense_lens = [len(r['counts']) for r in b['rows'] if 'form' not in r]
            if any('form' in r for r in b['rows']):
                dense_lens.append(b['row_len'])  # listed rows address row_len peers
            if b['row_len'] != max(dense_lens + [0]):
                problem(f'{d}/{f["file"]}: row_len {b["row_len"]}')
            want_rows = rebuild(b)
            for call in expand_pairs(b['calls']):
                status, out = matrix(collprof, d, b['comm'], b['collective'], f['direction'],
                                     call)
                calls_done += 1
                if status != 0:
                    problem(f'{d}: matrix of {key} call {call}: exit status {status}')
                    continue
                got = json.loads(out)
                want = {'comm': b['comm'], 'collective': b['collective'], 'call': call,
                        'direction': f['direction'], 'datatype_size': b['datatype_size'],
                        'counts_in_bytes': b['counts_in_bytes'], 'rows': want_rows}
                if got != want:
                    problem(f'{d}: {key} call {call}: matrix {got}, export {want}')
    for key, calls in listed.items():
        for call in sorted(calls - covered.get(key, set())):
            status, _ = matrix(collprof, d, key[0], key[1], key[2], call)
            if status != 1:
                problem(f'{d}: {key} call {call} is in no block, but matrix says {status}')
    return calls_done


def main():
    collprof, dirs = sys.argv[1], sys.argv[2:]
    total = sum(check_dir(collprof, d) for d in dirs)
    print(f'{len(dirs)} directories, {total} calls compared, {len(problems)} problems')
    return 1 if problems or total == 0 else 0


if __name__ == '__main__':
    sys.exit(main())
