// ReadFeedprofTrace on damaged input: files cut off at every byte, corrupt
// framing and packets, absurd lengths, empty files and bad paths. Nothing
// may crash or allocate what a length claims; what was whole is read, and
// the warning or error says where and what.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "feedprof/trace_reader.h"
#include "tests/testing/trace_test_files.h"

namespace feedprof {
namespace {

using testing::FramePacket;
using testing::FramePackets;
using testing::TempDir;
using testing::WriteFile;

size_t EventCount(const Timeline& t) {
  return t.api_calls.size() + t.gpu_ops.size() + t.syncs.size() +
         t.ranges.size() + t.marks.size() + t.thread_samples.size() +
         t.process_samples.size() + t.system_samples.size() +
         t.counters.size() + t.threads.size() + t.devices.size() +
         t.processes.size();
}

// Offsets at which whole packets end.
std::vector<size_t> PacketEnds(const std::vector<trace::Packet>& packets) {
  std::vector<size_t> ends;
  size_t offset = 0;
  for (const trace::Packet& p : packets) {
    offset += FramePacket(p).size();
    ends.push_back(offset);
  }
  return ends;
}

std::string Joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& line : lines) out += line + "\n";
  return out;
}

TEST(TraceDamage, TruncatedAtEveryByteReadsEveryWholePacket) {
  TempDir dir;
  const std::vector<trace::Packet> packets = testing::FullTracePackets();
  const std::string bytes = FramePackets(packets);
  const std::vector<size_t> ends = PacketEnds(packets);
  ASSERT_EQ(ends.back(), bytes.size());
  const std::string path = dir.File("cut.fpt");
  WriteFile(path, bytes);

  // From the whole file down to nothing, one byte less each time: cutting
  // a file short is what a killed writer leaves.
  size_t previous_events = std::numeric_limits<size_t>::max();
  size_t whole_file_events = 0;
  for (size_t length = bytes.size() + 1; length-- > 0;) {
    SCOPED_TRACE(
        absl::StrFormat("file cut at byte %d of %d", length, bytes.size()));
    std::filesystem::resize_file(path, length);
    const size_t whole = static_cast<size_t>(
        std::upper_bound(ends.begin(), ends.end(), length) - ends.begin());
    absl::StatusOr<Timeline> t = ReadFeedprofTrace(path);
    if (whole == 0) {
      ASSERT_FALSE(t.ok());
      EXPECT_NE(t.status().message().find(path), std::string::npos);
      continue;
    }
    ASSERT_TRUE(t.ok()) << t.status();
    const size_t events = EventCount(*t);
    EXPECT_LE(events, previous_events);  // fewer bytes never read more
    previous_events = events;
    if (length == bytes.size()) whole_file_events = events;

    const size_t read_end = ends[whole - 1];
    const std::string expected = absl::StrFormat(
        "%s: truncated after %d packets (%d bytes unread); analysed what was "
        "read",
        path, whole, length - read_end);
    const bool warned = std::find(t->warnings.begin(), t->warnings.end(),
                                  expected) != t->warnings.end();
    EXPECT_EQ(warned, length != read_end) << Joined(t->warnings);
  }
  EXPECT_EQ(whole_file_events, 3u + 4 + 1 + 2 + 1 + 3 + 1 + 1 + 2 + 2 + 1 + 1);
}

TEST(TraceDamage, CorruptTagStopsTheFileWithItsOffset) {
  TempDir dir;
  const std::vector<trace::Packet> packets = testing::FullTracePackets();
  std::string bytes = FramePackets(packets);
  const std::vector<size_t> ends = PacketEnds(packets);
  bytes[ends[2]] = '\x12';  // the fourth packet's tag
  const std::string path = dir.File("bad.fpt");
  WriteFile(path, bytes);

  absl::StatusOr<Timeline> t = ReadFeedprofTrace(path);
  ASSERT_TRUE(t.ok()) << t.status();
  ASSERT_EQ(t->warnings.size(), 1u) << Joined(t->warnings);
  EXPECT_EQ(t->warnings[0],
            absl::StrFormat(
                "%s: corrupt packet at byte offset %d (expected the packet "
                "tag 0x0a, found 0x12); stopped reading this file there and "
                "analysed the 3 packets before it (%d bytes unread)",
                path, ends[2], bytes.size() - ends[2]));
  EXPECT_EQ(t->processes.size(), 1u);
  EXPECT_TRUE(t->devices.empty());  // the device packet was the fourth
}

