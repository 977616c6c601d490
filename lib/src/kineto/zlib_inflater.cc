// The zlib inflater (inflater.h), which every system has, and the choice
// between it and ISA-L.
#include <zlib.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "kineto/inflater.h"

namespace feedprof::kineto {
namespace {

class ZlibInflater : public Inflater {
 public:
  ~ZlibInflater() override {
    if (ready_) inflateEnd(&zs_);
  }

  bool StartMember() override {
    if (ready_) return inflateReset(&zs_) == Z_OK;
    // 15 + 16: gzip wrapper only, full window.
    ready_ = inflateInit2(&zs_, 15 + 16) == Z_OK;
    return ready_;
  }

  Status Inflate(const unsigned char** in, size_t* in_size, char** out,
                 size_t* out_size) override {
    zs_.next_in = const_cast<Bytef*>(*in);
    zs_.avail_in = static_cast<uInt>(*in_size);
    zs_.next_out = reinterpret_cast<Bytef*>(*out);
    zs_.avail_out = static_cast<uInt>(*out_size);
    const int rc = inflate(&zs_, Z_NO_FLUSH);
    *in = zs_.next_in;
    *in_size = zs_.avail_in;
    *out = reinterpret_cast<char*>(zs_.next_out);
    *out_size = zs_.avail_out;
    if (rc == Z_STREAM_END) return Status::kMemberEnd;
    if (rc == Z_OK || rc == Z_BUF_ERROR) return Status::kOk;
    error_ = zs_.msg != nullptr ? zs_.msg : "zlib error";
    return Status::kCorrupt;
  }

  std::string error() const override { return error_; }
  const char* name() const override { return "zlib"; }

 private:
  z_stream zs_{};
  bool ready_ = false;
  std::string error_;
};

}  // namespace

#if !FEEDPROF_HAVE_ISAL
std::unique_ptr<Inflater> MakeIsalInflater() { return nullptr; }
#endif

std::unique_ptr<Inflater> MakeZlibInflater() {
  return std::make_unique<ZlibInflater>();
}

std::unique_ptr<Inflater> MakeInflater() {
  const char* choice = std::getenv("FEEDPROF_INFLATE");
  if (choice == nullptr || std::strcmp(choice, "zlib") != 0) {
    if (std::unique_ptr<Inflater> isal = MakeIsalInflater()) return isal;
  }
  return MakeZlibInflater();
}

}  // namespace feedprof::kineto
