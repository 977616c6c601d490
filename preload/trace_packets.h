// Encoders of the packets the writer produces besides event batches: the
// header, interned strings, thread info, clock snapshots, drop counts and the
// footer. Each appends one framed Trace.packet to a WireWriter; on overflow
// the writer is left overflowed and the caller drops the packet.
#ifndef FEEDPROF_PRELOAD_TRACE_PACKETS_H_
#define FEEDPROF_PRELOAD_TRACE_PACKETS_H_

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "preload/process_facts.h"
#include "preload/wire_writer.h"

namespace feedprof::preload {

inline constexpr uint32_t kTraceFormatVersion = 1;

// Writes a `Platform` sub-message as field `field_number` of the message
// being written (the host module provides it).
using PlatformEncoder = void (*)(wire::WireWriter& w, uint32_t field_number);

void EncodeHeaderPacket(const ProcessFacts& facts,
                        PlatformEncoder platform_encoder, wire::WireWriter& w);

// Source of interned strings for EncodeStringsPacket.
using StringLookup = std::string_view (*)(void* context, uint32_t id);

// Writes ids first_id..last_id (inclusive) as one InternedStrings packet,
// stopping early when fewer than `keep_free` bytes would remain. Returns the
// last id written (first_id - 1 when none fit).
uint32_t EncodeStringsPacket(uint32_t first_id, uint32_t last_id,
                             StringLookup lookup, void* context,
                             size_t keep_free, wire::WireWriter& w);

void EncodeThreadInfoPacket(uint32_t tid, std::string_view name, bool is_main,
                            wire::WireWriter& w);

// The same packet without the Trace framing, as producers hand packets to
// SubmitPacket (the host sampler's announcements, nvtxNameOsThread):
// `Packet { thread: ThreadInfo }` in `buffer`. Returns its size, or 0 when
// it does not fit.
size_t EncodeThreadInfoPacket(uint32_t tid, std::string_view name, bool is_main,
                              uint8_t* buffer, size_t capacity);

// `Packet { gpu_collection: GpuCollection }` without the Trace framing, for
// SubmitPacket-style producers. `state` is a GpuCollectionState number;
// `detail` the line the library printed about it. Returns the size, or 0
// when it does not fit.
size_t EncodeGpuCollectionPacket(uint32_t state, std::string_view detail,
                                 uint8_t* buffer, size_t capacity);

void EncodeClockSnapshotPacket(uint64_t monotonic_ns, uint64_t realtime_ns,
                               wire::WireWriter& w);

struct DropTotals {
  uint64_t events_recorded = 0;
  uint64_t events_dropped = 0;
  uint64_t cupti_records_dropped = 0;
  uint64_t zero_timestamp_records = 0;
  uint64_t cupti_buffers_dropped = 0;
  uint64_t strings_dropped = 0;
  uint64_t samples_dropped = 0;
  uint64_t bytes_written = 0;
  uint64_t packets_dropped = 0;
};

void EncodeDropCountsPacket(const DropTotals& totals, wire::WireWriter& w);

// `reason`: "exit", "signal", "exec" or "shutdown".
void EncodeFooterPacket(uint64_t end_ns, std::string_view reason,
                        int32_t signal, wire::WireWriter& w);

}  // namespace feedprof::preload

#endif  // FEEDPROF_PRELOAD_TRACE_PACKETS_H_
