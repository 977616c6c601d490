// A feedprof file whose EventBatch packets are parsed and decoded on worker
// threads reads exactly as packet by packet: the same Timeline, field by
// field (strings, their ids, events, warnings), for 1 to 3 workers and
// batches of one packet to the whole file; a file cut off or damaged
// anywhere stops at the same packet with the same warning.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "feedprof.pb.h"
#include "fpt/feedprof_read_options.h"
#include "tests/testing/timeline_text.h"
#include "tests/testing/trace_test_files.h"

namespace feedprof {
namespace {

using testing::FramePacket;
using testing::TempDir;
using testing::TimelineText;
using testing::WriteFile;

constexpr int kBatches = 400;
constexpr int kCallsPerBatch = 5;

// One EventBatch packet of thread `tid` with every event kind; batch `b`
// names kernel string 100 + b % 7 (defined by the strings packets that
// come every 50 batches), and every 97th batch has a call whose delta
// lands past the readers' time bound (skipped and counted). The kernel's
// grid is b blocks wide, and some copies run in a CUDA graph, so the
// batches intern launch shapes of their own and share others.
trace::Packet EventsPacket(int b, uint32_t tid) {
  trace::Packet p;
  trace::EventBatch& e = *p.mutable_events();
  e.set_tid(tid);
  e.set_base_ts_ns(1'000'000 + static_cast<uint64_t>(b) * 10'000);
  e.set_base_correlation_id(static_cast<uint64_t>(b) * 100);
  for (int i = 0; i < kCallsPerBatch; ++i) {
    trace::ApiCall& c = *e.add_api_calls();
    c.set_start_delta(i == 0 ? 0 : 300);
    c.set_duration_ns(200 + static_cast<uint64_t>(i));
    c.set_name_id(1);
    c.set_correlation_delta(1);
    c.set_call_site_id(b % 3);
    c.set_domain(trace::API_DOMAIN_RUNTIME);
  }
  if (b % 97 == 5) {
    trace::ApiCall& c = *e.add_api_calls();
    c.set_start_delta(int64_t{1} << 62);
    c.set_duration_ns(10);
    c.set_name_id(1);
  }
  trace::NvtxRange& r = *e.add_ranges();
  r.set_start_delta(50);
  r.set_duration_ns(2000);
  r.set_name_id(2);
  r.set_depth(static_cast<uint32_t>(b % 2));
  trace::NvtxMark& m = *e.add_marks();
  m.set_ts_delta(70);
  m.set_name_id(3);
  trace::Kernel& k = *e.add_kernels();
  k.set_start_delta(500);
  k.set_duration_ns(900);
  k.set_name_id(100 + static_cast<uint32_t>(b % 7));
  k.set_correlation_id(static_cast<uint64_t>(b) * 100 + 1);
  k.set_stream_id(7);
  k.set_grid_x(static_cast<uint32_t>(b));
  k.set_block_x(128);
  if (b % 4 == 1) {
    trace::Memcpy& c = *e.add_memcpys();
    c.set_start_delta(800);
    c.set_duration_ns(400);
    c.set_bytes(4096);
    c.set_copy_kind(static_cast<trace::CopyKind>(1 + b % 3));
    c.set_correlation_id(static_cast<uint64_t>(b) * 100 + 2);
    if (b % 8 == 1) c.set_graph_id(static_cast<uint32_t>(1 + b % 3));
  }
  if (b % 9 == 2) {
    trace::Memset& s = *e.add_memsets();
    s.set_start_delta(900);
    s.set_duration_ns(100);
    s.set_bytes(64);
  }
  if (b % 11 == 3) {
    trace::SyncRecord& s = *e.add_syncs();
    s.set_start_delta(1000);
    s.set_duration_ns(5000);
    s.set_type(trace::SYNC_TYPE_STREAM_SYNCHRONIZE);
    s.set_stream_id(7);
  }
  return p;
}

// The bytes of a file with two processes (a concatenated file: the second
// Header starts a new section with its own string ids), each with kBatches
// EventBatch packets on two threads, strings defined along the way (one
// after the batch that first uses it), host samples, an empty packet and a
// packet holding two `events` fields (parsed whole, not as one batch).
// `offsets` gets where each packet begins.
std::string SessionFileBytes(std::vector<size_t>* offsets = nullptr) {
  std::string bytes;
  auto add = [&](const trace::Packet& p) {
    if (offsets != nullptr) offsets->push_back(bytes.size());
    bytes += FramePacket(p);
  };
  for (uint32_t pid : {4001u, 4002u}) {
    trace::Packet header;
    header.mutable_header()->set_format_version(1);
    header.mutable_header()->set_pid(pid);
    add(header);
    add(testing::StringsPacket({{1, "cudaLaunchKernel"},
                                {2, absl::StrFormat("step of %d", pid)},
                                {3, "mark"}}));
    for (int b = 0; b < kBatches; ++b) {
      if (b % 50 == 1) {
        // Defines the kernel names batches 0..6 use, one batch late at the
        // start.
        std::vector<std::pair<uint32_t, std::string>> names;
        for (uint32_t k = 0; k < 7; ++k) {
          names.push_back({100 + k, absl::StrFormat("kernel_%d_%d", pid, k)});
        }
        add(testing::StringsPacket(names));
      }
      add(EventsPacket(b, pid + static_cast<uint32_t>(b % 2)));
      if (b % 40 == 7) {
        trace::Packet samples;
        trace::HostSampleBatch& h = *samples.mutable_host_samples();
        h.set_base_ts_ns(1'000'000 + static_cast<uint64_t>(b) * 10'000);
        trace::ThreadSample& t = *h.add_threads();
        t.set_tid(pid);
        t.set_user_ns(static_cast<uint64_t>(b) * 1000);
        add(samples);
      }
      if (b == 123) add(trace::Packet());  // empty: no field set
      if (b == 200) {
        // Two `events` fields in one packet: libprotobuf merges them.
        std::string twice = EventsPacket(b + 1000, pid).SerializeAsString() +
                            EventsPacket(b + 2000, pid).SerializeAsString();
        trace::Packet merged;
        EXPECT_TRUE(merged.ParseFromString(twice));
        if (offsets != nullptr) offsets->push_back(bytes.size());
        bytes += '\x0a';
        uint64_t n = twice.size();
        while (n >= 0x80) {
          bytes += static_cast<char>((n & 0x7F) | 0x80);
          n >>= 7;
        }
        bytes += static_cast<char>(n);
        bytes += twice;
      }
    }
  }
  return bytes;
}

absl::StatusOr<Timeline> Read(const std::string& path, int workers,
                              size_t batch_bytes) {
  fpt::FeedprofReadOptions options;
  options.packet_worker_threads = workers;
  options.parallel_from_file_bytes = 0;
  options.batch_bytes = batch_bytes;
  return fpt::ReadFeedprofTraceWithOptions(path, options);
}

// The timeline as text, or the error when the file cannot be read.
std::string Outcome(const absl::StatusOr<Timeline>& read) {
  return read.ok() ? TimelineText(*read) : read.status().ToString();
}

// `path` read packet by packet and with each parallel setup.
void ExpectSameForEverySetup(const std::string& path, const std::string& what) {
  const std::string expected = Outcome(Read(path, 0, 0));
  for (int workers : {1, 2, 3}) {
    for (size_t batch_bytes :
         {size_t{1}, size_t{300}, size_t{4096}, size_t{1} << 20}) {
      EXPECT_EQ(testing::FirstDifference(
                    expected, Outcome(Read(path, workers, batch_bytes))),
                "")
          << what << ", " << workers << " workers, batches of " << batch_bytes
          << " bytes";
    }
  }
}

TEST(ParallelPacketReaderTest, WholeFileReadsAsPacketByPacket) {
  TempDir dir;
  const std::string path = dir.File("session.fpt");
  WriteFile(path, SessionFileBytes());
  absl::StatusOr<Timeline> serial = Read(path, 0, 0);
  ASSERT_TRUE(serial.ok()) << serial.status();
  // The numbers the file was written with: 2 processes × (400 batches ×
  // 5 calls, one skipped call every 97 batches, + the merged packet's two
  // batches of 5 calls).
  const int skipped = 5;  // batches 5, 102, 199, 296, 393 per process
  EXPECT_EQ(serial->api_calls.size(),
            size_t{2} * (kBatches * kCallsPerBatch + 2 * kCallsPerBatch));
  EXPECT_EQ(serial->processes.size(), 2u);
  EXPECT_EQ(serial->ranges.size(), size_t{2} * (kBatches + 2));
  bool warned = false;
  for (const std::string& w : serial->warnings) {
    if (w.find(absl::StrFormat("%d events", skipped)) != std::string::npos) {
      warned = true;
    }
  }
  EXPECT_TRUE(warned) << "no warning of the " << skipped
                      << " out-of-range calls per process";
  ExpectSameForEverySetup(path, "whole file");
}

TEST(ParallelPacketReaderTest, TruncatedAnywhereStopsAtTheSamePacket) {
  TempDir dir;
  const std::string bytes = SessionFileBytes();
  const std::string path = dir.File("cut.fpt");
  int read = 0;
  for (size_t cut : {size_t{1}, size_t{37}, bytes.size() / 3 + 11,
                     bytes.size() / 2, bytes.size() - 5}) {
    WriteFile(path, bytes.substr(0, cut));
    read += Read(path, 0, 0).ok() ? 1 : 0;
    ExpectSameForEverySetup(path, absl::StrFormat("cut at %d", cut));
  }
  // Only the cut inside the first packet leaves nothing to read.
  EXPECT_EQ(read, 4);
}

TEST(ParallelPacketReaderTest, DamagedPacketStopsAtTheSamePacket) {
  std::vector<size_t> offsets;
  const std::string bytes = SessionFileBytes(&offsets);
  TempDir dir;
  const std::string path = dir.File("damaged.fpt");
  // Packet 2 + 7 is an EventBatch packet, packet 2 + 1 + 50 + ... a
  // strings packet: in both, the first field's tag becomes wire type 7,
  // which no parser accepts, while the framing stays intact.
  for (size_t packet : {size_t{9}, size_t{3}, offsets.size() / 2 + 3}) {
    std::string damaged = bytes;
    size_t at = offsets[packet] + 1;
    while (static_cast<uint8_t>(damaged[at]) & 0x80) ++at;  // the length
    ++at;  // the Packet's field tag
    while (static_cast<uint8_t>(damaged[at]) & 0x80) ++at;
    ++at;  // the inner message's first tag
    damaged[at] = '\x0f';
    WriteFile(path, damaged);
    absl::StatusOr<Timeline> serial = Read(path, 0, 0);
    ASSERT_TRUE(serial.ok()) << serial.status();
    bool corrupt = false;
    for (const std::string& w : serial->warnings) {
      if (w.find(absl::StrFormat("corrupt packet at byte offset %d",
                                 offsets[packet])) != std::string::npos) {
        corrupt = true;
      }
    }
    EXPECT_TRUE(corrupt) << "packet " << packet;
    ExpectSameForEverySetup(path, absl::StrFormat("packet %d damaged", packet));
  }
}

TEST(ParallelPacketReaderTest, RepairedStringsAreCountedAlike) {
  std::string bytes = SessionFileBytes();
  const trace::Packet bad = testing::StringsPacket({{9, "bad \xff name"}});
  bytes += FramePacket(bad);
  bytes += FramePacket(EventsPacket(7, 1));
  TempDir dir;
  const std::string path = dir.File("utf8.fpt");
  WriteFile(path, bytes);
  absl::StatusOr<Timeline> serial = Read(path, 0, 0);
  ASSERT_TRUE(serial.ok()) << serial.status();
  bool repaired = false;
  for (const std::string& w : serial->warnings) {
    if (w.find("1 packets held names that are not valid UTF-8") !=
        std::string::npos) {
      repaired = true;
    }
  }
  EXPECT_TRUE(repaired);
  ExpectSameForEverySetup(path, "invalid UTF-8");
}

}  // namespace
}  // namespace feedprof
