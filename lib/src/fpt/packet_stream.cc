#include "fpt/packet_stream.h"

#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_format.h"
#include "fpt/string_field_repair.h"
#include "google/protobuf/io/coded_stream.h"

namespace feedprof::fpt {
namespace {

// Tag of `Trace.packet`: field 1, wire type 2 (length-delimited).
constexpr uint8_t kPacketTag = 0x0A;
// Read-ahead of the file stream: large enough that reads are few, small
// enough to be irrelevant next to the arena.
constexpr int kReadBlockBytes = 256 << 10;
// Each packet is parsed into this block, which is reused for every packet
// so the steady state allocates nothing; larger packets spill into blocks
// the arena frees at the next packet.
constexpr size_t kArenaBlockBytes = size_t{4} << 20;
constexpr int kMaxVarint64Bytes = 10;

google::protobuf::ArenaOptions PacketArenaOptions(char* block) {
  google::protobuf::ArenaOptions options;
  options.initial_block = block;
  options.initial_block_size = kArenaBlockBytes;
  options.max_block_size = 4 << 20;
  return options;
}

}  // namespace

absl::StatusOr<std::unique_ptr<PacketStreamReader>> PacketStreamReader::Open(
    const std::string& path) {
  absl::StatusOr<common::InputFile> file = common::InputFile::Open(path);
  if (!file.ok()) return file.status();
  return std::unique_ptr<PacketStreamReader>(
      new PacketStreamReader(*std::move(file)));
}

PacketStreamReader::PacketStreamReader(common::InputFile file)
    : file_(std::move(file)),
      file_stream_(file_.fd(), kReadBlockBytes),
      arena_block_(new char[kArenaBlockBytes]),
      arena_(PacketArenaOptions(arena_block_.get())) {}

PacketStreamReader::~PacketStreamReader() { arena_.Reset(); }

const trace::Packet* PacketStreamReader::Stop(StreamEnd why,
                                              std::string corruption) {
  end_ = why;
  corruption_ = std::move(corruption);
  return nullptr;
}

trace::Packet* PacketStreamReader::NewPacket() {
  arena_.Reset();  // the previous packet is no longer needed
  return google::protobuf::Arena::CreateMessage<trace::Packet>(&arena_);
}

bool ParsePacketBytes(std::string_view bytes, trace::Packet* packet,
                      std::string* scratch, bool* repaired) {
  *repaired = false;
  if (packet->ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return true;
  }
  const int fixed =
      RepairStringFields(*trace::Packet::descriptor(), bytes, scratch);
  if (fixed <= 0 || !packet->ParseFromString(*scratch)) return false;
  *repaired = true;
  return true;
}

std::string UnparsablePacketMessage(uint64_t length) {
  return absl::StrFormat(
      "a packet of %d bytes does not parse as a feedprof "
      "Packet",
      length);
}

bool PacketStreamReader::NextRaw(std::string* bytes, RawPacket* packet) {
  if (end_ != StreamEnd::kNotYet) return false;
  if (consumed_ >= file_size()) {
    Stop(StreamEnd::kClean);
    return false;
  }
  const uint64_t remaining = file_size() - consumed_;

  uint64_t length = 0;
  uint64_t framing_bytes = 0;
  {
    // A fresh CodedInputStream per packet keeps its int position counter
    // far from overflow on multi-GiB files; on destruction it hands unread
    // buffered bytes back to the file stream.
    google::protobuf::io::CodedInputStream in(&file_stream_);
    uint8_t tag = 0;
    if (!in.ReadRaw(&tag, 1)) {
      Stop(StreamEnd::kTruncated);
      return false;
    }
    if (tag != kPacketTag) {
      Stop(StreamEnd::kCorrupt,
           absl::StrFormat("expected the packet tag 0x0a, found 0x%02x", tag));
      return false;
    }
    if (!in.ReadVarint64(&length)) {
      if (remaining - 1 < kMaxVarint64Bytes) {
        Stop(StreamEnd::kTruncated);
      } else {
        Stop(StreamEnd::kCorrupt, "the packet length is not a varint");
      }
      return false;
    }
    framing_bytes = static_cast<uint64_t>(in.CurrentPosition());
    if (length > kMaxPacketBytes) {
      Stop(StreamEnd::kCorrupt,
           absl::StrFormat("declared packet length %d bytes is larger than "
                           "any packet feedprof writes",
                           length));
      return false;
    }
    // Checked before buffering anything, so a damaged length never turns
    // into an allocation.
    if (length > remaining - framing_bytes) {
      Stop(StreamEnd::kTruncated);
      return false;
    }
    const size_t old_size = bytes->size();
    bytes->resize(old_size + length);
    if (!in.ReadRaw(bytes->data() + old_size, static_cast<int>(length))) {
      bytes->resize(old_size);
      Stop(StreamEnd::kTruncated);  // the file shrank while reading
      return false;
    }
  }
  packet->offset = consumed_;
  packet->index = packets_read_;
  packet->length = length;
  packet_offset_ = consumed_;
  consumed_ += framing_bytes + length;
  ++packets_read_;
  return true;
}

void PacketStreamReader::EndCorruptAt(const RawPacket& packet) {
  consumed_ = packet.offset;
  packets_read_ = packet.index;
  Stop(StreamEnd::kCorrupt, UnparsablePacketMessage(packet.length));
}

const trace::Packet* PacketStreamReader::Next() {
  packet_bytes_.clear();
  RawPacket raw;
  if (!NextRaw(&packet_bytes_, &raw)) return nullptr;
  trace::Packet* packet = NewPacket();
  bool repaired = false;
  if (!ParsePacketBytes(packet_bytes_, packet, &repaired_bytes_, &repaired)) {
    EndCorruptAt(raw);
    return nullptr;
  }
  if (repaired) ++repaired_packets_;
  return packet;
}

std::string PacketStreamReader::DamageWarning() const {
  switch (end_) {
    case StreamEnd::kTruncated:
      return absl::StrFormat(
          "%s: truncated after %d packets (%d bytes unread); analysed what "
          "was read",
          path(), packets_read_, bytes_unread());
    case StreamEnd::kCorrupt:
      return absl::StrFormat(
          "%s: corrupt packet at byte offset %d (%s); stopped reading this "
          "file there and analysed the %d packets before it (%d bytes "
          "unread)",
          path(), consumed_, corruption_, packets_read_, bytes_unread());
    case StreamEnd::kNotYet:
    case StreamEnd::kClean:
      break;
  }
  return {};
}

std::string PacketStreamReader::NoPacketError() const {
  if (file_size() == 0) {
    return absl::StrFormat(
        "%s: the file is empty (0 bytes). The recorded process probably "
        "ended before feedprof's first flush (killed early?); record again "
        "and let it run a little longer",
        path());
  }
  if (end_ == StreamEnd::kTruncated) {
    return absl::StrFormat(
        "%s: the file ends inside its first packet (%d bytes, no whole "
        "packet); the recording was cut off right at its start. Record again",
        path(), file_size());
  }
  return absl::StrFormat(
      "%s: not a feedprof trace, or damaged from its first byte (%s at byte "
      "offset 0). Pass a file written by 'feedprof record' (*.fpt); "
      "'feedprof analyze' also reads PyTorch profiler JSON and Nsight "
      "Systems SQLite exports",
      path(), corruption_);
}

}  // namespace feedprof::fpt
