#!/usr/bin/env python3
"""NVTX ranges from Python threads, through a small C library and ctypes.

Python code cannot use the header-only NVTX v3 directly, so it calls
libnvtx_shim.so (examples/host/nvtx_shim.c), whose NVTX instance attaches to
the injection named by NVTX_INJECTION64_PATH -- feedprof sets it when
libfeedprof.so is preloaded. Each worker thread emits one "py-worker" range
with nested "py-step" ranges and a "py-mark" mark; the summary printed at
the end is deterministic.

Usage: nvtx_threads.py [PATH_TO_libnvtx_shim.so]
  (default: $NVTX_SHIM_PATH, else build/examples/host/libnvtx_shim.so in the
  source tree)
"""
import ctypes
import os
import sys
import threading

THREADS = 4
STEPS = 5


def load_shim():
    if len(sys.argv) > 1:
        path = sys.argv[1]
    else:
        here = os.path.dirname(os.path.abspath(__file__))
        default = os.path.join(here, "..", "..", "..", "build", "examples",
                               "host", "libnvtx_shim.so")
        path = os.environ.get("NVTX_SHIM_PATH", default)
    if not os.path.exists(path):
        sys.exit("nvtx_threads.py: %s not found; build the nvtx_shim target "
                 "and pass the path to libnvtx_shim.so" % path)
    shim = ctypes.CDLL(path)
    shim.shim_push.argtypes = [ctypes.c_char_p]
    shim.shim_mark.argtypes = [ctypes.c_char_p]
    return shim


def worker(shim, results, index):
    shim.shim_push(b"py-worker")
    total = 0
    for step in range(STEPS):
        shim.shim_push(b"py-step")
        total += sum(i * i for i in range(20000))
        shim.shim_pop()
    shim.shim_mark(b"py-mark")
    shim.shim_pop()
    results[index] = total


def main():
    shim = load_shim()
    results = [0] * THREADS
    threads = [
        threading.Thread(target=worker, args=(shim, results, i),
                         name="py-worker-%d" % i) for i in range(THREADS)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print("threads: %d" % THREADS)
    print("steps per thread: %d" % STEPS)
    print("checksum: %d" % sum(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
