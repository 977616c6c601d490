#include "preload/trace_packets.h"

#include <cstring>

#include "preload/trace_framing.h"

#ifndef FEEDPROF_VERSION
#define FEEDPROF_VERSION "unknown"
#endif

namespace feedprof::preload {
namespace {

void EncodeClockFields(uint64_t monotonic_ns, uint64_t realtime_ns,
                       wire::WireWriter& w) {
  w.Uint(1, monotonic_ns);
  w.Uint(2, realtime_ns);
}

// Calls fn(entry) for each NUL-terminated entry of `bytes`.
template <typename Fn>
void ForEachEntry(const char* bytes, size_t size, Fn fn) {
  size_t start = 0;
  for (size_t i = 0; i < size; ++i) {
    if (bytes[i] == '\0') {
      fn(std::string_view(bytes + start, i - start));
      start = i + 1;
    }
  }
  if (start < size) fn(std::string_view(bytes + start, size - start));
}

}  // namespace

void EncodeHeaderPacket(const ProcessFacts& facts,
                        PlatformEncoder platform_encoder, wire::WireWriter& w) {
  const PacketScope scope = BeginPacket(w, kPacketHeader);
  w.Uint(1, kTraceFormatVersion);
  w.String(2, FEEDPROF_VERSION);
  w.Uint(3, facts.pid);
  w.Uint(4, facts.ppid);
  w.String(5, facts.hostname);
  w.String(6, facts.executable);
  ForEachEntry(facts.cmdline, facts.cmdline_bytes, [&w](std::string_view a) {
    w.Tag(7, wire::WireType::kLengthDelimited);  // empty arguments too
    w.RawVarint(a.size());
    w.RawBytes(a.data(), a.size());
  });
  // -1 ("not set") must be written: proto3 would read an absent field as 0.
  w.Tag(8, wire::WireType::kVarint);
  w.RawVarint(static_cast<uint64_t>(static_cast<int64_t>(facts.rank)));
  w.Tag(9, wire::WireType::kVarint);
  w.RawVarint(static_cast<uint64_t>(static_cast<int64_t>(facts.local_rank)));
  w.Tag(10, wire::WireType::kVarint);
  w.RawVarint(static_cast<uint64_t>(static_cast<int64_t>(facts.world_size)));
  const auto clock = w.BeginNested(11, 1);
  EncodeClockFields(facts.start_monotonic_ns, facts.start_realtime_ns, w);
  w.EndNested(clock);
  if (platform_encoder != nullptr) platform_encoder(w, 12);
  ForEachEntry(facts.environment, facts.environment_bytes,
               [&w](std::string_view kv) {
                 const size_t eq = kv.find('=');
                 if (eq == std::string_view::npos) return;
                 const auto n = w.BeginNested(13, 2);
                 w.String(1, kv.substr(0, eq));
                 w.String(2, kv.substr(eq + 1));
                 w.EndNested(n);
               });
  w.String(14, TraceOriginName(facts.origin));
  w.Uint(15, facts.parent_trace_pid);
  w.Uint(16, facts.sampling_interval_ns);
  EndPacket(w, scope);
}

uint32_t EncodeStringsPacket(uint32_t first_id, uint32_t last_id,
                             StringLookup lookup, void* context,
                             size_t keep_free, wire::WireWriter& w) {
  if (first_id > last_id) return last_id;
  const size_t mark = w.size();
  const PacketScope scope = BeginPacket(w, kPacketStrings);
  uint32_t id = first_id;
  for (; id <= last_id; ++id) {
    const std::string_view text = lookup(context, id);
    // tag + length prefix + id field + value field
    if (w.remaining() < keep_free + text.size() + 24) break;
    const auto n = w.BeginNested(1, 2);
    w.Uint(1, id);
    w.String(2, text);
    w.EndNested(n);
  }
  EndPacket(w, scope);
  if (w.overflowed() || id == first_id) {
    w.Truncate(mark);
    return first_id - 1;
  }
  return id - 1;
}

namespace {

void EncodeThreadInfoFields(uint32_t tid, std::string_view name, bool is_main,
                            wire::WireWriter& w) {
  w.Uint(1, tid);
  w.String(2, name);
  w.Bool(3, is_main);
}

}  // namespace

void EncodeThreadInfoPacket(uint32_t tid, std::string_view name, bool is_main,
                            wire::WireWriter& w) {
  const PacketScope scope = BeginPacket(w, kPacketThread, 1);
  EncodeThreadInfoFields(tid, name, is_main, w);
  EndPacket(w, scope);
}

size_t EncodeThreadInfoPacket(uint32_t tid, std::string_view name, bool is_main,
                              uint8_t* buffer, size_t capacity) {
  wire::WireWriter w(buffer, capacity);
  const auto thread = w.BeginNested(kPacketThread);
  EncodeThreadInfoFields(tid, name, is_main, w);
  w.EndNested(thread);
  return w.overflowed() ? 0 : w.size();
}

size_t EncodeGpuCollectionPacket(uint32_t state, std::string_view detail,
                                 uint8_t* buffer, size_t capacity) {
  wire::WireWriter w(buffer, capacity);
  const auto status = w.BeginNested(kPacketGpuCollection);
  w.Uint(1, state);
  w.String(2, detail);
  w.EndNested(status);
  return w.overflowed() ? 0 : w.size();
}

void EncodeClockSnapshotPacket(uint64_t monotonic_ns, uint64_t realtime_ns,
                               wire::WireWriter& w) {
  const PacketScope scope = BeginPacket(w, kPacketClock, 1);
  EncodeClockFields(monotonic_ns, realtime_ns, w);
  EndPacket(w, scope);
}

void EncodeDropCountsPacket(const DropTotals& t, wire::WireWriter& w) {
  const PacketScope scope = BeginPacket(w, kPacketDrops, 1);
  w.Uint(1, t.events_recorded);
  w.Uint(2, t.events_dropped);
  w.Uint(3, t.cupti_records_dropped);
  w.Uint(4, t.zero_timestamp_records);
  w.Uint(5, t.cupti_buffers_dropped);
  w.Uint(6, t.strings_dropped);
  w.Uint(7, t.samples_dropped);
  w.Uint(8, t.bytes_written);
  w.Uint(9, t.packets_dropped);
  EndPacket(w, scope);
}

void EncodeFooterPacket(uint64_t end_ns, std::string_view reason,
                        int32_t signal, wire::WireWriter& w) {
  const PacketScope scope = BeginPacket(w, kPacketFooter, 1);
  w.Uint(1, end_ns);
  w.String(2, reason);
  w.Int(3, signal);
  EndPacket(w, scope);
}

}  // namespace feedprof::preload
