// Builds one EventBatch packet at a time in a fixed buffer.
//
// CUPTI records arrive in bulk on the buffer-completed callback; each run of
// them becomes one `Packet { events: EventBatch }` for one producer (the GPU
// stream with tid 0, or one host thread for API records). Each repeated
// field is delta-encoded on its own (proto/feedprof.proto): the encoder
// keeps the previous timestamp per field, so events of different fields may
// interleave on the wire in arrival order. The buffer never grows: when the
// room left drops below one event, the caller submits and begins again.
#ifndef FEEDPROF_CUPTI_HOOKS_EVENT_BATCH_ENCODER_H_
#define FEEDPROF_CUPTI_HOOKS_EVENT_BATCH_ENCODER_H_

#include <cstddef>
#include <cstdint>

#include "preload/event_batch_encoder.h"
#include "preload/trace_framing.h"
#include "preload/wire_writer.h"

namespace feedprof::cupti {

using enum preload::EventBatchField;

class EventBatchEncoder {
 public:
  // The largest single event written (a kernel with every field set).
  static constexpr size_t kMaxEventBytes = 256;

  EventBatchEncoder(uint8_t* buffer, size_t capacity)
      : writer_(buffer, capacity) {}

  bool open() const { return open_; }
  uint32_t tid() const { return tid_; }
  uint32_t event_count() const { return events_; }
  // True when one more event may not fit.
  bool nearly_full() const { return writer_.remaining() < kMaxEventBytes + 8; }

  void Begin(uint32_t tid) {
    writer_.Truncate(0);
    packet_ = writer_.BeginNested(preload::kPacketEvents, 4);
    writer_.Uint(kBatchTid, tid);
    tid_ = tid;
    open_ = true;
    has_base_ = false;
    events_ = 0;
    for (uint64_t& p : previous_) p = 0;
  }

  // Zig-zag delta of `ts` against the previous event of `field`.
  int64_t Delta(uint32_t field, uint64_t ts) {
    if (!has_base_) {
      has_base_ = true;
      writer_.Uint(kBatchBaseTs, ts);
      for (uint64_t& p : previous_) p = ts;
    }
    uint64_t& previous = previous_[field & 15];
    const int64_t delta =
        static_cast<int64_t>(ts) - static_cast<int64_t>(previous);
    previous = ts;
    return delta;
  }

  wire::WireWriter& writer() { return writer_; }
  void CountEvent() { ++events_; }

  // Closes the packet; returns its bytes (null when it overflowed, which
  // the kMaxEventBytes margin rules out).
  const uint8_t* Finish(size_t* size) {
    open_ = false;
    writer_.EndNested(packet_);
    if (writer_.overflowed()) {
      *size = 0;
      return nullptr;
    }
    *size = writer_.size();
    return writer_.data();
  }

 private:
  wire::WireWriter writer_;
  wire::WireWriter::Nested packet_;
  uint64_t previous_[16] = {};
  uint32_t tid_ = 0;
  uint32_t events_ = 0;
  bool open_ = false;
  bool has_base_ = false;
};

}  // namespace feedprof::cupti

#endif  // FEEDPROF_CUPTI_HOOKS_EVENT_BATCH_ENCODER_H_
