#!/usr/bin/env python3
"""Writes the Kineto and Nsight seed corpora for the fuzzers.

A fuzzer spends its time well only on inputs near what the reader really
sees, but real traces are MiB to hundreds of MiB: far past what a fuzzer can
mutate at speed. This script cuts each real trace under the shared traces
directory down to a small, still well-formed sample of itself, and builds the
constructed seeds kept as text in tests/fuzz/seeds/. Everything is derived
from those inputs on each run; nothing binary is kept in the repository.

  make_seeds.py --traces DIR --out DIR [--kineto-max-len N] [--nsight-max-len N]

Writes OUT/kineto/ and OUT/nsight/. A missing traces directory, or a format
with no trace in it, is reported and leaves only the constructed seeds.
"""
import argparse
import gzip
import json
import os
import re
import shutil
import sqlite3
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SEEDS = os.path.join(HERE, "seeds")

# Tables the Nsight reader looks at (lib/src/nsight/); the rest only make a
# seed bigger.
NSIGHT_TABLES = re.compile(
    r"^(StringIds|ThreadNames|PROCESSES|CUPTI_ACTIVITY_KIND_\w+|"
    r"CUDA_CALLCHAINS|NVTX_EVENTS|SCHED_EVENTS|COMPOSITE_EVENTS|"
    r"SAMPLING_CALLCHAINS|TARGET_INFO_(GPU|CUDA_\w+)|"
    r"ENUM_CUPTI_SYNC_TYPE|ENUM_NSYS_EVENT_TYPE|ENUM_CUDA_\w+)$")
NSIGHT_GPU_TABLES = ("CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY",
                     "CUPTI_ACTIVITY_KIND_MEMSET",
                     "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION")


def say(message):
    print("make_seeds: " + message, flush=True)


def find_traces(traces, suffixes):
    found = []
    for root, _, files in os.walk(traces):
        for name in sorted(files):
            if name.endswith(suffixes):
                found.append(os.path.join(root, name))
    return sorted(found)


def seed_name(traces, path):
    rel = os.path.relpath(path, traces)
    return re.sub(r"[^A-Za-z0-9_.-]", "_", rel)


# --- Kineto ----------------------------------------------------------------

def kineto_sample(document, window):
    """The trace's metadata and `window` events around its first kernel, so
    launches, their kernels and the enclosing steps stay together."""
    events = document.get("traceEvents", [])
    meta = [e for e in events if isinstance(e, dict) and e.get("ph") == "M"]
    timed = [e for e in events if isinstance(e, dict) and e.get("ph") != "M"
             and isinstance(e.get("ts"), (int, float))]
    timed.sort(key=lambda e: e["ts"])
    first_kernel = next((i for i, e in enumerate(timed)
                         if e.get("cat") in ("kernel", "Kernel")), 0)
    begin = max(0, first_kernel - window // 2)
    picked = timed[begin:begin + window]
    steps = [e for e in timed if str(e.get("name", "")).startswith(
        "ProfilerStep#")][:2]
    sample = {k: v for k, v in document.items() if k != "traceEvents"}
    sample["traceEvents"] = meta[:64] + [e for e in steps if e not in picked] \
        + picked
    return json.dumps(sample, separators=(",", ":")).encode()


def make_kineto(traces, out, max_len):
    os.makedirs(out, exist_ok=True)
    shutil.copyfile(os.path.join(SEEDS, "kineto_small.json"),
                    os.path.join(out, "kineto_small.json"))
    paths = find_traces(traces, (".json", ".json.gz")) if traces else []
    if not paths:
        say("no Kineto traces under %s: constructed seeds only" % traces)
        return
    for path in paths:
        raw = open(path, "rb").read()
        # A small real gzip file is a seed as it is: the gzip path on real
        # framing.
        if path.endswith(".gz") and len(raw) <= max_len:
            shutil.copyfile(path, os.path.join(out, seed_name(traces, path)))
        text = gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw
        document = json.loads(text)
        window = 400
        sample = kineto_sample(document, window)
        while len(sample) > max_len and window > 8:
            window //= 2
            sample = kineto_sample(document, window)
        name = re.sub(r"\.json(\.gz)?$", "", seed_name(traces, path))
        open(os.path.join(out, name + ".sample.json"), "wb").write(
            sample[:max_len])
    say("kineto: %d seeds from %d traces" % (len(os.listdir(out)), len(paths)))


# --- Nsight ----------------------------------------------------------------

def shrink_database(db, rows):
    """Drops what the reader does not read and keeps `rows` rows per table
    (API calls: also those the kept GPU rows were launched by)."""
    objects = db.execute(
        "SELECT type, name FROM sqlite_master WHERE type IN ('table', 'view')"
        " AND name NOT LIKE 'sqlite_%'").fetchall()
    for kind, name in objects:
        if kind == "view" or not NSIGHT_TABLES.match(name):
            db.execute('DROP %s "%s"' % (kind.upper(), name))
    tables = [n for (n,) in db.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table'"
        " AND name NOT LIKE 'sqlite_%'")]
    for name in tables:
        if name == "StringIds" or name.startswith("ENUM_"):
            continue
        if name != "CUPTI_ACTIVITY_KIND_RUNTIME":
            db.execute('DELETE FROM "%s" WHERE rowid NOT IN (SELECT rowid FROM'
                       ' "%s" ORDER BY rowid LIMIT %d)' % (name, name, rows))
    if "CUPTI_ACTIVITY_KIND_RUNTIME" in tables:
        kept = set()
        for name in NSIGHT_GPU_TABLES:
            if name in tables:
                kept.update(c for (c,) in db.execute(
                    'SELECT correlationId FROM "%s"' % name) if c is not None)
        db.execute("CREATE TEMP TABLE kept (c INTEGER PRIMARY KEY)")
        db.executemany("INSERT INTO kept VALUES (?)", [(c,) for c in kept])
        db.execute(
            "DELETE FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE correlationId NOT IN"
            " (SELECT c FROM kept) AND rowid NOT IN (SELECT rowid FROM"
            " CUPTI_ACTIVITY_KIND_RUNTIME ORDER BY rowid LIMIT %d)" % rows)
        db.execute("DROP TABLE kept")
    # Strings: those any kept row may name (every integer is a candidate id).
    if "StringIds" in tables:
        named = set(range(16))
        for name in tables:
            if name == "StringIds" or name.startswith("ENUM_"):
                continue
            for row in db.execute('SELECT * FROM "%s"' % name):
                named.update(v for v in row if isinstance(v, int))
        db.execute("CREATE TEMP TABLE named (id INTEGER PRIMARY KEY)")
        db.executemany("INSERT OR IGNORE INTO named VALUES (?)",
                       [(i,) for i in named if -2**63 <= i < 2**63])
        db.execute("DELETE FROM StringIds WHERE id NOT IN (SELECT id FROM named)")
        db.execute("DROP TABLE named")
    if "ENUM_NSYS_EVENT_TYPE" in tables:
        db.execute("DELETE FROM ENUM_NSYS_EVENT_TYPE WHERE name NOT LIKE 'Nvtx%'")
    db.commit()


