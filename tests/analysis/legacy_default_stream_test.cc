// Legacy default-stream serialization as a hidden sync point: GPU work on
// the legacy NULL stream of a context where another blocking stream has
// work. Checks when it is reported (and when not), its count and blocked
// time (held back by the other blocking streams between readiness and
// start), that the stream descriptions survive a feedprof trace file, and
// what the real Nsight exports describe.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <functional>
#include <initializer_list>
#include <string>
#include <vector>

#include "feedprof.pb.h"
#include "feedprof/analysis.h"
#include "feedprof/nsight_reader.h"
#include "feedprof/trace_reader.h"
#include "tests/analysis/must_analyze.h"
#include "tests/analysis/timeline_builder.h"

namespace feedprof {
namespace {

using testing::MustAnalyze;
using testing::TimelineBuilder;
using testing::Us;

constexpr const char* kLegacyReason = "legacy default stream";
constexpr int64_t kLegacyStream = 7;
constexpr int64_t kOtherStream = 13;

void Describe(Timeline& tl, int64_t stream, StreamKind kind,
              uint32_t context = 1) {
  StreamInfo s;
  s.pid = TimelineBuilder::kPid;
  s.device = 0;
  s.context = context;
  s.stream = stream;
  s.kind = kind;
  tl.streams.push_back(s);
}

std::vector<SyncPoint> LegacyPoints(const Report& r) {
  std::vector<SyncPoint> out;
  for (const SyncPoint& p : r.sync_points) {
    if (p.reason == kLegacyReason) out.push_back(p);
  }
  return out;
}

// Stream 13 runs [2, 50], [70, 80] and [91, 95]; the legacy stream 7 runs
// three kernels and one copy:
//   launched 5,  starts 50: ready 5,  held back by 13 over [5, 50]  = 45
//   launched 55, starts 60: ready 60 (its stream's previous op), 0
//   launched 61, starts 85: ready 70, held back over [70, 80]       = 10
//   copy launched 90, starts 100: ready 90, held back over [91, 95] = 4
// and one cudaStreamSynchronize blocks the host for 1 µs at the end.
void AddSerializedWork(TimelineBuilder& b, int64_t other_stream) {
  b.Launch(0, 1, 2, 50, other_stream);
  b.Launch(5, 6, 50, 60, kLegacyStream);
  b.Launch(55, 56, 60, 70, kLegacyStream);
  b.Launch(57, 58, 70, 80, other_stream);
  b.Launch(61, 62, 85, 90, kLegacyStream);
  b.Launch(86, 87, 91, 95, other_stream);
  b.Copy("cudaMemcpyAsync", 90, 91, 100, 110, CopyKind::kHtoD, 4096);
  b.Api("cudaStreamSynchronize", 110, 111);
}

TEST(LegacyDefaultStreamTest, ReportsLegacyWorkNextToAnotherBlockingStream) {
  TimelineBuilder b;
  AddSerializedWork(b, kOtherStream);
  Describe(b.timeline(), kLegacyStream, StreamKind::kLegacyNull);
  Describe(b.timeline(), kOtherStream, StreamKind::kDefaultBlocking);
  const absl::StatusOr<Report> r = Analyze(b.timeline(), {});
  ASSERT_TRUE(r.ok()) << r.status();

  const std::vector<SyncPoint> points = LegacyPoints(*r);
  ASSERT_EQ(points.size(), 2u);
  const SyncPoint& kernels = points[0];  // by blocked time
  EXPECT_EQ(kernels.api, "cudaLaunchKernel");
  EXPECT_EQ(kernels.kind, SyncKind::kHidden);
  EXPECT_EQ(kernels.count, 3u);
  EXPECT_EQ(kernels.blocked_ns, Us(45 + 0 + 10));
  const double wall = static_cast<double>(r->window.end - r->window.start);
  EXPECT_EQ(r->window.end - r->window.start, Us(111));
  EXPECT_NEAR(kernels.wall_share, static_cast<double>(Us(55)) / wall, 1e-12);
  EXPECT_EQ(kernels.idle_after_ns, 0);  // the host was never blocked
  const SyncPoint& copy = points[1];
  EXPECT_EQ(copy.api, "cudaMemcpyAsync");
  EXPECT_EQ(copy.count, 1u);
  EXPECT_EQ(copy.blocked_ns, Us(4));

  // Host-blocking groups come first, though this one blocked for less.
  ASSERT_FALSE(r->sync_points.empty());
  EXPECT_EQ(r->sync_points.front().api, "cudaStreamSynchronize");
  EXPECT_EQ(r->sync_points.front().blocked_ns, Us(1));
  // Device-side serialization is not host time blocked in syncs.
  EXPECT_EQ(r->host.sync_blocked_ns, Us(1));
}

TEST(LegacyDefaultStreamTest, PerThreadDefaultStreamCountsAsBlocking) {
  TimelineBuilder b;
  AddSerializedWork(b, kOtherStream);
  Describe(b.timeline(), kLegacyStream, StreamKind::kLegacyNull);
  Describe(b.timeline(), kOtherStream, StreamKind::kPerThread);
  const std::vector<SyncPoint> points = LegacyPoints(MustAnalyze(b.timeline()));
  ASSERT_EQ(points.size(), 2u);
  EXPECT_EQ(points[0].count + points[1].count, 4u);
  EXPECT_EQ(points[0].blocked_ns + points[1].blocked_ns, Us(59));
}

TEST(LegacyDefaultStreamTest, NotReportedWithOnlyTheLegacyStream) {
  TimelineBuilder b;
  b.Launch(0, 1, 2, 50, kLegacyStream);
  b.Launch(5, 6, 50, 60, kLegacyStream);
  Describe(b.timeline(), kLegacyStream, StreamKind::kLegacyNull);
  // A blocking stream that exists but runs nothing serializes nothing.
  Describe(b.timeline(), kOtherStream, StreamKind::kDefaultBlocking);
  EXPECT_TRUE(LegacyPoints(MustAnalyze(b.timeline())).empty());
}

TEST(LegacyDefaultStreamTest, NotReportedNextToANonBlockingStream) {
  TimelineBuilder b;
  AddSerializedWork(b, kOtherStream);
  Describe(b.timeline(), kLegacyStream, StreamKind::kLegacyNull);
  Describe(b.timeline(), kOtherStream, StreamKind::kNonBlocking);
  const Report r = MustAnalyze(b.timeline());
  EXPECT_TRUE(LegacyPoints(r).empty());
  ASSERT_EQ(r.sync_points.size(), 1u);  // the cudaStreamSynchronize
}

TEST(LegacyDefaultStreamTest, NotReportedAcrossContexts) {
  TimelineBuilder b;
  AddSerializedWork(b, kOtherStream);
  Describe(b.timeline(), kLegacyStream, StreamKind::kLegacyNull, 1);
  Describe(b.timeline(), kOtherStream, StreamKind::kDefaultBlocking, 2);
  EXPECT_TRUE(LegacyPoints(MustAnalyze(b.timeline())).empty());
}

TEST(LegacyDefaultStreamTest, NotGuessedWithoutStreamDescriptions) {
  // Kineto traces say nothing about stream kinds: stream 7 is not assumed
  // to be the legacy stream.
  TimelineBuilder b;
  AddSerializedWork(b, kOtherStream);
  EXPECT_TRUE(LegacyPoints(MustAnalyze(b.timeline())).empty());
  // Nor is an undescribed stream assumed to be blocking.
  Describe(b.timeline(), kLegacyStream, StreamKind::kLegacyNull);
  EXPECT_TRUE(LegacyPoints(MustAnalyze(b.timeline())).empty());
}

// --- feedprof trace files --------------------------------------------------

std::string Frame(const trace::Packet& packet) {
  const std::string bytes = packet.SerializeAsString();
  std::string out(1, '\x0A');
  uint64_t n = bytes.size();
  while (n >= 0x80) {
    out.push_back(static_cast<char>((n & 0x7F) | 0x80));
    n >>= 7;
  }
  out.push_back(static_cast<char>(n));
  return out + bytes;
}

TEST(LegacyDefaultStreamTest, StreamPacketsOfATraceFileAreAnalysed) {
  std::vector<trace::Packet> packets(6);
  trace::Header& header = *packets[0].mutable_header();
  header.set_format_version(1);
  header.set_pid(4242);
  header.set_rank(-1);
  trace::InternedStrings& strings = *packets[1].mutable_strings();
  auto* launch_name = strings.add_strings();
  launch_name->set_id(1);
  launch_name->set_value("cudaLaunchKernel");
  auto* kernel_name = strings.add_strings();
  kernel_name->set_id(2);
  kernel_name->set_value("k");
  trace::DeviceInfo& device = *packets[2].mutable_device();
  device.set_device_id(1);
  device.set_context_id(3);
  packets[3].mutable_stream()->set_context_id(3);
  packets[3].mutable_stream()->set_stream_id(7);
  packets[3].mutable_stream()->set_kind(trace::STREAM_KIND_LEGACY_NULL);
  packets[4].mutable_stream()->set_context_id(3);
  packets[4].mutable_stream()->set_stream_id(13);
  packets[4].mutable_stream()->set_priority(-5);
  packets[4].mutable_stream()->set_kind(trace::STREAM_KIND_DEFAULT_BLOCKING);
  // Launches at 1000 and 2000 ns; the stream-13 kernel runs 1500..9000 and
  // holds the legacy kernel (ready at 2000) back until 9000: 7000 ns.
  trace::EventBatch& host = *packets[5].mutable_events();
  host.set_tid(4243);
  host.set_base_ts_ns(1000);
  auto* a1 = host.add_api_calls();
  a1->set_start_delta(0);
  a1->set_duration_ns(100);
  a1->set_name_id(1);
  a1->set_correlation_id(1);
  auto* a2 = host.add_api_calls();
  a2->set_start_delta(1000);
  a2->set_duration_ns(100);
  a2->set_name_id(1);
  a2->set_correlation_id(2);
  trace::Packet gpu_packet;
  trace::EventBatch& gpu = *gpu_packet.mutable_events();
  gpu.set_base_ts_ns(1500);
  auto* k1 = gpu.add_kernels();
  k1->set_start_delta(0);
  k1->set_duration_ns(7500);
  k1->set_name_id(2);
  k1->set_device_id(1);
  k1->set_context_id(3);
  k1->set_stream_id(13);
  k1->set_correlation_id(1);
  auto* k2 = gpu.add_kernels();
  k2->set_start_delta(7500);
  k2->set_duration_ns(500);
  k2->set_name_id(2);
  k2->set_device_id(1);
  k2->set_context_id(3);
  k2->set_stream_id(7);
  k2->set_correlation_id(2);
  packets.push_back(gpu_packet);
  // A stream reported twice (created, then dumped at a late start) is one.
  packets.push_back(packets[4]);

  const std::string path =
      (std::filesystem::temp_directory_path() /
       ("legacy_stream_test_" + std::to_string(::getpid()) + ".feedprof"))
          .string();
  {
    std::FILE* f = std::fopen(path.c_str(), "wb");
    ASSERT_NE(f, nullptr);
    for (const trace::Packet& p : packets) {
      const std::string framed = Frame(p);
      ASSERT_EQ(std::fwrite(framed.data(), 1, framed.size(), f), framed.size());
    }
    std::fclose(f);
  }
  const absl::StatusOr<Timeline> tl = ReadFeedprofTrace(path);
  std::filesystem::remove(path);
  ASSERT_TRUE(tl.ok()) << tl.status();
  ASSERT_EQ(tl->streams.size(), 2u);
  EXPECT_EQ(tl->streams[0].pid, 4242);
  EXPECT_EQ(tl->streams[0].device, 1);  // from the DeviceInfo of context 3
  EXPECT_EQ(tl->streams[0].context, 3u);
  EXPECT_EQ(tl->streams[0].stream, 7);
  EXPECT_EQ(tl->streams[0].kind, StreamKind::kLegacyNull);
  EXPECT_EQ(tl->streams[1].stream, 13);
  EXPECT_EQ(tl->streams[1].priority, -5);
  EXPECT_EQ(tl->streams[1].kind, StreamKind::kDefaultBlocking);

  const absl::StatusOr<Report> r = Analyze(*tl, {});
  ASSERT_TRUE(r.ok()) << r.status();
  const std::vector<SyncPoint> points = LegacyPoints(*r);
  ASSERT_EQ(points.size(), 1u);
  EXPECT_EQ(points[0].api, "cudaLaunchKernel");
  EXPECT_EQ(points[0].count, 1u);
  EXPECT_EQ(points[0].blocked_ns, 7000);
}

// --- real Nsight exports ---------------------------------------------------

size_t CountKind(const Timeline& tl, StreamKind kind) {
  size_t n = 0;
  for (const StreamInfo& s : tl.streams) n += s.kind == kind ? 1 : 0;
  return n;
}

const StreamInfo* FindStream(const Timeline& tl, int64_t stream) {
  for (const StreamInfo& s : tl.streams) {
    if (s.stream == stream) return &s;
  }
  return nullptr;
}

// Reads each shared Nsight export in `names`, runs `check_streams` on its
// timeline, and expects analysis to report no legacy default-stream work.
// Skips the test when an export is absent.
void ExpectNoLegacyWorkInExports(
    std::initializer_list<const char*> names,
    const std::function<void(const Timeline&)>& check_streams) {
  for (const char* name : names) {
    SCOPED_TRACE(name);
    const std::string path =
        std::string(FEEDPROF_SHARED_TRACES_DIR) + "/" + name;
    if (!std::filesystem::exists(path)) {
      GTEST_SKIP() << "shared trace " << path
                   << " not found; set FEEDPROF_SHARED_TRACES_DIR to run "
                      "the real-trace tests";
    }
    const absl::StatusOr<Timeline> tl = ReadNsightTrace(path);
    ASSERT_TRUE(tl.ok()) << tl.status();
    check_streams(*tl);
    const absl::StatusOr<Report> r = Analyze(*tl, {});
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_TRUE(LegacyPoints(*r).empty());
  }
}

// mock.sqlite and the saxpy export describe the same seven streams of one
// context (sqlite3: SELECT streamId, flag, priority FROM
// TARGET_INFO_CUDA_STREAM): 6 and 12 (priority -5) blocking, 7 the legacy
// NULL stream, 8-11 non-blocking. All their GPU work is on stream 7, so no
// other blocking stream runs anything: nothing to report.
TEST(LegacyDefaultStreamTest, RealNsightExportsWithTheLegacyStreamOnly) {
  ExpectNoLegacyWorkInExports(
      {"nsys_ai/mock.sqlite",
       "nsys_sqlite_saxpy/saxpy-mpi-cuda_nsys_perlmutter0.sqlite"},
      [](const Timeline& tl) {
        EXPECT_EQ(tl.streams.size(), 7u);
        EXPECT_EQ(CountKind(tl, StreamKind::kLegacyNull), 1u);
        EXPECT_EQ(CountKind(tl, StreamKind::kDefaultBlocking), 2u);
        EXPECT_EQ(CountKind(tl, StreamKind::kNonBlocking), 4u);
        const StreamInfo* legacy = FindStream(tl, 7);
        ASSERT_NE(legacy, nullptr);
        EXPECT_EQ(legacy->kind, StreamKind::kLegacyNull);
        EXPECT_EQ(legacy->context, 1u);
        const StreamInfo* high = FindStream(tl, 12);
        ASSERT_NE(high, nullptr);
        EXPECT_EQ(high->priority, -5);
        EXPECT_EQ(high->kind, StreamKind::kDefaultBlocking);
        for (const GpuOp& op : tl.gpu_ops) EXPECT_EQ(op.stream, 7);
      });
}

// The two-GPU training pair describes 346 streams, 173 per process, all
// created non-blocking; the streams that run work (7 on GPU 0, 15 on GPU 1)
// are not described, so their kind is unknown and nothing is reported.
TEST(LegacyDefaultStreamTest, RealNsightTrainingPairDescribesOnlyNonBlocking) {
  ExpectNoLegacyWorkInExports(
      {"nsys_ai/mfu_2gpu_before.sqlite", "nsys_ai/mfu_2gpu_after.sqlite"},
      [](const Timeline& tl) {
        EXPECT_EQ(tl.streams.size(), 346u);
        EXPECT_EQ(CountKind(tl, StreamKind::kNonBlocking), 346u);
        size_t first_process = 0;
        for (const StreamInfo& s : tl.streams) {
          first_process += s.pid == tl.streams.front().pid ? 1 : 0;
        }
        EXPECT_EQ(first_process, 173u);
        for (const GpuOp& op : tl.gpu_ops) {
          bool described = false;
          for (const StreamInfo& s : tl.streams) {
            described |= s.pid == op.pid && s.stream == op.stream;
          }
          EXPECT_FALSE(described) << "stream " << op.stream;
          if (described) break;
        }
      });
}

}  // namespace
}  // namespace feedprof
