# Threads that end while the Python stack sampler reads them
# (python_stacks_e2e_test.cc): 2400 short threads, 32 alive at a time, each
# recursing a little (30 to 90 frames) and ending, so thread states and
# their frames are freed between a sampler's read of the thread list and
# its read of the frames. Prints a deterministic sum and exits with 4.
import sys
import threading

EXIT_CODE = 4
THREADS = 2400
AT_ONCE = 32


def recurse(n, acc):
    if n == 0:
        return acc
    return recurse(n - 1, (acc * 31 + n) % 1000003)


def main():
    results = [0] * THREADS

    def work(i):
        total = 0
        for j in range(40):
            total = (total + recurse(30 + (i + j) % 61, i)) % 1000003
        results[i] = total

    for first in range(0, THREADS, AT_ONCE):
        batch = [threading.Thread(target=work, args=(i,))
                 for i in range(first, min(first + AT_ONCE, THREADS))]
        for t in batch:
            t.start()
        for t in batch:
            t.join()
    print("threads", THREADS, "sum", sum(results) % 1000003)
    sys.stdout.flush()
    return EXIT_CODE


if __name__ == "__main__":
    sys.exit(main())
