#!/usr/bin/env python3
"""Times `feedprof analyze` on big traces beside `cat` and `gzip -dc`.

What users wait for is the whole command on the file they have: reading,
inflating, parsing, the timeline and the analysis. This script makes big
inputs from the shared real traces (make_big_traces: Kineto .json and
.json.gz, Nsight SQLite, feedprof .fpt, by repetition with shifted times and
ids) into a directory you name, then for each file, in one run:

  * warms the page cache with one read of the file, so every command reads
    it from memory;
  * times `cat FILE > /dev/null` and, for .gz, `gzip -dc FILE > /dev/null`
    and the in-process inflate of zlib and of ISA-L (inflate_bench): the
    floor a reader of that file can reach;
  * times `feedprof analyze --format json --no-what-if FILE` (the reader and
    the analysis; the what-if replay is a feature of its own), for .gz also
    with FEEDPROF_INFLATE=zlib, and, for reference, one run with the replay
    on;
  * reports wall time, MB/s of the file (and of the JSON text inside a .gz),
    events/s and bytes of peak RSS per event (events: the report's
    `source.events`, the events analysed), and the ratios to `cat` and to
    `gzip -dc` from the same run.

With --session N it also makes, per size, a session of N feedprof files of
that size (N processes of one job, with their own pids and staggered
starts) and times `analyze --no-what-if` of the session directory beside
that of one of its files, alone and pinned to one core, in the same run: a
session read and analysed on every core takes about N / cores times one
file on one core (one file alone already uses every core). --ranks N does
the same for a directory of N Kineto rank files of that size (the ranks of
one run, each with its rank, its own pid and a staggered start).

With --cores 1,2,4,8 each input (file, session or rank directory) is
also timed pinned to the first 1, 2, 4 and 8 CPUs the script may use:
how the whole command scales with cores (feedprof sizes its threads to
the CPUs it is allowed, platform/usable_cores.h).

Peak RSS is the child's own (wait4's ru_maxrss), not the script's.

--pause S waits S seconds before each feedprof command. On a virtual
machine that hands the memory a process frees back to its host (free page
reporting), a command run right after another finds that memory still
backed and runs faster than a user's first run of the day: on the
development VM, cold memory costs about 1.2 s per GB of peak, memory just
freed 0.06 s. With a pause of a few seconds each command starts cold.

  bench/bigtrace/run_bigtrace_bench.py --build build --dir /tmp/big \\
      [--sizes 100M,1G] [--formats kineto,kineto-gz,nsight,feedprof] \\
      [--runs 1] [--what-if kineto|all|none] [--session N] [--ranks N] \\
      [--pause S] [--cores 1,2,4,8] [--json results.json] \\
      [--feedprof OTHER_BINARY]

The files are large (the sizes are per format; 1G writes about 3.1 GB);
they are kept in --dir for the next run and are never part of the source
tree.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import time

FORMATS = ("kineto", "kineto-gz", "nsight", "feedprof")
EXTENSIONS = {
    "kineto": "json",
    "kineto-gz": "json.gz",
    "nsight": "sqlite",
    "feedprof": "fpt",
}
# File bytes per byte of the size asked for (the .json.gz compresses
# about 13:1).
DISK_FACTOR = {"kineto": 1.0, "kineto-gz": 0.1, "nsight": 1.0, "feedprof": 1.0}


def parse_size(text):
    scale = {"K": 10**3, "M": 10**6, "G": 10**9}.get(text[-1:].upper(), 1)
    digits = text[:-1] if scale != 1 else text
    if not digits.isdigit() or int(digits) == 0:
        sys.exit(f"run_bigtrace_bench: --sizes: '{text}' is not a size; "
                 "write 100M, 1G or a byte count")
    return int(digits) * scale


# Seconds to wait before each feedprof command (--pause).
PAUSE_S = 0.0


def run(argv, stdout=subprocess.DEVNULL, env=None, cpus=None, pause=False):
    """Runs argv (on the CPUs in `cpus`, when given; after PAUSE_S when
    `pause`); returns (wall s, cpu s, peak RSS bytes, stdout bytes)."""
    if pause and PAUSE_S > 0:
        time.sleep(PAUSE_S)
    start = time.perf_counter()
    pin = (lambda: os.sched_setaffinity(0, cpus)) if cpus else None
    proc = subprocess.Popen(argv, stdout=stdout, stderr=subprocess.PIPE,
                            env=env, preexec_fn=pin)
    out = b""
    if stdout == subprocess.PIPE:
        out = proc.stdout.read()
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        sys.exit(f"run_bigtrace_bench: {' '.join(argv)} failed "
                 f"({proc.returncode}): {err.decode(errors='replace')[-2000:]}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024, out


def shell_to_null(command, path):
    with open(os.devnull, "wb") as null:
        start = time.perf_counter()
        proc = subprocess.Popen(command + [path], stdout=null)
        _, status, usage = os.wait4(proc.pid, 0)
        if os.waitstatus_to_exitcode(status) != 0:
            sys.exit(f"run_bigtrace_bench: {command[0]} {path} failed")
        return time.perf_counter() - start


def median_run(runs, fn):
    results = [fn() for _ in range(runs)]
    results.sort(key=lambda r: r[0] if isinstance(r, tuple) else r)
    return results[len(results) // 2]


def inflated_bytes(path):
    total = 0
    with subprocess.Popen(["gzip", "-dc", path], stdout=subprocess.PIPE) as p:
        while chunk := p.stdout.read(1 << 20):
            total += len(chunk)
    return total


def inflate_seconds(inflate_bench, path, runs):
    """{"zlib": s, "ISA-L": s} of the in-process inflate, best of runs."""
    if not os.access(inflate_bench, os.X_OK):
        return {}
    out = subprocess.run([inflate_bench, path, str(runs)], check=True,
                         capture_output=True, text=True).stdout
    seconds = {}
    for line in out.splitlines():
        name, _, rest = line.partition(": ")
        if rest.endswith("best of " + str(runs)):
            seconds[name] = float(rest.split(" s,")[0])
    return seconds


def measure(feedprof, inflate_bench, path, fmt, runs, what_if):
    size = os.path.getsize(path)
    shell_to_null(["cat"], path)  # page cache
    row = {"format": fmt, "path": path, "file_bytes": size}
    row["cat_s"] = median_run(runs, lambda: shell_to_null(["cat"], path))
    argv = [feedprof, "analyze", "--format", "json", "--no-what-if", path]
    if path.endswith(".gz"):
        row["gzip_dc_s"] = median_run(
            runs, lambda: shell_to_null(["gzip", "-dc"], path))
        row["text_bytes"] = inflated_bytes(path)
        for name, seconds in inflate_seconds(inflate_bench, path,
                                             runs).items():
            row[f"{name}_inflate_s"] = seconds
        zlib_env = dict(os.environ, FEEDPROF_INFLATE="zlib")
        row["analyze_zlib_s"] = median_run(
            runs, lambda: run(argv, stdout=subprocess.PIPE, env=zlib_env,
                              pause=True))[0]
    wall, cpu, rss, out = median_run(
        runs, lambda: run(argv, stdout=subprocess.PIPE, pause=True))
    report = json.loads(out)
    row.update(analyze_s=wall, analyze_cpu_s=cpu, peak_rss_bytes=rss,
               events=report["source"]["events"])
    if what_if:
        argv = [feedprof, "analyze", "--format", "json", path]
        wall, cpu, rss, _ = run(argv, stdout=subprocess.PIPE, pause=True)
        row.update(what_if_s=wall, what_if_peak_rss_bytes=rss)
    return row


def measure_directory(feedprof, directory, suffix, runs):
    """A session's or a rank directory's analyze beside one of its files'."""
    files = sorted(os.path.join(directory, f) for f in os.listdir(directory)
                   if f.endswith(suffix))
    for f in files:
        shell_to_null(["cat"], f)  # page cache
    one = files[0]

    def analyze(path, cpus=None):
        return run([feedprof, "analyze", "--format", "json", "--no-what-if",
                    path], stdout=subprocess.PIPE, cpus=cpus, pause=True)

    wall, cpu, rss, out = median_run(runs, lambda: analyze(directory))
    one_wall, _, one_rss, one_out = median_run(runs, lambda: analyze(one))
    # One file on one core: the unit of "files / cores × one file" (one
    # file alone already reads and analyses on every core).
    first_core = {usable_cpus()[0]}
    one_core_wall = median_run(runs, lambda: analyze(one, first_core))[0]
    return {
        "path": directory, "files": len(files),
        "file_bytes": sum(os.path.getsize(f) for f in files),
        "analyze_s": wall, "analyze_cpu_s": cpu, "peak_rss_bytes": rss,
        "events": json.loads(out)["source"]["events"],
        "one_file_s": one_wall, "one_file_peak_rss_bytes": one_rss,
        "one_file_one_core_s": one_core_wall,
        "one_file_events": json.loads(one_out)["source"]["events"],
    }


