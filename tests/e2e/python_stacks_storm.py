# A storm for the Python stack sampler (python_stacks_e2e_test.cc): for
# DURATION seconds (argv[1], 10 by default) every shape of stack that
# changes under a reader that holds no GIL, at once:
#   - threads recursing 200 to 900 frames deep (beyond the 128 kept) and
#     unwinding through exceptions, caught and raised again on the way up;
#   - generators (nested `yield from`) and coroutines (asyncio tasks
#     awaiting nested coroutines and async generators), suspended and
#     resumed;
#   - threads started and joined in a loop;
#   - functions compiled at run time (compile/exec, then dropped), so code
#     objects are freed and their addresses reused by new ones;
#   - sub-interpreters created, run and destroyed (_xxsubinterpreters in
#     3.10-3.12, _interpreters in 3.13; skipped where neither imports);
#   - os.fork() children that work and end with os._exit(0).
# Each activity repeats one computation whose result is known in advance;
# the output (those results, and how many repetitions disagreed: none) and
# the exit code (7) do not depend on the duration or on the machine's load,
# so a run under the library must print exactly what a run without it
# prints.
import asyncio
import os
import sys
import threading
import time
import warnings

EXIT_CODE = 7
DURATION = float(sys.argv[1]) if len(sys.argv) > 1 else 10.0
DEPTHS = (200, 347, 512, 689, 900)
FORKS = 3

# Python 3.12+ warns that fork() in a threaded process may deadlock; the
# children here touch no lock, and stderr stays clean.
warnings.filterwarnings("ignore", category=DeprecationWarning)
sys.setrecursionlimit(10000)
threading.stack_size(16 * 1024 * 1024)

stop = threading.Event()
mismatches = {}
rounds = {}  # repetitions per activity: on stderr, they vary from run to run
mismatch_lock = threading.Lock()


def check(activity, value, expected):
    with mismatch_lock:
        rounds[activity] = rounds.get(activity, 0) + 1
        if value != expected:
            mismatches[activity] = mismatches.get(activity, 0) + 1


# --- deep recursion and unwinding ---------------------------------------


def recurse(n, acc):
    if n == 0:
        return acc
    return recurse(n - 1, (acc * 31 + n) % 1000003)


class Unwind(Exception):
    pass


def dive(level, depth):
    if level == depth:
        raise Unwind(level)
    try:
        return dive(level + 1, depth)
    except Unwind as e:
        if level % 50 == 0:  # caught, and a new one raised from here
            raise Unwind(e.args[0] * 3 % 1000003 + level) from None
        raise


def deep_round():
    total = 0
    for depth in DEPTHS:
        total = (total * 7 + recurse(depth, 1)) % 1000003
        try:
            dive(0, depth)
        except Unwind as e:
            total = (total * 7 + e.args[0]) % 1000003
    return total


def deep_worker(expected):
    while not stop.is_set():
        check("deep", deep_round(), expected)


# --- generators and coroutines ------------------------------------------


def gen_leaf(n):
    for i in range(n):
        yield i * i % 97


def gen_chain(depth, n):
    if depth == 0:
        yield from gen_leaf(n)
    else:
        for v in gen_chain(depth - 1, n):
            yield v + depth


def generator_round():
    # Twenty chains 40 generators deep, advanced in turns: each is
    # suspended with its whole chain while the others run.
    chains = [gen_chain(40, 30) for _ in range(20)]
    total = 0
    while chains:
        alive = []
        for chain in chains:
            try:
                total = (total * 3 + next(chain)) % 1000003
                alive.append(chain)
            except StopIteration:
                pass
        chains = alive
    return total


async def coro_chain(depth, n):
    if depth == 0:
        await asyncio.sleep(0)
        return n
    value = await coro_chain(depth - 1, n)
    await asyncio.sleep(0)
    return (value * 5 + depth) % 1000003


async def agen(n):
    for i in range(n):
        await asyncio.sleep(0)
        yield i


async def task(k):
    total = await coro_chain(30 + k % 20, k)
    async for v in agen(10):
        total = (total + v * k) % 1000003
    return total


async def coroutine_main():
    results = await asyncio.gather(*(task(k) for k in range(40)))
    return sum(results) % 1000003


def coroutine_round():
    return asyncio.run(coroutine_main())


def suspend_worker(expected_gen, expected_coro):
    while not stop.is_set():
        check("generators", generator_round(), expected_gen)
        check("coroutines", coroutine_round(), expected_coro)


# --- code compiled at run time ------------------------------------------

COMPILED_SOURCE = """
def made_{k}(n):
    def inner_{k}(m):
        return m * {k} % 10007 if m < 3 else inner_{k}(m - 1) + {k}
    return sum(inner_{k}(i % 40) for i in range(n))
"""


def compiled_round(first):
    total = 0
    for k in range(first, first + 20):
        namespace = {}
        code = compile(COMPILED_SOURCE.format(k=k), "<storm-%d>" % k, "exec")
        exec(code, namespace)
        total = (total + namespace["made_%d" % k](60)) % 1000003
        del namespace, code  # the code objects are freed here
    return total


