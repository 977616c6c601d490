// Framing of one packet in a trace file.
//
// A trace is the bytes of `message Trace { repeated Packet packet = 1; }`:
// every packet is tag 0x0A, a varint length and the Packet bytes, and the
// Packet holds exactly one field of its `data` oneof. These helpers open and
// close both levels with back-filled lengths.
#ifndef FEEDPROF_PRELOAD_TRACE_FRAMING_H_
#define FEEDPROF_PRELOAD_TRACE_FRAMING_H_

#include <cstdint>

#include "preload/wire_writer.h"

namespace feedprof::preload {

// Field numbers of `Packet.data` (proto/feedprof.proto).
enum PacketField : uint32_t {
  kPacketHeader = 1,
  kPacketStrings = 2,
  kPacketEvents = 3,
  kPacketHostSamples = 4,
  kPacketCounters = 5,
  kPacketDrops = 6,
  kPacketDevice = 7,
  kPacketThread = 8,
  kPacketClock = 9,
  kPacketFooter = 10,
  kPacketCallSites = 11,
  kPacketNvtxCategory = 12,
  kPacketStream = 13,
  kPacketGpuCollection = 14,
  kPacketNvmlFacts = 15,
  kPacketStackNodes = 16,
  kPacketPythonStackStatus = 17,
};

inline constexpr uint32_t kTracePacketField = 1;

struct PacketScope {
  wire::WireWriter::Nested outer;
  wire::WireWriter::Nested inner;
};

// `reserve`: bytes kept for each length prefix (3 covers 2 MiB packets;
// longer ones are widened by EndNested).
inline PacketScope BeginPacket(wire::WireWriter& w, PacketField field,
                               size_t reserve = 3) {
  PacketScope s;
  s.outer = w.BeginNested(kTracePacketField, reserve);
  s.inner = w.BeginNested(field, reserve);
  return s;
}

inline void EndPacket(wire::WireWriter& w, const PacketScope& s) {
  w.EndNested(s.inner);
  w.EndNested(s.outer);
}

}  // namespace feedprof::preload

#endif  // FEEDPROF_PRELOAD_TRACE_FRAMING_H_