def write_compact(db, path):
    """`db` as a file with 512-byte pages: the smallest SQLite allows."""
    if os.path.exists(path):
        os.remove(path)
    compact = sqlite3.connect(path)
    db.backup(compact)
    # A new page size takes effect on VACUUM of a file not in WAL mode.
    compact.execute("PRAGMA journal_mode = DELETE")
    compact.execute("PRAGMA page_size = 512")
    compact.execute("VACUUM")
    compact.close()


def make_nsight(traces, out, max_len):
    os.makedirs(out, exist_ok=True)
    db = sqlite3.connect(":memory:")
    db.executescript(open(os.path.join(SEEDS, "nsight_small.sql")).read())
    write_compact(db, os.path.join(out, "nsight_small.sqlite"))
    db.close()
    paths = find_traces(traces, (".sqlite",)) if traces else []
    if not paths:
        say("no Nsight exports under %s: constructed seed only" % traces)
        return
    for path in paths:
        name = re.sub(r"\.sqlite$", "", seed_name(traces, path))
        target = os.path.join(out, name + ".sample.sqlite")
        for rows in (64, 16, 4):
            source = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
            db = sqlite3.connect(":memory:")
            source.backup(db)
            source.close()
            shrink_database(db, rows)
            write_compact(db, target)
            db.close()
            if os.path.getsize(target) <= max_len:
                break
        if os.path.getsize(target) > max_len:
            say("%s stays %d bytes, over -max_len %d: left out" %
                (path, os.path.getsize(target), max_len))
            os.remove(target)
    say("nsight: %d seeds from %d exports" % (len(os.listdir(out)), len(paths)))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--traces", default="")
    parser.add_argument("--out", required=True)
    parser.add_argument("--kineto-max-len", type=int, default=65536)
    parser.add_argument("--nsight-max-len", type=int, default=131072)
    args = parser.parse_args()
    traces = args.traces if args.traces and os.path.isdir(args.traces) else ""
    if not traces:
        say("shared traces directory %r not found: constructed seeds only" %
            args.traces)
    make_kineto(traces, os.path.join(args.out, "kineto"), args.kineto_max_len)
    make_nsight(traces, os.path.join(args.out, "nsight"), args.nsight_max_len)
    return 0


if __name__ == "__main__":
    sys.exit(main())
