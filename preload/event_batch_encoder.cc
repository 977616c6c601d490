#include "preload/event_batch_encoder.h"

#include "preload/trace_framing.h"

namespace feedprof::preload {
namespace {

uint64_t Duration(uint64_t start, uint64_t end) {
  return end > start ? end - start : 0;
}

int64_t Delta(uint64_t ts, uint64_t prev) {
  return static_cast<int64_t>(ts - prev);
}

void EncodeRange(const NvtxRangeRecord& r, uint64_t* prev,
                 wire::WireWriter& w) {
  const auto n = w.BeginNested(kBatchRanges, 1);
  w.Sint(1, Delta(r.start_ns, *prev));
  w.Uint(2, Duration(r.start_ns, r.end_ns));
  w.Uint(3, r.name_id);
  w.Uint(4, r.domain_id);
  w.Uint(5, r.category);
  w.Uint(6, r.color);
  w.Uint(7, r.depth);
  w.Uint(8, r.start_end ? 1 : 0);
  w.Uint(9, r.start_tid);
  w.Uint(10, r.payload);
  w.EndNested(n);
  *prev = r.start_ns;
}

void EncodeMark(const NvtxMarkRecord& r, uint64_t* prev, wire::WireWriter& w) {
  const auto n = w.BeginNested(kBatchMarks, 1);
  w.Sint(1, Delta(r.ts_ns, *prev));
  w.Uint(2, r.name_id);
  w.Uint(3, r.domain_id);
  w.Uint(4, r.category);
  w.Uint(5, r.color);
  w.EndNested(n);
  *prev = r.ts_ns;
}

// `prev_correlation`: the correlation id of the previous call of the batch
// (at first, the batch's base_correlation_id).
void EncodeApiCall(const ApiCallRecord& r, uint64_t* prev,
                   uint64_t* prev_correlation, wire::WireWriter& w) {
  const auto n = w.BeginNested(kBatchApiCalls, 1);
  w.Sint(1, Delta(r.start_ns, *prev));
  w.Uint(2, Duration(r.start_ns, r.end_ns));
  w.Uint(3, r.name_id);
  w.Uint(5, r.call_site_id);
  w.Uint(6, r.domain);
  if (r.name_id == 0) w.Uint(7, r.callback_id);  // the name says it
  w.Uint(8, r.bytes);
  w.Int(9, r.return_code);
  w.Sint(10, Delta(r.correlation_id, *prev_correlation));
  w.EndNested(n);
  *prev = r.start_ns;
  *prev_correlation = r.correlation_id;
}

// Correlation id of the first API call among `records`; 0 when none.
uint64_t FirstCorrelationId(const EventRecord* records, size_t count) {
  for (size_t i = 0; i < count; ++i) {
    if (records[i].kind == RecordKind::kApiCall) {
      return records[i].api.correlation_id;
    }
  }
  return 0;
}

}  // namespace

uint64_t RecordStartNs(const EventRecord& record) {
  switch (record.kind) {
    case RecordKind::kNvtxRange:
      return record.range.start_ns;
    case RecordKind::kNvtxMark:
      return record.mark.ts_ns;
    case RecordKind::kApiCall:
      return record.api.start_ns;
  }
  return 0;
}

size_t EncodeEventBatch(uint32_t tid, const EventRecord* records, size_t count,
                        wire::WireWriter& w) {
  if (count == 0 ||
      w.remaining() < kEventBatchOverheadBytes + kMaxEncodedEventBytes) {
    return 0;
  }
  const size_t mark = w.size();
  const uint64_t base = RecordStartNs(records[0]);
  const PacketScope scope = BeginPacket(w, kPacketEvents);
  w.Uint(kBatchTid, tid);
  w.Uint(kBatchBaseTs, base);
  uint64_t prev_correlation = FirstCorrelationId(records, count);
  w.Uint(kBatchBaseCorrelation, prev_correlation);
  uint64_t prev_api = base;
  uint64_t prev_range = base;
  uint64_t prev_mark = base;
  size_t i = 0;
  for (; i < count && w.remaining() >= kMaxEncodedEventBytes + 8; ++i) {
    const EventRecord& r = records[i];
    switch (r.kind) {
      case RecordKind::kNvtxRange:
        EncodeRange(r.range, &prev_range, w);
        break;
      case RecordKind::kNvtxMark:
        EncodeMark(r.mark, &prev_mark, w);
        break;
      case RecordKind::kApiCall:
        EncodeApiCall(r.api, &prev_api, &prev_correlation, w);
        break;
    }
  }
  EndPacket(w, scope);
  if (w.overflowed()) {
    w.Truncate(mark);
    return 0;
  }
  return i;
}

}  // namespace feedprof::preload
