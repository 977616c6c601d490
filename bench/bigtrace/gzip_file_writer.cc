#include "bench/bigtrace/gzip_file_writer.h"

#include <zlib.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace feedprof::bench {
namespace {

absl::Status WriteError(const std::string& path) {
  return absl::InternalError(
      absl::StrCat(path, ": cannot write: ", std::strerror(errno),
                   "; free disk space or choose another directory"));
}

}  // namespace

absl::StatusOr<uint64_t> GzipFile(const std::string& in_path,
                                  const std::string& out_path) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> in(
      std::fopen(in_path.c_str(), "rb"), &std::fclose);
  if (!in) {
    return absl::NotFoundError(
        absl::StrCat(in_path, ": cannot open: ", std::strerror(errno)));
  }
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> out(
      std::fopen(out_path.c_str(), "wb"), &std::fclose);
  if (!out) return WriteError(out_path);
  z_stream zs{};
  // 15 + 16: a gzip wrapper around a full-window deflate stream.
  if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
                   Z_DEFAULT_STRATEGY) != Z_OK) {
    return absl::InternalError("zlib could not be initialised");
  }
  std::vector<unsigned char> input(1 << 20);
  std::vector<unsigned char> output(1 << 20);
  uint64_t written = 0;
  int flush = Z_NO_FLUSH;
  bool ok = true;
  while (ok && flush != Z_FINISH) {
    const size_t n = std::fread(input.data(), 1, input.size(), in.get());
    flush = n < input.size() ? Z_FINISH : Z_NO_FLUSH;
    zs.next_in = input.data();
    zs.avail_in = static_cast<uInt>(n);
    do {
      zs.next_out = output.data();
      zs.avail_out = static_cast<uInt>(output.size());
      deflate(&zs, flush);
      const size_t produced = output.size() - zs.avail_out;
      ok = ok && std::fwrite(output.data(), 1, produced, out.get()) == produced;
      written += produced;
    } while (zs.avail_out == 0);
  }
  deflateEnd(&zs);
  if (!ok || std::ferror(in.get()) || std::fflush(out.get()) != 0) {
    return WriteError(out_path);
  }
  return written;
}

}  // namespace feedprof::bench
