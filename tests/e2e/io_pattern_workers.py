"""Worker processes that read many small files, for io_pattern_e2e_test.cc.

    python3 io_pattern_workers.py pool DIR FILES_PER_WORKER SIZE
    python3 io_pattern_workers.py dataloader DIR FILES SIZE

Both write the files first (SIZE bytes each), write them back and drop
their pages (os.posix_fadvise POSIX_FADV_DONTNEED), so that each worker's
reads go to storage; then:

  pool        a multiprocessing pool of 2 forked workers; each takes one
              task (a barrier makes sure neither takes both) and reads
              FILES_PER_WORKER files whole with os.read calls of 4 KiB;
  dataloader  a torch.utils.data.DataLoader with num_workers=2 (forked)
              over a Dataset whose item i is file i, read the same way
              (exit code 3 when torch cannot be imported).

Each worker counts its own read calls and bytes. Printed, as "KEY VALUE"
lines, for each worker: "worker PID", then "PID_read_calls" and
"PID_read_bytes", "PID_messages" (the task or index messages the worker
took from its pipe, each a read of a 4-byte length and a read of the body,
the stop message included), "PID_first_read_ns" and "PID_last_read_ns"
(CLOCK_MONOTONIC, the trace's clock: when its first read began and its
last one ended), and "PID_quiet_from_ns" and "PID_quiet_until_ns" (the
quiet around them, below).

Around its reads a worker is quiet for QUIET_S (it reads nothing but its
messages): a pool worker sleeps when it starts and after its task, a
DataLoader worker sleeps in its worker_init_fn, and the main process sleeps
after the last batch, before the loader stops its workers. The samples around a worker's
reads (and, for a pool worker, the first and last samples of its trace:
the sampler restarts in a forked child on its own thread) then hold every
read it made.
"""

import concurrent.futures
import multiprocessing as mp
import os
import sys
import time

CHUNK = 4096
QUIET_S = 0.06  # longer than two 10 ms sampling intervals, with room


def write_files(paths, size):
    data = bytes((ord("a") + i % 26) for i in range(size))
    fds = []
    for path in paths:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.write(fd, data)
        fds.append(fd)
    # In parallel: the files share their journal commits (hundreds of
    # fsyncs one after the other take seconds).
    with concurrent.futures.ThreadPoolExecutor(16) as pool:
        list(pool.map(os.fdatasync, fds))
    for fd in fds:
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        os.close(fd)


def read_whole(path, counts):
    """Reads the file with os.read calls of CHUNK bytes up to its size.

    counts: [read calls, bytes, first read's start, last read's end].
    """
    if counts[2] == 0:
        counts[2] = time.monotonic_ns()
    fd = os.open(path, os.O_RDONLY)
    try:
        size = os.fstat(fd).st_size
        got = 0
        while got < size:
            data = os.read(fd, CHUNK)
            counts[0] += 1
            if not data:
                raise OSError("%s: short file" % path)
            got += len(data)
            counts[1] += len(data)
    finally:
        os.close(fd)
    counts[3] = time.monotonic_ns()


def print_worker(pid, calls, nbytes, messages, first_ns, last_ns,
                 quiet_from_ns, quiet_until_ns):
    print("worker", pid)
    print("%d_read_calls %d" % (pid, calls))
    print("%d_read_bytes %d" % (pid, nbytes))
    print("%d_messages %d" % (pid, messages))
    print("%d_first_read_ns %d" % (pid, first_ns))
    print("%d_last_read_ns %d" % (pid, last_ns))
    print("%d_quiet_from_ns %d" % (pid, quiet_from_ns))
    print("%d_quiet_until_ns %d" % (pid, quiet_until_ns))


# ------------------------------------------------------------------ pool --

_barrier = None
_quiet_from_ns = 0  # in a worker: when its quiet start began


def _worker_start(_=None):
    global _quiet_from_ns
    _quiet_from_ns = time.monotonic_ns()
    time.sleep(QUIET_S)


def _pool_task(paths):
    # Both workers hold a task before either reads: each took one.
    _barrier.wait(timeout=30)
    counts = [0, 0, 0, 0]
    for path in paths:
        read_whole(path, counts)
    time.sleep(QUIET_S)
    return (os.getpid(), *counts, _quiet_from_ns, time.monotonic_ns())


def run_pool(directory, files_per_worker, size):
    global _barrier
    paths = [os.path.join(directory, "pool-%d.bin" % i)
             for i in range(2 * files_per_worker)]
    write_files(paths, size)
    ctx = mp.get_context("fork")
    _barrier = ctx.Barrier(2)
    tasks = [paths[:files_per_worker], paths[files_per_worker:]]
    pool = ctx.Pool(2, initializer=_worker_start)
    try:
        results = pool.map(_pool_task, tasks, chunksize=1)
    finally:
        pool.close()
        pool.join()
    for path in paths:
        os.unlink(path)
    for pid, calls, nbytes, first_ns, last_ns, quiet_from, quiet_until in (
            results):
        # The task, and the None that stops the worker.
        print_worker(pid, calls, nbytes, 2, first_ns, last_ns, quiet_from,
                     quiet_until)
    return 0


# ------------------------------------------------------------ dataloader --

def run_dataloader(directory, files, size):
    try:
        import torch  # noqa: F401
        from torch.utils.data import DataLoader, Dataset
    except ImportError as e:
        print("torch unavailable:", e, file=sys.stderr)
        return 3

    paths = [os.path.join(directory, "item-%d.bin" % i) for i in range(files)]
    write_files(paths, size)

    class Files(Dataset):
        def __len__(self):
            return len(paths)

        def __getitem__(self, i):
            counts = [0, 0, 0, 0]
            read_whole(paths[i], counts)
            return (os.getpid(), *counts, _quiet_from_ns)

    loader = DataLoader(Files(), batch_size=8, num_workers=2,
                        multiprocessing_context="fork",
                        worker_init_fn=_worker_start,
                        collate_fn=lambda items: items)
    workers = {}
    batches = 0
    quiet_until = 0
    for batch in loader:
        batches += 1
        for pid, calls, nbytes, first_ns, last_ns, quiet_from in batch:
            w = workers.setdefault(pid, [0, 0, 0, first_ns, last_ns, 0])
            w[0] += calls
            w[1] += nbytes
            w[3] = min(w[3], first_ns)
            w[4] = max(w[4], last_ns)
            w[5] = quiet_from
        workers[batch[0][0]][2] += 1
        if batches == len(loader):
            # Every read is done: quiet before the loader stops its workers.
            time.sleep(QUIET_S)
            quiet_until = time.monotonic_ns()
    for path in paths:
        os.unlink(path)
    for pid in sorted(workers):
        calls, nbytes, worker_batches, first_ns, last_ns, quiet_from = (
            workers[pid])
        # Each batch's indices, and the None that stops the worker.
        print_worker(pid, calls, nbytes, worker_batches + 1, first_ns, last_ns,
                     quiet_from, quiet_until)
    return 0


def main(argv):
    if len(argv) != 5 or argv[1] not in ("pool", "dataloader"):
        print(__doc__, file=sys.stderr)
        return 2
    mode, directory, n, size = argv[1], argv[2], int(argv[3]), int(argv[4])
    if mode == "pool":
        return run_pool(directory, n, size)
    return run_dataloader(directory, n, size)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