def usable_cpus():
    """The CPUs this script may run on, in order (its affinity mask)."""
    return sorted(os.sched_getaffinity(0))


def measure_scaling(feedprof, path, core_counts, runs):
    """{cores: wall s} of `analyze --no-what-if PATH` pinned to the first
    `cores` CPUs of the script's mask, for each count that fits in it."""
    cpus = usable_cpus()
    argv = [feedprof, "analyze", "--format", "json", "--no-what-if", path]
    walls = {}
    for n in core_counts:
        if n > len(cpus):
            continue
        walls[n] = median_run(runs, lambda: run(
            argv, stdout=subprocess.DEVNULL, cpus=set(cpus[:n]),
            pause=True))[0]
    return walls


def print_scaling_table(inputs, core_counts):
    counts = [n for n in core_counts if n <= len(usable_cpus())]
    print("\nscaling with cores: whole `analyze --no-what-if` pinned to the "
          "first N CPUs (taskset), seconds and the speed-up over one core\n")
    print("| input | " + " | ".join(f"{n} core{'s' if n > 1 else ''}"
                                   for n in counts) + " |")
    print("|---|" + "---|" * len(counts))
    for r in inputs:
        walls = r["scaling_s"]
        one = walls.get(1)
        cells = [os.path.basename(r["path"])]
        for n in counts:
            s = walls.get(n)
            cells.append("–" if s is None else
                         f"{s:.2f}" + (f" ({one / s:.1f}×)" if one else ""))
        print("| " + " | ".join(cells) + " |")


