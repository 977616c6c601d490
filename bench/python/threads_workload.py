# The workload of the Python stack sampling benchmark: N threads that each
# compute ~2 ms and sleep ~8 ms, 20 frames deep, for a given time.
import sys
import threading
import time

THREADS = int(sys.argv[1]) if len(sys.argv) > 1 else 32
SECONDS = float(sys.argv[2]) if len(sys.argv) > 2 else 10.0


def work(depth, until):
    if depth > 0:
        return work(depth - 1, until)
    total = 0
    while time.monotonic() < until:
        busy_until = time.monotonic() + 0.002
        while time.monotonic() < busy_until:
            total += sum(range(200))
        time.sleep(0.008)
    return total


until = time.monotonic() + SECONDS
threads = [threading.Thread(target=work, args=(20, until)) for _ in range(THREADS)]
for t in threads:
    t.start()
for t in threads:
    t.join()
print("done")
