#!/usr/bin/env python3
"""Writes the traces of an N-rank job made from one rank's Kineto trace.

Each rank file is the source trace with its distributedInfo rank and world
size set and its host process renumbered (one pid per rank). One rank is
late: at every NCCL kernel the other ranks arrive --wait-us earlier and
wait for it (their kernel starts earlier and lasts as much longer; its end,
where every rank of a collective finishes, stays). So the analysis across
ranks must name the late rank, and each other rank's wait is --wait-us per
collective.

  make_rank_traces.py SOURCE.json[.gz] OUT_DIR --ranks 512 --late 7

Files are written gzip-compressed (level 1) as OUT_DIR/rank-NNNN.json.gz.
"""
import argparse
import gzip
import multiprocessing
import os
import re
import sys

NCCL_KERNEL = re.compile(
    rb'("cat": "kernel", "name": "nccl[^"]*", "pid": \d+,\s*'
    rb'"tid": \d+,\s*"ts": )(\d+)(,\s*"dur": )(\d+)')


def make_rank(job):
    source, out_dir, rank, ranks, late, wait_us, pid = job
    text = source
    text = re.sub(rb'"distributedInfo": \{[^}]*\}',
                  b'"distributedInfo": {"backend": "nccl", "rank": %d, '
                  b'"world_size": %d}' % (rank, ranks), text, count=1)
    text = text.replace(b'"pid": %d,' % pid, b'"pid": %d,' % (pid + rank + 1))
    if rank != late:
        def earlier(m):
            ts = int(m.group(2)) - wait_us
            dur = int(m.group(4)) + wait_us
            return m.group(1) + b'%d' % ts + m.group(3) + b'%d' % dur
        text = NCCL_KERNEL.sub(earlier, text)
    path = os.path.join(out_dir, 'rank-%04d.json.gz' % rank)
    with gzip.open(path, 'wb', compresslevel=1) as f:
        f.write(text)
    return path


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('source')
    p.add_argument('out_dir')
    p.add_argument('--ranks', type=int, default=8)
    p.add_argument('--late', type=int, default=0, help='the late rank')
    p.add_argument('--wait-us', type=int, default=300)
    p.add_argument('--jobs', type=int, default=2)
    a = p.parse_args()
    opener = gzip.open if a.source.endswith('.gz') else open
    with opener(a.source, 'rb') as f:
        source = f.read()
    m = re.search(rb'"cat": "cpu_op", "name": "[^"]*",\s*"pid": (\d+)', source)
    if m is None:
        sys.exit('make_rank_traces: no cpu_op event with a pid in the source')
    pid = int(m.group(1))
    if NCCL_KERNEL.search(source) is None:
        sys.exit('make_rank_traces: the source has no NCCL kernel')
    os.makedirs(a.out_dir, exist_ok=True)
    jobs = [(source, a.out_dir, r, a.ranks, a.late, a.wait_us, pid)
            for r in range(a.ranks)]
    with multiprocessing.Pool(a.jobs) as pool:
        for _ in pool.imap_unordered(make_rank, jobs):
            pass


if __name__ == '__main__':
    main()