TEST(TraceDamage, PacketThatDoesNotParseStopsTheFileWithItsOffset) {
  TempDir dir;
  const std::vector<trace::Packet> packets = testing::FullTracePackets();
  std::string bytes = FramePackets(packets);
  const std::vector<size_t> ends = PacketEnds(packets);
  // The first byte inside the second packet becomes a field tag with the
  // invalid wire type 7.
  const size_t framing =
      FramePacket(packets[1]).size() - packets[1].SerializeAsString().size();
  bytes[ends[0] + framing] = '\x0F';
  const std::string path = dir.File("bad.fpt");
  WriteFile(path, bytes);

  absl::StatusOr<Timeline> t = ReadFeedprofTrace(path);
  ASSERT_TRUE(t.ok()) << t.status();
  ASSERT_FALSE(t->warnings.empty());
  EXPECT_NE(
      t->warnings[0].find(absl::StrFormat(
          "%s: corrupt packet at byte offset %d (a packet of", path, ends[0])),
      std::string::npos)
      << t->warnings[0];
  EXPECT_EQ(t->processes.size(), 1u);
  EXPECT_TRUE(t->api_calls.empty());
}

TEST(TraceDamage, HugeLengthIsRejectedNotAllocated) {
  TempDir dir;
  const std::vector<trace::Packet> packets = testing::FullTracePackets();
  const std::string first = FramePacket(packets[0]);
  // Length 2^40, far beyond the file and any packet.
  const std::string bytes =
      first + std::string("\x0A\x80\x80\x80\x80\x80\x20xyz", 10);
  const std::string path = dir.File("huge.fpt");
  WriteFile(path, bytes);
  absl::StatusOr<Timeline> t = ReadFeedprofTrace(path);
  ASSERT_TRUE(t.ok()) << t.status();
  ASSERT_EQ(t->warnings.size(), 1u);
  EXPECT_NE(t->warnings[0].find(absl::StrFormat(
                "corrupt packet at byte offset %d (declared packet length "
                "1099511627776 bytes",
                first.size())),
            std::string::npos)
      << t->warnings[0];
}

TEST(TraceDamage, LengthPastTheEndOfTheFileIsTruncation) {
  TempDir dir;
  const std::vector<trace::Packet> packets = testing::FullTracePackets();
  const std::string first = FramePacket(packets[0]);
  const std::string path = dir.File("cut.fpt");
  WriteFile(path, first + std::string("\x0A\xE8\x07partial", 10));  // 1000
  absl::StatusOr<Timeline> t = ReadFeedprofTrace(path);
  ASSERT_TRUE(t.ok()) << t.status();
  ASSERT_EQ(t->warnings.size(), 1u);
  EXPECT_EQ(t->warnings[0],
            absl::StrFormat("%s: truncated after 1 packets (10 bytes unread); "
                            "analysed what was read",
                            path));
}

TEST(TraceDamage, RandomBytesNeverCrash) {
  TempDir dir;
  const std::string path = dir.File("noise.fpt");
  std::string bytes = FramePackets(testing::FullTracePackets());
  uint32_t state = 12345;
  for (int round = 0; round < 200; ++round) {
    std::string damaged = bytes;
    for (int flips = 0; flips < 4; ++flips) {
      state = state * 1664525u + 1013904223u;
      damaged[state % damaged.size()] = static_cast<char>(state >> 24);
    }
    WriteFile(path, damaged);
    absl::StatusOr<Timeline> t = ReadFeedprofTrace(path);
    if (t.ok()) {
      EXPECT_LE(t->gpu_ops.size(), 4u);
    } else {
      EXPECT_NE(t.status().message().find(path), std::string::npos);
    }
  }
}

TEST(TraceDamage, EmptyFileIsAnErrorNamingTheFile) {
  TempDir dir;
  const std::string path = dir.File("empty.fpt");
  WriteFile(path, "");
  absl::StatusOr<Timeline> t = ReadFeedprofTrace(path);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(t.status().message().find(path + ": the file is empty (0 bytes)"),
            std::string::npos)
      << t.status();
  EXPECT_NE(t.status().message().find("record again"), std::string::npos);
}

TEST(TraceDamage, NotATraceIsAnErrorSayingWhatWasFound) {
  TempDir dir;
  const std::string path = dir.File("text.fpt");
  WriteFile(path, "hello world");
  absl::StatusOr<Timeline> t = ReadFeedprofTrace(path);
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find(
                path + ": not a feedprof trace, or damaged from its first "
                       "byte (expected the packet tag 0x0a, found 0x68"),
            std::string::npos)
      << t.status();
}

