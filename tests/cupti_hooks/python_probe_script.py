# Drives python_probe.cc from a real interpreter. PyDLL keeps the GIL during
# the call; CDLL releases it (as PyTorch does around its CUDA calls): the
# recorder must find the same Python frames either way.
import ctypes
import sys

probe = ctypes.PyDLL(sys.argv[1])
probe.probe_call_site.restype = ctypes.c_uint
no_gil = ctypes.CDLL(sys.argv[1])
no_gil.probe_call_site.restype = ctypes.c_uint


def capture(lib):
    out = ctypes.create_string_buffer(4096)
    site = lib.probe_call_site(out, 4096)  # CAPTURE_LINE
    return site, out.value.decode()


class Loader:
    def next_batch(self):
        return capture(probe)  # PROBE_LINE


def train_step():
    return Loader().next_batch()


ids = set()
for step in range(3):
    site, text = train_step()
    ids.add(site)
    if text:
        print("first:" + text)
print("distinct:%d" % len(ids))
site, text = capture(no_gil)  # NOGIL_LINE
print("nogil:" + text)
