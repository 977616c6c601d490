// Streams the packets of one feedprof trace file, with bounded memory.
//
// A trace file is `Trace { repeated Packet packet = 1; }` written one packet
// at a time: tag 0x0A, varint length, Packet bytes. Files reach hundreds of
// MiB and may be cut off at any byte (SIGKILL, full disk) or damaged, so the
// file is never parsed as one message: each packet is framed by hand, its
// declared length is checked against what is left in the file before any
// byte is buffered, and it is parsed into a message on an arena whose
// block is reused for every packet, so memory stays at about one packet
// whatever the file size. Where the readable part ends, `end()` says why and
// `DamageWarning()` words it for the user.
#ifndef FEEDPROF_FPT_PACKET_STREAM_H_
#define FEEDPROF_FPT_PACKET_STREAM_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "common/input_file.h"
#include "feedprof.pb.h"
#include "google/protobuf/arena.h"
#include "google/protobuf/io/zero_copy_stream_impl.h"
#include "google/protobuf/stubs/logging.h"

namespace feedprof::fpt {

// The largest packet a reader accepts. The recorder writes packets of at
// most a few MiB; a larger length is taken for corruption, not allocated.
inline constexpr uint64_t kMaxPacketBytes = uint64_t{256} << 20;

// How the readable part of a file ended.
enum class StreamEnd {
  kNotYet,     // more packets may follow
  kClean,      // the file ends exactly after a whole packet
  kTruncated,  // the file ends inside a packet
  kCorrupt,    // a packet's framing or contents are invalid
};

// Where a packet that PacketStreamReader::NextRaw framed lies in its file.
struct RawPacket {
  uint64_t offset = 0;  // of its tag byte
  uint64_t index = 0;   // packets before it
  uint64_t length = 0;  // its Packet bytes, without the tag and length
};

// Parses `bytes` as one Packet into `*packet`, as PacketStreamReader::Next
// does: where that fails because string fields hold invalid UTF-8, those
// are repaired (U+FFFD, `*repaired` set) and it is parsed again. False when
// the bytes are no Packet. `scratch` is reused for the repaired bytes.
bool ParsePacketBytes(std::string_view bytes, trace::Packet* packet,
                      std::string* scratch, bool* repaired);

// What Next says of a packet that does not parse.
std::string UnparsablePacketMessage(uint64_t length);

class PacketStreamReader {
 public:
  // Opens `path` for reading. Errors name the file: it does not exist, is a
  // directory or not a regular file, or cannot be read (common::InputFile).
  static absl::StatusOr<std::unique_ptr<PacketStreamReader>> Open(
      const std::string& path);

  ~PacketStreamReader();
  PacketStreamReader(const PacketStreamReader&) = delete;
  PacketStreamReader& operator=(const PacketStreamReader&) = delete;

  // The next whole packet, or nullptr where the readable part ends (then
  // `end()` says why). The packet stays valid until the next call.
  const trace::Packet* Next();

  // Framing only, for a reader that parses packets elsewhere
  // (parallel_packet_reader.h): appends the next whole packet's bytes to
  // `*bytes`, says where it lies, and counts it as read; false where the
  // readable part ends (then `end()` says why). Parse the bytes with
  // ParsePacketBytes; one that fails ends the stream (EndCorruptAt).
  bool NextRaw(std::string* bytes, RawPacket* packet);
  // Ends the stream at `packet`, which does not parse, as Next would have:
  // it and every packet after it no longer count as read.
  void EndCorruptAt(const RawPacket& packet);
  // Counts a packet that ParsePacketBytes repaired.
  void CountRepaired() { ++repaired_packets_; }

  StreamEnd end() const { return end_; }
  const std::string& path() const { return file_.path(); }
  uint64_t file_size() const { return file_.size(); }
  uint64_t packets_read() const { return packets_read_; }
  // Byte offset at which the packet last returned begins.
  uint64_t packet_offset() const { return packet_offset_; }
  // Bytes of whole packets read so far (the offset of the next packet).
  uint64_t bytes_consumed() const { return consumed_; }
  uint64_t bytes_unread() const { return file_size() - consumed_; }
  // What was wrong with the packet at `bytes_consumed()` when kCorrupt.
  const std::string& corruption() const { return corruption_; }
  // Packets whose string fields held invalid UTF-8 (repaired, U+FFFD).
  uint64_t repaired_packets() const { return repaired_packets_; }

  // One sentence for Timeline::warnings when the file ended truncated or
  // corrupt; empty after a clean end.
  std::string DamageWarning() const;

  // Why the file yielded no packet at all, with what to do; for the error
  // when nothing could be read.
  std::string NoPacketError() const;

 private:
  explicit PacketStreamReader(common::InputFile file);
  const trace::Packet* Stop(StreamEnd why, std::string corruption = {});
  trace::Packet* NewPacket();

  common::InputFile file_;  // declared before file_stream_ reads from it
  google::protobuf::io::FileInputStream file_stream_;
  std::unique_ptr<char[]> arena_block_;  // declared before arena_ uses it
  google::protobuf::Arena arena_;
  std::string packet_bytes_;    // reused buffer for one packet's bytes
  std::string repaired_bytes_;  // reused buffer for the UTF-8 repair path
  // libprotobuf logs every rejected packet to stderr; the reader reports
  // damage itself, once, in words.
  google::protobuf::LogSilencer silence_parse_errors_;

  StreamEnd end_ = StreamEnd::kNotYet;
  uint64_t consumed_ = 0;
  uint64_t packet_offset_ = 0;
  uint64_t packets_read_ = 0;
  uint64_t repaired_packets_ = 0;
  std::string corruption_;
};

}  // namespace feedprof::fpt

#endif  // FEEDPROF_FPT_PACKET_STREAM_H_