def print_directory_table(directories):
    cores = len(usable_cpus())
    print(f"\nsessions and rank directories: the directory beside one of its "
          f"files, alone and on one core; the target is files / cores "
          f"({cores}) × one file on one core\n")
    print("| directory | files | events | analyze s | M events/s | peak RSS MB "
          "| B/event | one file s | × one file | one file, one core s "
          "| × one file, one core | target × |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in directories:
        seconds = r["analyze_s"]
        cells = [
            os.path.basename(r["path"]), str(r["files"]), f"{r['events']:,}",
            f"{seconds:.2f}", f"{r['events'] / seconds / 1e6:.2f}",
            f"{r['peak_rss_bytes'] / 1e6:.0f}",
            f"{r['peak_rss_bytes'] / max(r['events'], 1):.0f}",
            f"{r['one_file_s']:.2f}", f"{seconds / r['one_file_s']:.1f}×",
            f"{r['one_file_one_core_s']:.2f}",
            f"{seconds / r['one_file_one_core_s']:.1f}×",
            f"{r['files'] / cores:.1f}×",
        ]
        print("| " + " | ".join(cells) + " |")


def print_table(rows):
    def ratio(a, b):
        return f"{a / b:.1f}×" if b else "–"

    print("\n| input | file MB | events | analyze s | MB/s | M events/s "
          "| peak RSS MB | B/event | cat s | ×cat | gzip -dc s | ×gzip -dc "
          "| with what-if s | with what-if peak MB | B/event |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        mb = r["file_bytes"] / 1e6
        seconds = r["analyze_s"]
        rate = f"{mb / seconds:.0f}"
        if "text_bytes" in r:
            rate += f" ({r['text_bytes'] / 1e6 / seconds:.0f} of JSON)"
        gz = r.get("gzip_dc_s")
        cells = [
            os.path.basename(r["path"]), f"{mb:.0f}", f"{r['events']:,}",
            f"{seconds:.2f}", rate, f"{r['events'] / seconds / 1e6:.2f}",
            f"{r['peak_rss_bytes'] / 1e6:.0f}",
            f"{r['peak_rss_bytes'] / max(r['events'], 1):.0f}",
            f"{r['cat_s']:.3f}", ratio(seconds, r["cat_s"]),
            "–" if gz is None else f"{gz:.2f}",
            "–" if gz is None else ratio(seconds, gz),
            f"{r['what_if_s']:.2f}" if "what_if_s" in r else "–",
            f"{r['what_if_peak_rss_bytes'] / 1e6:.0f}"
            if "what_if_peak_rss_bytes" in r else "–",
            f"{r['what_if_peak_rss_bytes'] / max(r['events'], 1):.0f}"
            if "what_if_peak_rss_bytes" in r else "–",
        ]
        print("| " + " | ".join(cells) + " |")

    gz = [r for r in rows if "analyze_zlib_s" in r]
    if not gz:
        return
    print("\n.json.gz: analyze with each inflater beside that inflater "
          "alone (in-process, one stream, best of the runs)\n")
    print("| input | zlib inflate s | ISA-L inflate s | analyze (zlib) s "
          "| analyze (default inflater) s | analyze × fastest inflate |")
    print("|---|---|---|---|---|---|")
    for r in gz:
        zlib = r.get("zlib_inflate_s")
        isal = r.get("ISA-L_inflate_s")
        fastest = min(v for v in (zlib, isal) if v is not None) \
            if (zlib or isal) else None
        cells = [
            os.path.basename(r["path"]),
            "–" if zlib is None else f"{zlib:.3f}",
            "–" if isal is None else f"{isal:.3f}",
            f"{r['analyze_zlib_s']:.2f}", f"{r['analyze_s']:.2f}",
            "–" if fastest is None else ratio(r["analyze_s"], fastest),
        ]
        print("| " + " | ".join(cells) + " |")


def main():
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", required=True,
                        help="build tree with tools/feedprof and "
                        "bench/bigtrace/make_big_traces")
    parser.add_argument("--feedprof", help="the feedprof binary to time "
                        "(default: BUILD/tools/feedprof)")
    parser.add_argument("--dir", required=True,
                        help="where the big inputs are written and kept")
    parser.add_argument("--sizes", default="100M,1G")
    parser.add_argument("--formats", default=",".join(FORMATS))
    parser.add_argument("--traces", help="the shared real traces "
                        "(default: make_big_traces' own)")
    parser.add_argument("--runs", type=int, default=1,
                        help="runs per command; the median is reported")
    parser.add_argument("--what-if", default="kineto",
                        choices=("kineto", "all", "none"),
                        help="which inputs also get one run with the "
                        "what-if replay on (default: the plain Kineto JSON)")
    parser.add_argument("--session", type=int, default=0, metavar="N",
                        help="also time a session of N feedprof files of "
                        "each size beside one of its files")
    parser.add_argument("--ranks", type=int, default=0, metavar="N",
                        help="also time a directory of N Kineto rank files "
                        "of each size beside one of its files")
    parser.add_argument("--pause", type=float, default=0.0, metavar="S",
                        help="wait S seconds before each feedprof command, "
                        "so that each starts on cold memory")
    parser.add_argument("--cores", metavar="LIST",
                        help="also time each input pinned to the first N "
                        "CPUs for each N in LIST (1,2,4,8): how the whole "
                        "command scales with cores")
    parser.add_argument("--json", help="also write the figures here")
    args = parser.parse_args()
    global PAUSE_S
    PAUSE_S = args.pause

    feedprof = args.feedprof or os.path.join(args.build, "tools", "feedprof")
    generator = os.path.join(args.build, "bench", "bigtrace", "make_big_traces")
    inflate_bench = os.path.join(args.build, "bench", "bigtrace",
                                 "inflate_bench")
    for tool in (feedprof, generator):
        if not os.access(tool, os.X_OK):
            sys.exit(f"run_bigtrace_bench: {tool} is missing: build it with "
                     f"cmake --build {args.build} --target feedprof_cli "
                     "make_big_traces inflate_bench")
    formats = [f for f in args.formats.split(",") if f]
    for f in formats:
        if f not in FORMATS:
            sys.exit(f"run_bigtrace_bench: unknown format '{f}'; use "
                     + ", ".join(FORMATS))
    sizes = [s for s in args.sizes.split(",") if s]
    core_counts = []
    for text in (args.cores or "").split(","):
        if not text:
            continue
        if not text.isdigit() or int(text) == 0:
            sys.exit(f"run_bigtrace_bench: --cores: '{text}' is not a core "
                     "count; write a list such as 1,2,4,8")
        core_counts.append(int(text))
    for flag, count in (("--session", args.session), ("--ranks", args.ranks)):
        if count and not 2 <= count <= 256:
            sys.exit(f"run_bigtrace_bench: {flag}: write 2 to 256 files")
    os.makedirs(args.dir, exist_ok=True)

    rows = []
    directories = []
    print(f"load average before: {os.getloadavg()[0]:.2f} "
          f"({os.cpu_count()} CPUs, {len(usable_cpus())} usable)")
    for size in sizes:
        needed = sum(parse_size(size) * DISK_FACTOR[f] for f in formats)
        missing = [f for f in formats if not os.path.exists(os.path.join(
            args.dir, f"{f.split('-')[0]}-{size}.{EXTENSIONS[f]}"))]
        free = shutil.disk_usage(args.dir).free
        if missing and free < needed * 1.1:
            print(f"skipping {size}: about {needed / 1e9:.1f} GB needed in "
                  f"{args.dir}, {free / 1e9:.1f} GB free")
            continue
        gen = [generator, "--out", args.dir, "--sizes", size, "--formats",
               ",".join(formats)]
        if args.traces:
            gen += ["--traces", args.traces]
        subprocess.run(gen, check=True)
        for f in formats:
            path = os.path.join(
                args.dir, f"{f.split('-')[0]}-{size}.{EXTENSIONS[f]}")
            what_if = args.what_if == "all" or (
                args.what_if == "kineto" and f == "kineto")
            row = measure(feedprof, inflate_bench, path, f, args.runs,
                          what_if)
            row["size"] = size
            if core_counts:
                row["scaling_s"] = measure_scaling(feedprof, path,
                                                   core_counts, args.runs)
            rows.append(row)
            print(f"{os.path.basename(path)}: analyze {row['analyze_s']:.2f} s"
                  f", {row['events']:,} events, peak RSS "
                  f"{row['peak_rss_bytes'] / 1e6:.0f} MB", flush=True)
        for name, count, fmt, flag, suffix in (
                ("session", args.session, "feedprof", "--session", ".fpt"),
                ("ranks", args.ranks, "kineto", "--ranks", ".json")):
            if not count:
                continue
            directory = os.path.join(args.dir, f"{name}{count}-{size}")
            if (not os.path.isdir(directory) and shutil.disk_usage(
                    args.dir).free < parse_size(size) * count * 1.1):
                print(f"skipping {os.path.basename(directory)}: not enough "
                      f"room in {args.dir}")
                continue
            gen = [generator, "--out", args.dir, "--sizes", size,
                   "--formats", fmt, flag, str(count)]
            if args.traces:
                gen += ["--traces", args.traces]
            subprocess.run(gen, check=True)
            row = measure_directory(feedprof, directory, suffix, args.runs)
            row["size"] = size
            if core_counts:
                row["scaling_s"] = measure_scaling(feedprof, directory,
                                                   core_counts, args.runs)
            directories.append(row)
            print(f"{os.path.basename(directory)}: analyze "
                  f"{row['analyze_s']:.2f} s, one file {row['one_file_s']:.2f}"
                  f" s", flush=True)
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    print_table(rows)
    if directories:
        print_directory_table(directories)
    if core_counts:
        print_scaling_table(rows + directories, core_counts)
    if args.json:
        with open(args.json, "w") as out:
            json.dump({"files": rows, "sessions": directories}, out, indent=1)


if __name__ == "__main__":
    main()
