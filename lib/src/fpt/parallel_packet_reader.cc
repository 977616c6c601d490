#include "fpt/parallel_packet_reader.h"

#include <string>
#include <string_view>
#include <vector>

#include "common/ordered_batch_pipeline.h"
#include "fpt/event_batch_decoder.h"

namespace feedprof::fpt {
namespace {

// `Packet.events`: field 3, wire type 2 (length-delimited).
constexpr uint8_t kEventsTag = 0x1A;

// True when `packet` is exactly one `Packet.events` field; `*events` is
// then the EventBatch bytes inside it. Other packets are parsed whole.
// Parsing those bytes as an EventBatch succeeds exactly when parsing the
// packet does: an EventBatch has no string field for the UTF-8 repair to
// mend.
bool IsEventBatchPacket(std::string_view packet, std::string_view* events) {
  if (packet.size() < 2 || static_cast<uint8_t>(packet[0]) != kEventsTag) {
    return false;
  }
  uint64_t length = 0;
  size_t i = 1;
  for (int shift = 0; i < packet.size() && shift < 64; shift += 7) {
    const auto byte = static_cast<uint8_t>(packet[i++]);
    length |= static_cast<uint64_t>(byte & 0x7F) << shift;
    if ((byte & 0x80) == 0) {
      if (length != packet.size() - i) return false;
      *events = packet.substr(i);
      return true;
    }
  }
  return false;
}

// A run of consecutive packets: EventBatch packets for a worker to parse
// and decode, then at most one other packet, parsed by the reader's thread,
// that the builder takes after the batch's events.
struct PacketBatch {
  struct EventPacket {
    size_t begin = 0;  // its EventBatch bytes in `bytes`
    size_t size = 0;
    RawPacket packet;
  };
  std::string bytes;
  std::vector<EventPacket> event_packets;
  // The packet after the events, when `has_other`; `other_parsed` false
  // when it does not parse (the stream ends there).
  bool has_other = false;
  bool other_parsed = false;
  bool other_repaired = false;
  RawPacket other_packet;
  trace::Packet other;
  uint64_t end_offset = 0;  // where the batch's last packet ends

  // Filled by ReadPacketBatch: the events of event_packets[0, parsed); when
  // `parsed` < event_packets.size(), that packet does not parse.
  size_t parsed = 0;
  DecodedEvents events;
  trace::EventBatch message;  // reused: its repeated fields keep capacity

  void Clear() {
    bytes.clear();
    event_packets.clear();
    has_other = false;
    other_parsed = false;
    other_repaired = false;
    end_offset = 0;
    parsed = 0;
    events.Clear();
  }
};

void ReadPacketBatch(PacketBatch* batch) {
  for (const PacketBatch::EventPacket& p : batch->event_packets) {
    if (!batch->message.ParseFromArray(batch->bytes.data() + p.begin,
                                       static_cast<int>(p.size))) {
      return;
    }
    // The pid is the builder's to set (AddDecodedEvents).
    DecodeEventBatch(batch->message, 0, batch->events.Vectors(),
                     &batch->events.times);
    ++batch->parsed;
  }
}

using PacketBatchPipeline = common::OrderedBatchPipeline<PacketBatch>;

}  // namespace

void ReadPacketsInParallel(PacketStreamReader& packets,
                           FeedprofTimelineBuilder& builder,
                           const ParallelPacketOptions& options,
                           const std::function<void(uint64_t)>& on_progress) {
  const size_t workers = options.worker_threads;
  PacketBatchPipeline pipeline(ReadPacketBatch, workers, 2 * (workers + 1) + 2);
  bool stopped = false;  // a packet did not parse: use nothing after it
  // Gives the builder what a batch holds, in order.
  auto apply = [&](PacketBatch* batch) {
    if (!stopped) {
      if (batch->parsed > 0) builder.AddDecodedEvents(batch->events);
      if (batch->parsed < batch->event_packets.size()) {
        packets.EndCorruptAt(batch->event_packets[batch->parsed].packet);
        stopped = true;
      } else if (batch->has_other && !batch->other_parsed) {
        packets.EndCorruptAt(batch->other_packet);
        stopped = true;
      } else {
        if (batch->has_other) {
          if (batch->other_repaired) packets.CountRepaired();
          builder.AddPacket(batch->other);
        }
        on_progress(batch->end_offset);
      }
    }
    pipeline.Release(batch);
  };
  auto apply_read = [&](bool wait) {
    while (PacketBatch* batch = pipeline.TakeOldest(wait)) apply(batch);
  };

  std::string scratch;  // the UTF-8 repair's
  PacketBatch* filling = nullptr;
  RawPacket raw;
  bool reading = true;
  while (reading && !stopped) {
    while (filling == nullptr) {
      filling = pipeline.TryAcquire();
      if (filling == nullptr) apply(pipeline.TakeOldest(true));
    }
    const size_t begin = filling->bytes.size();
    if (!packets.NextRaw(&filling->bytes, &raw)) {
      reading = false;
      break;
    }
    const std::string_view packet(filling->bytes.data() + begin,
                                  filling->bytes.size() - begin);
    filling->end_offset = packets.bytes_consumed();
    if (std::string_view events; IsEventBatchPacket(packet, &events)) {
      const auto events_begin =
          static_cast<size_t>(events.data() - filling->bytes.data());
      filling->event_packets.push_back({events_begin, events.size(), raw});
      if (filling->bytes.size() < options.batch_bytes) continue;
    } else {
      // Any other packet is parsed here and closes the batch; its bytes
      // are not kept.
      filling->has_other = true;
      filling->other_packet = raw;
      filling->other_parsed = ParsePacketBytes(
          packet, &filling->other, &scratch, &filling->other_repaired);
      filling->bytes.resize(begin);
      if (!filling->other_parsed) reading = false;
    }
    pipeline.Submit(filling);
    filling = nullptr;
    apply_read(false);
  }
  if (filling != nullptr) {
    if (filling->event_packets.empty()) {
      pipeline.Release(filling);
    } else {
      pipeline.Submit(filling);
    }
  }
  apply_read(true);
}

}  // namespace feedprof::fpt
