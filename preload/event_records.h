// Fixed-size records the hot path appends to a per-thread buffer.
//
// Recording must cost little more than reading the clock, so a host event is
// a small POD copied into the calling thread's buffer; the writer thread
// later turns a run of them into one delta-encoded EventBatch packet. Strings
// are already interned ids here, never text.
#ifndef FEEDPROF_PRELOAD_EVENT_RECORDS_H_
#define FEEDPROF_PRELOAD_EVENT_RECORDS_H_

#include <cstdint>

namespace feedprof::preload {

enum class RecordKind : uint8_t {
  kNvtxRange = 1,
  kNvtxMark = 2,
  kApiCall = 3,
};

struct NvtxRangeRecord {
  uint64_t start_ns;
  uint64_t end_ns;
  uint64_t payload;
  uint32_t name_id;
  uint32_t domain_id;
  uint32_t category;
  uint32_t color;
  uint32_t depth;
  uint32_t start_tid;  // 0: started on the recording thread
  bool start_end;      // true: nvtxRangeStart/End, false: push/pop
};

struct NvtxMarkRecord {
  uint64_t ts_ns;
  uint32_t name_id;
  uint32_t domain_id;
  uint32_t category;
  uint32_t color;
};

struct ApiCallRecord {
  uint64_t start_ns;
  uint64_t end_ns;
  uint64_t correlation_id;
  uint64_t bytes;
  uint32_t name_id;
  uint32_t call_site_id;
  uint32_t callback_id;
  int32_t return_code;
  uint8_t domain;  // trace ApiDomain numbering
};

// One slot of a per-thread buffer.
struct EventRecord {
  RecordKind kind;
  union {
    NvtxRangeRecord range;
    NvtxMarkRecord mark;
    ApiCallRecord api;
  };
};

}  // namespace feedprof::preload

#endif  // FEEDPROF_PRELOAD_EVENT_RECORDS_H_
