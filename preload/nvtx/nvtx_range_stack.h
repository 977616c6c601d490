// The per-thread stack of open nvtxRangePush ranges.
//
// A push/pop range is recorded once, when it is popped, with its start, end
// and nesting depth, so the open ranges live on a fixed-size per-thread
// stack until then: no allocation, no lock. NVTX keeps one push/pop stack
// per domain and thread; here all domains share one array and each entry
// carries its domain, so a pop of domain D takes the innermost open entry of
// D (almost always the top) and its depth counts only entries of D.
// Pushes past kMaxDepth are not kept but counted, and the same number of
// later pops are swallowed so that the ranges that were kept still pair
// with their own pops. A pop with no open range of its domain is ignored.
#ifndef FEEDPROF_PRELOAD_NVTX_NVTX_RANGE_STACK_H_
#define FEEDPROF_PRELOAD_NVTX_NVTX_RANGE_STACK_H_

#include <cstdint>
#include <cstring>

namespace feedprof::preload::nvtx {

struct OpenRange {
  uint64_t start_ns;
  uint64_t payload;
  uint32_t name_id;
  uint32_t domain_id;
  uint32_t category;
  uint32_t color;
  uint32_t depth;  // among open ranges of the same domain, 0 = outermost
};

class RangeStack {
 public:
  static constexpr uint32_t kMaxDepth = 64;

  enum class PopResult { kPopped, kSwallowed, kEmpty };

  // Opens `range` (its depth is filled in here). Returns the depth, or -1
  // when the stack is full and the push was counted as dropped.
  int Push(const OpenRange& range) {
    if (size_ == kMaxDepth) {
      ++overflow_;
      ++dropped_;
      return -1;
    }
    OpenRange& slot = entries_[size_];
    slot = range;
    slot.depth = 0;
    for (uint32_t i = size_; i > 0; --i) {
      if (entries_[i - 1].domain_id == range.domain_id) {
        slot.depth = entries_[i - 1].depth + 1;
        break;
      }
    }
    ++size_;
    return static_cast<int>(slot.depth);
  }

  // Closes the innermost open range of `domain_id` into `*closed`.
  PopResult Pop(uint32_t domain_id, OpenRange* closed) {
    if (overflow_ > 0) {
      --overflow_;
      return PopResult::kSwallowed;
    }
    for (uint32_t i = size_; i > 0; --i) {
      if (entries_[i - 1].domain_id != domain_id) continue;
      *closed = entries_[i - 1];
      if (i != size_) {
        std::memmove(&entries_[i - 1], &entries_[i],
                     (size_ - i) * sizeof(OpenRange));
      }
      --size_;
      return PopResult::kPopped;
    }
    return PopResult::kEmpty;
  }

  uint32_t size() const { return size_; }
  // Pushes dropped because the stack was full, since the thread began.
  uint64_t dropped() const { return dropped_; }

 private:
  uint32_t size_;
  uint32_t overflow_;  // pushes not kept whose pops are still to come
  uint64_t dropped_;
  OpenRange entries_[kMaxDepth];
};

}  // namespace feedprof::preload::nvtx

#endif  // FEEDPROF_PRELOAD_NVTX_NVTX_RANGE_STACK_H_
