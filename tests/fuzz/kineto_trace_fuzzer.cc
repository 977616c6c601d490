// Fuzzes the Kineto (PyTorch profiler) JSON and JSON.gz reader.
//
// Kineto traces come from many PyTorch versions and exporters, and arrive
// truncated or hand-edited; the streaming tokenizer, the gzip input and the
// event mapper must turn any bytes into a timeline or a clear error. Each
// input is read as written (gzip bytes go through the gzip path by their
// magic), and input that is not gzip is also read gzip-compressed: the two
// reads must agree, which checks the decompressing byte source against the
// plain one at every chunk boundary the compressor happens to make. The
// plain input is read once more through the batched, multi-threaded path
// (forced, with batch and buffer sizes taken from the input's length so
// that events straddle every border), which must give the same result,
// error message included, as the serial read.
#include <zlib.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "feedprof/kineto_reader.h"
#include "kineto/kineto_read_options.h"
#include "tests/fuzz/fuzz_input_file.h"

namespace {

// `bytes` as one gzip member (fast level: the point is the framing).
std::string Gzip(const uint8_t* data, size_t size) {
  z_stream z{};
  if (deflateInit2(&z, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    std::abort();
  }
  std::string out(deflateBound(&z, size), '\0');
  z.next_in = const_cast<Bytef*>(data);
  z.avail_in = static_cast<uInt>(size);
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  if (deflate(&z, Z_FINISH) != Z_STREAM_END) std::abort();
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

size_t EventCount(const feedprof::Timeline& t) {
  return t.gpu_ops.size() + t.api_calls.size() + t.syncs.size() +
         t.ranges.size() + t.marks.size() + t.processes.size() +
         t.threads.size() + t.devices.size();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static feedprof::fuzz::FuzzInputFile plain_input(".json");
  static feedprof::fuzz::FuzzInputFile gzip_input(".json.gz");

  const absl::StatusOr<feedprof::Timeline> plain =
      feedprof::ReadKinetoTrace(plain_input.Write(data, size));
  const bool is_gzip = size >= 2 && data[0] == 0x1f && data[1] == 0x8b;
  if (is_gzip) return 0;

  feedprof::kineto::KinetoReadOptions batched;
  batched.event_threads = 1 + static_cast<int>(size % 2);
  batched.threads_from_file_bytes = 0;
  batched.batch_bytes = 1 + size % 509;
  batched.buffer_bytes = 256 + size % 3001;
  const absl::StatusOr<feedprof::Timeline> parallel =
      feedprof::kineto::ReadKinetoTraceWithOptions(plain_input.path(), batched);
  if (plain.status() != parallel.status() ||
      (plain.ok() && (EventCount(*plain) != EventCount(*parallel) ||
                      plain->warnings != parallel->warnings))) {
    std::fprintf(stderr,
                 "serial and batched reads disagree: serial %s (%zu events), "
                 "batched %s (%zu events)\n",
                 plain.status().ToString().c_str(),
                 plain.ok() ? EventCount(*plain) : 0,
                 parallel.status().ToString().c_str(),
                 parallel.ok() ? EventCount(*parallel) : 0);
    std::abort();
  }

  const absl::StatusOr<feedprof::Timeline> unzipped =
      feedprof::ReadKinetoTrace(gzip_input.Write(Gzip(data, size)));
  if (plain.ok() != unzipped.ok() ||
      (plain.ok() && EventCount(*plain) != EventCount(*unzipped))) {
    std::fprintf(stderr,
                 "plain and gzip reads disagree: plain %s (%zu events), "
                 "gzip %s (%zu events)\n",
                 plain.status().ToString().c_str(),
                 plain.ok() ? EventCount(*plain) : 0,
                 unzipped.status().ToString().c_str(),
                 unzipped.ok() ? EventCount(*unzipped) : 0);
    std::abort();
  }
  return 0;
}
