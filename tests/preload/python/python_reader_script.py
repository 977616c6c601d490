# Drives python_reader_probe.cc from a real interpreter.
#   lines PROBE   every code object of a few modules: the recorder's line
#                 for each instruction against the interpreter's co_lines()
#   stacks PROBE  one sampling round while a thread is parked 40 frames deep
#   bench PROBE   nanoseconds to read and intern that thread's stack
import ctypes
import sys
import threading
import types

mode, probe_path = sys.argv[1], sys.argv[2]
probe = ctypes.CDLL(probe_path)  # releases the GIL during each call
probe.fp_line_of_offset.restype = ctypes.c_uint
probe.fp_line_of_offset.argtypes = [ctypes.c_int, ctypes.c_char_p,
                                    ctypes.c_ulong, ctypes.c_int, ctypes.c_uint]
probe.fp_time_stack_read.restype = ctypes.c_double
probe.fp_time_stack_read.argtypes = [ctypes.c_uint, ctypes.c_int, ctypes.c_int]
DEPTH = 40


def code_objects(code):
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from code_objects(const)


def check_lines():
    import asyncio.base_events, dataclasses, json.decoder, threading as t
    fmt = 0 if sys.version_info < (3, 11) else 1
    checked = mismatches = 0
    for module in (asyncio.base_events, dataclasses, json.decoder, t):
        source = compile(open(module.__file__).read(), module.__file__, "exec")
        for code in code_objects(source):
            table = code.co_linetable
            for start, end, line in code.co_lines():
                for offset in range(start, end, 2):
                    ours = probe.fp_line_of_offset(fmt, table, len(table),
                                                   code.co_firstlineno, offset)
                    checked += 1
                    if ours != (line or 0):
                        mismatches += 1
                        if mismatches <= 5:
                            print("mismatch %s:%s offset %d: %d != %s" % (
                                module.__name__, code.co_name, offset, ours,
                                line))
    print("checked=%d mismatches=%d" % (checked, mismatches))


parked = threading.Event()
release = threading.Event()


def parked_here():
    parked.set()
    release.wait()  # PARKED_LINE


def descend(n):
    if n <= 1:
        return parked_here()
    return descend(n - 1)  # DESCEND_LINE


def with_parked_thread(action):
    holder = {}

    def run():
        holder["tid"] = threading.get_native_id()
        descend(DEPTH)

    thread = threading.Thread(target=run)
    thread.start()
    parked.wait()
    try:
        return action(holder["tid"])
    finally:
        release.set()
        thread.join()


def sample_round(tid):
    out = ctypes.create_string_buffer(1 << 20)
    probe.fp_sample_round(out, len(out))
    print("parked_tid=%d" % tid)
    print("main_tid=%d" % threading.get_native_id())
    print(out.value.decode())


def bench(tid):
    ns = probe.fp_time_stack_read(tid, 2000, 7)
    out = ctypes.create_string_buffer(1 << 16)
    probe.fp_stack_of(tid, out, len(out))
    frames = out.value.decode().count("|") + 1
    print("stack_read_ns=%.0f frames=%d" % (ns, frames))


if mode == "lines":
    check_lines()
elif mode == "stacks":
    with_parked_thread(sample_round)  # MAIN_LINE
elif mode == "bench":
    DEPTH = int(sys.argv[3]) if len(sys.argv) > 3 else DEPTH
    with_parked_thread(bench)
