// Where CUPTI collection hands its output: the recorder's functions, behind
// a table of pointers.
//
// Everything cupti_hooks/ produces goes to the recorder (preload/recorder.h):
// encoded packets, interned strings, API-call records, drop counts. Reaching
// it through this table instead of direct calls lets the tests and
// benchmarks run the real conversion and callback code against a capturing
// sink, and lets that code be exercised without a recorder thread running.
#ifndef FEEDPROF_CUPTI_HOOKS_RECORDER_SINK_H_
#define FEEDPROF_CUPTI_HOOKS_RECORDER_SINK_H_

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "preload/event_records.h"
#include "preload/gpu_collection_status.h"

namespace feedprof::cupti {

struct RecorderSink {
  // A complete Packet message (no outer Trace tag); false when dropped.
  bool (*submit_packet)(const uint8_t* packet, size_t size);
  uint32_t (*intern_string)(std::string_view text);
  void (*record_api_call)(const preload::ApiCallRecord& record);
  void (*count_cupti_drops)(uint64_t records_dropped, uint64_t zero_timestamps,
                            uint64_t buffers_dropped);
  uint64_t (*now_ns)();
  // What collection did and why (the line printed about it), once per
  // start. Optional: sinks that do not keep it leave it null.
  void (*record_collection_status)(preload::GpuCollectionState state,
                                   const char* detail) = nullptr;
};

// The sink that feeds preload/recorder.h (what libfeedprof.so uses).
const RecorderSink& ProcessRecorderSink();

}  // namespace feedprof::cupti

#endif  // FEEDPROF_CUPTI_HOOKS_RECORDER_SINK_H_
