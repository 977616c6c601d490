# Interpreter shutdown while the Python stack sampler reads frames
# (python_stacks_e2e_test.cc): daemon threads run deep Python code
# (recursion 300 to 700 frames deep, generators suspended inside it) and are
# still running when the main thread returns, so the interpreter finalizes
# around them. argv[1]: how long the main thread works first, in seconds.
# Prints a result that does not depend on the timing and exits with 5.
import sys
import threading
import time

EXIT_CODE = 5
WARMUP = float(sys.argv[1]) if len(sys.argv) > 1 else 0.3
sys.setrecursionlimit(5000)
threading.stack_size(16 * 1024 * 1024)


def recurse(n, acc):
    if n == 0:
        return acc
    return recurse(n - 1, (acc * 31 + n) % 1000003)


def spin_gen(depth):
    # A generator whose body recurses: suspended and resumed deep inside.
    while True:
        yield recurse(depth, depth)


def daemon(k):
    depth = 300 + k * 100
    g = spin_gen(depth // 2)
    while True:
        recurse(depth, k)
        next(g)


def main():
    for k in range(5):
        threading.Thread(target=daemon, args=(k,), daemon=True).start()
    deadline = time.monotonic() + WARMUP
    checks = 0
    while time.monotonic() < deadline:
        checks += recurse(400, 3) == recurse(400, 3)
    print("result", recurse(500, 11), checks > 0)
    sys.stdout.flush()
    return EXIT_CODE  # the daemon threads still run


if __name__ == "__main__":
    sys.exit(main())
