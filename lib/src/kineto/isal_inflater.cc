// The ISA-L inflater (inflater.h), built when libisal-dev is present.
#include <isa-l/igzip_lib.h>

#include <memory>
#include <string>

#include "kineto/inflater.h"

namespace feedprof::kineto {
namespace {

const char* DescribeIsalError(int rc) {
  switch (rc) {
    case ISAL_INVALID_BLOCK:
      return "invalid deflate block";
    case ISAL_INVALID_SYMBOL:
      return "invalid deflate symbol";
    case ISAL_INVALID_LOOKBACK:
      return "invalid distance too far back";
    case ISAL_INVALID_WRAPPER:
      return "invalid gzip header";
    case ISAL_UNSUPPORTED_METHOD:
      return "unknown compression method";
    case ISAL_INCORRECT_CHECKSUM:
      return "incorrect data check";
    case ISAL_NEED_DICT:
      return "a preset dictionary is needed";
    default:
      return "ISA-L inflate error";
  }
}

class IsalInflater : public Inflater {
 public:
  // inflate_state holds ~40 KiB of tables and history: on the heap.
  IsalInflater() : state_(std::make_unique<inflate_state>()) {}

  bool StartMember() override {
    isal_inflate_init(state_.get());
    state_->crc_flag = ISAL_GZIP;  // parse the header, check CRC and size
    return true;
  }

  Status Inflate(const unsigned char** in, size_t* in_size, char** out,
                 size_t* out_size) override {
    inflate_state& s = *state_;
    // avail_* are 32-bit: hand over at most 1 GiB at a time.
    constexpr size_t kMaxStep = size_t{1} << 30;
    const size_t in_step = *in_size < kMaxStep ? *in_size : kMaxStep;
    const size_t out_step = *out_size < kMaxStep ? *out_size : kMaxStep;
    s.next_in = const_cast<uint8_t*>(*in);
    s.avail_in = static_cast<uint32_t>(in_step);
    s.next_out = reinterpret_cast<uint8_t*>(*out);
    s.avail_out = static_cast<uint32_t>(out_step);
    const int rc = isal_inflate(&s);
    *in_size -= in_step - s.avail_in;
    *in = s.next_in;
    *out_size -= out_step - s.avail_out;
    *out = reinterpret_cast<char*>(s.next_out);
    if (rc != ISAL_DECOMP_OK) {
      error_ = DescribeIsalError(rc);
      return Status::kCorrupt;
    }
    if (s.block_state == ISAL_BLOCK_FINISH) return Status::kMemberEnd;
    return Status::kOk;
  }

  std::string error() const override { return error_; }
  const char* name() const override { return "ISA-L"; }

 private:
  std::unique_ptr<inflate_state> state_;
  std::string error_;
};

}  // namespace

std::unique_ptr<Inflater> MakeIsalInflater() {
  return std::make_unique<IsalInflater>();
}

}  // namespace feedprof::kineto
