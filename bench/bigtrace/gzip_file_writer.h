// Compresses a generated trace the way the PyTorch profiler's users find it.
//
// Kineto traces are usually `.json.gz`; the benchmark reads the same trace
// plain and compressed, so the compressed one is made from the plain file
// rather than generated twice.
#ifndef FEEDPROF_BENCH_BIGTRACE_GZIP_FILE_WRITER_H_
#define FEEDPROF_BENCH_BIGTRACE_GZIP_FILE_WRITER_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"

namespace feedprof::bench {

// Compresses `in_path` into `out_path` as one gzip member at zlib's default
// level (6, as `gzip` writes it); returns the bytes written.
absl::StatusOr<uint64_t> GzipFile(const std::string& in_path,
                                  const std::string& out_path);

}  // namespace feedprof::bench

#endif  // FEEDPROF_BENCH_BIGTRACE_GZIP_FILE_WRITER_H_
