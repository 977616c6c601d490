# One hot line (python_stacks_e2e_test.cc): two threads and the main thread
# spend nearly all their CPU time on the line marked HOT_LINE for
# argv[1] seconds (1.5 by default); `feedprof analyze` must name it.
import sys
import threading
import time


def inner_hot(n):
    s = 0
    i = 0
    while i < n: s += i * i % 7; i += 1  # HOT_LINE
    return s


def worker(deadline, out, slot):
    total = 0
    while time.monotonic() < deadline:
        total += inner_hot(20000)
    out[slot] = total


def main():
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 1.5
    deadline = time.monotonic() + seconds
    out = [0, 0, 0]
    threads = [threading.Thread(target=worker, args=(deadline, out, i))
               for i in (1, 2)]
    for t in threads:
        t.start()
    worker(deadline, out, 0)
    for t in threads:
        t.join()
    print("hot", all(v > 0 for v in out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