TEST(TraceDamage, EmptyFileInASessionIsSkippedWithAWarning) {
  TempDir dir;
  WriteFile(dir.File("a.fpt"), "");
  WriteFile(dir.File("b.fpt"),
            FramePackets(testing::SmallProcessPackets(9, -1, "k", 100, 0)));
  absl::StatusOr<Timeline> t = ReadFeedprofTrace(dir.path());
  ASSERT_TRUE(t.ok()) << t.status();
  ASSERT_EQ(t->warnings.size(), 1u);
  EXPECT_NE(t->warnings[0].find(dir.File("a.fpt") + ": the file is empty"),
            std::string::npos);
  EXPECT_EQ(t->processes.size(), 1u);
}

TEST(TraceDamage, SessionWithOnlyEmptyFilesNamesEachFile) {
  TempDir dir;
  WriteFile(dir.File("a.fpt"), "");
  WriteFile(dir.File("b.fpt"), "\x0A");
  absl::StatusOr<Timeline> t = ReadFeedprofTrace(dir.path());
  ASSERT_FALSE(t.ok());
  EXPECT_NE(
      t.status().message().find(dir.File("a.fpt") + ": the file is empty"),
      std::string::npos);
  EXPECT_NE(t.status().message().find(
                dir.File("b.fpt") + ": the file ends inside its first packet"),
            std::string::npos)
      << t.status();
}

TEST(TraceDamage, MissingPathIsNotFound) {
  absl::StatusOr<Timeline> t = ReadFeedprofTrace("/nonexistent/feedprof/x.fpt");
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(t.status().message().find("/nonexistent/feedprof/x.fpt"),
            std::string::npos);
}

TEST(TraceDamage, DirectoryWithoutTraceFilesIsAnError) {
  TempDir dir;
  WriteFile(dir.File("notes.txt"), "x");
  absl::StatusOr<Timeline> t = ReadFeedprofTrace(dir.path());
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("holds no feedprof trace files (*.fpt)"),
            std::string::npos)
      << t.status();
}

// A damaged delta or duration must not wrap a time past int64 (the
// analysis subtracts times): such events are skipped and counted, the
// events around them are kept, and the correlation chain stays in step.
TEST(TraceDamage, EventsWithOutOfRangeTimesAreSkippedWithAWarning) {
  TempDir dir;
  std::vector<trace::Packet> packets =
      testing::SmallProcessPackets(7, -1, "k", 1000, 0);
  trace::EventBatch* host = packets[2].mutable_events();
  host->clear_api_calls();
  host->set_base_correlation_id(10);
  trace::ApiCall* wraps = host->add_api_calls();  // ends past 2^64
  wraps->set_duration_ns(std::numeric_limits<uint64_t>::max());
  wraps->set_correlation_delta(1);
  trace::ApiCall* negative = host->add_api_calls();  // starts before 0
  negative->set_start_delta(-1'000'000);
  negative->set_duration_ns(3);
  negative->set_correlation_delta(1);
  trace::ApiCall* fine = host->add_api_calls();
  fine->set_start_delta(1'000'010);  // back to 1005
  fine->set_duration_ns(3);
  fine->set_name_id(2);
  fine->set_correlation_delta(1);
  trace::Kernel* huge = packets[3].mutable_events()->add_kernels();
  huge->set_start_delta(10);
  huge->set_duration_ns(uint64_t{1} << 63);
  trace::Packet footer;
  footer.mutable_footer()->set_end_ns(std::numeric_limits<uint64_t>::max());
  packets.push_back(footer);
  WriteFile(dir.File("a.fpt"), FramePackets(packets));

  absl::StatusOr<Timeline> t = ReadFeedprofTrace(dir.File("a.fpt"));
  ASSERT_TRUE(t.ok()) << t.status();
  ASSERT_EQ(t->api_calls.size(), 1u);
  EXPECT_EQ(t->api_calls[0].start, 1005);
  EXPECT_EQ(t->api_calls[0].end, 1008);
  EXPECT_EQ(t->api_calls[0].correlation, 13u);
  ASSERT_EQ(t->gpu_ops.size(), 1u);
  EXPECT_EQ(t->gpu_ops[0].start, 1000);
  EXPECT_EQ(t->gpu_ops[0].end, 1100);
  ASSERT_EQ(t->processes.size(), 1u);
  EXPECT_EQ(t->processes[0].start, 990);
  EXPECT_EQ(t->processes[0].end, 1100);  // the damaged footer is ignored
  const std::string warnings = Joined(t->warnings);
  EXPECT_NE(warnings.find("skipped 3 events whose times are out of range"),
            std::string::npos)
      << warnings;
}

}  // namespace
}  // namespace feedprof