def expected_compiled(first):
    def inner(k, m):
        return m * k % 10007 if m < 3 else inner(k, m - 1) + k

    total = 0
    for k in range(first, first + 20):
        total = (total + sum(inner(k, i % 40) for i in range(60))) % 1000003
    return total


def compile_worker():
    # New names every round: new code objects, at addresses just freed.
    k = 0
    while not stop.is_set():
        first = 1000 + (k % 50) * 20
        check("compiled", compiled_round(first), expected_compiled(first))
        k += 1


# --- sub-interpreters ---------------------------------------------------

try:
    import _interpreters as subinterpreters  # 3.13
except ImportError:
    try:
        import _xxsubinterpreters as subinterpreters  # 3.10-3.12
    except ImportError:
        subinterpreters = None

SUBINTERPRETER_SOURCE = """
import os
def down(n):
    return 1 if n == 0 else down(n - 1) + n % 7
def gen(n):
    for i in range(n):
        yield down(150) + i
os.write({fd}, b"%d\\n" % sum(gen(200)))
"""
fork_lock = threading.Lock()  # no sub-interpreter lives across a fork


def subinterpreter_round():
    read_fd, write_fd = os.pipe()
    try:
        with fork_lock:
            interp = subinterpreters.create()
            try:
                subinterpreters.run_string(
                    interp, SUBINTERPRETER_SOURCE.format(fd=write_fd))
            finally:
                subinterpreters.destroy(interp)
        os.close(write_fd)
        write_fd = -1
        data = b""
        while True:
            chunk = os.read(read_fd, 64)
            if not chunk:
                break
            data += chunk
        return int(data) if data else -1
    finally:
        os.close(read_fd)
        if write_fd >= 0:
            os.close(write_fd)


def subinterpreter_worker(expected):
    while not stop.is_set():
        check("subinterpreters", subinterpreter_round(), expected)


def expected_subinterpreter():
    def down(n):
        return 1 if n == 0 else down(n - 1) + n % 7

    return sum(down(150) + i for i in range(200))


# --- thread churn -------------------------------------------------------


def churn_round():
    results = [0] * 8

    def short(i):
        results[i] = recurse(20 + i * 5, i)

    threads = [threading.Thread(target=short, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return sum(results) % 1000003


# --- fork ---------------------------------------------------------------


def fork_child_work():
    # About a tenth of a second: sampled in the child too.
    total = 0
    for _ in range(10):
        total = deep_round()
        total = (total + generator_round()) % 1000003
    return total


def fork_once(expected):
    read_fd, write_fd = os.pipe()
    with fork_lock:
        pid = os.fork()
    if pid == 0:
        try:
            os.close(read_fd)
            os.write(write_fd, b"%d\n" % fork_child_work())
        finally:
            os._exit(0)
    os.close(write_fd)
    data = b""
    while True:
        chunk = os.read(read_fd, 64)
        if not chunk:
            break
        data += chunk
    os.close(read_fd)
    _, status = os.waitpid(pid, 0)
    ok = os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
    check("fork", int(data) if ok and data else -1, expected)


def main():
    start = time.monotonic()
    expected_deep = deep_round()
    expected_gen = generator_round()
    expected_coro = coroutine_round()
    expected_churn = churn_round()
    expected_fork = (expected_deep + expected_gen) % 1000003
    expected_sub = expected_subinterpreter()

    workers = [
        threading.Thread(target=deep_worker, args=(expected_deep,)),
        threading.Thread(target=deep_worker, args=(expected_deep,)),
        threading.Thread(target=suspend_worker,
                         args=(expected_gen, expected_coro)),
        threading.Thread(target=compile_worker),
    ]
    if subinterpreters is not None:
        workers.append(
            threading.Thread(target=subinterpreter_worker,
                             args=(expected_sub,)))
    for w in workers:
        w.start()

    # The main thread churns threads and forks FORKS times, evenly spread.
    forks = 0
    while True:
        elapsed = time.monotonic() - start
        if elapsed >= DURATION:
            break
        if forks < FORKS and elapsed >= DURATION * (forks + 1) / (FORKS + 1):
            fork_once(expected_fork)
            forks += 1
        check("churn", churn_round(), expected_churn)
    while forks < FORKS:
        fork_once(expected_fork)
        forks += 1
    stop.set()
    for w in workers:
        w.join()

    print("deep", expected_deep)
    print("generators", expected_gen)
    print("coroutines", expected_coro)
    print("compiled", expected_compiled(1000))
    print("churn", expected_churn)
    print("forks", forks, expected_fork)
    print("subinterpreters",
          expected_sub if subinterpreters is not None else "none")
    print("mismatches", sorted(mismatches.items()))
    sys.stdout.flush()
    counts = " ".join("%s=%d" % kv for kv in sorted(rounds.items()))
    print("storm rounds:", counts, file=sys.stderr)
    return EXIT_CODE


if __name__ == "__main__":
    sys.exit(main())
