// Sync points: classification by API name, grouping by (API, reason, call
// site), blocked time, wall share and the GPU idle that followed.
#include <gtest/gtest.h>

#include "analysis/call_site_text.h"
#include "feedprof/analysis.h"
#include "tests/analysis/must_analyze.h"
#include "tests/analysis/timeline_builder.h"

namespace feedprof {
namespace {

using analysis::CallSiteText;
using testing::MustAnalyze;
using testing::TimelineBuilder;
using testing::Us;

const SyncPoint* Find(const Report& r, std::string_view api,
                      std::string_view call_site = {}) {
  for (const SyncPoint& p : r.sync_points) {
    if (p.api == api && (call_site.empty() || p.call_site == call_site)) {
      return &p;
    }
  }
  return nullptr;
}

TEST(SyncPointsTest, ExplicitSyncsAreGroupedWithIdleAfter) {
  TimelineBuilder b;
  b.Launch(0, 1, 2, 50);
  b.Api("cudaStreamSynchronize", 2, 51);
  b.Launch(60, 61, 62, 100);  // GPU idle 50 .. 62 after the first sync
  b.Api("cudaStreamSynchronize", 63, 101);
  b.Launch(101, 102, 103, 110);
  const Report r = MustAnalyze(b.timeline());
  const SyncPoint* p = Find(r, "cudaStreamSynchronize");
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->kind, SyncKind::kExplicit);
  EXPECT_EQ(p->count, 2u);
  EXPECT_EQ(p->blocked_ns, Us(49 + 38));
  EXPECT_NEAR(p->wall_share, 87.0 / 110.0, 1e-9);
  EXPECT_EQ(p->idle_after_ns, Us(12 + 3));  // 50..62 and 100..103
  EXPECT_EQ(r.host.sync_blocked_ns, Us(87));
}

TEST(SyncPointsTest, HiddenSyncsByName) {
  TimelineBuilder b;
  b.Launch(0, 1, 2, 10);
  b.Copy("cudaMemcpy", 10, 30, 12, 28, CopyKind::kDtoH, 4096);
  b.Copy("cudaMemcpyAsync", 30, 40, 32, 38, CopyKind::kHtoD, 4096,
         MemoryKind::kPageable);
  b.Copy("cudaMemcpyAsync", 40, 41, 42, 48, CopyKind::kHtoD, 4096,
         MemoryKind::kPinned);  // pinned async: not a sync point
  b.Api("cudaMalloc", 50, 60);
  b.Api("cudaDeviceSetLimit", 60, 61);
  b.Api("cudaEventQuery", 61, 62);       // non-blocking
  b.Api("cudaStreamWaitEvent", 62, 63);  // GPU-side wait
  const Report r = MustAnalyze(b.timeline());
  const SyncPoint* copy = Find(r, "cudaMemcpy");
  ASSERT_NE(copy, nullptr);
  EXPECT_EQ(copy->kind, SyncKind::kHidden);
  EXPECT_EQ(copy->reason, "synchronous copy");
  const SyncPoint* pageable = Find(r, "cudaMemcpyAsync");
  ASSERT_NE(pageable, nullptr);
  EXPECT_EQ(pageable->count, 1u);
  EXPECT_EQ(pageable->reason, "async copy with pageable host memory");
  ASSERT_NE(Find(r, "cudaMalloc"), nullptr);
  EXPECT_EQ(Find(r, "cudaMalloc")->reason,
            "allocation or free after GPU work started");
  ASSERT_NE(Find(r, "cudaDeviceSetLimit"), nullptr);
  EXPECT_EQ(Find(r, "cudaEventQuery"), nullptr);
  EXPECT_EQ(Find(r, "cudaStreamWaitEvent"), nullptr);
  EXPECT_EQ(r.gpu_side_waits, 1u);
  EXPECT_EQ(r.sync_points.size(), 4u);
}

TEST(SyncPointsTest, AllocationBeforeGpuWorkIsNotASyncPoint) {
  TimelineBuilder b;
  b.Api("cudaMalloc", 0, 5);
  b.Launch(6, 7, 8, 20);
  const Report r = MustAnalyze(b.timeline());
  EXPECT_EQ(Find(r, "cudaMalloc"), nullptr);
}

TEST(SyncPointsTest, GroupedByCallSite) {
  TimelineBuilder b;
  Timeline& tl = b.timeline();
  for (int i = 0; i < 2; ++i) {
    CallSite site;
    site.frames.push_back(Frame{tl.strings.Intern("train.py"),
                                tl.strings.Intern(i == 0 ? "step" : "log"),
                                static_cast<uint32_t>(10 + i)});
    tl.call_sites.push_back(site);
  }
  b.Launch(0, 1, 2, 10);
  b.Api("cudaDeviceSynchronize", 1, 11);
  tl.api_calls.back().call_site = 1;
  b.Api("cudaDeviceSynchronize", 12, 13);
  tl.api_calls.back().call_site = 1;
  b.Api("cudaDeviceSynchronize", 14, 15);
  tl.api_calls.back().call_site = 2;
  const Report r = MustAnalyze(tl);
  const SyncPoint* step =
      Find(r, "cudaDeviceSynchronize", "step (train.py:10)");
  const SyncPoint* log = Find(r, "cudaDeviceSynchronize", "log (train.py:11)");
  ASSERT_NE(step, nullptr);
  ASSERT_NE(log, nullptr);
  EXPECT_EQ(step->count, 2u);
  EXPECT_EQ(log->count, 1u);
}

// Native frames without lines, as a stripped framework gives them: the
// innermost frame with a symbol, demangled, at its module's file name and
// offset; the innermost frame when only the process start has a name;
// "function (file:line)" for Python frames and frames with a line.
TEST(SyncPointsTest, CallSiteTextOfNativeAndPythonFrames) {
  Timeline tl;
  tl.call_sites.resize(1);  // id 0: unknown
  const auto add = [&tl](bool python, std::vector<Frame> frames) {
    CallSite site;
    site.python = python;
    site.frames = std::move(frames);
    tl.call_sites.push_back(site);
    return static_cast<uint32_t>(tl.call_sites.size() - 1);
  };
  const StringId torch_cuda =
      tl.strings.Intern("/opt/torch/lib/libtorch_cuda.so");
  const StringId libc = tl.strings.Intern("/lib/x86_64-linux-gnu/libc.so.6");
  const StringId app = tl.strings.Intern("/usr/local/bin/app");
  const StringId none = tl.strings.Intern("");
  const uint32_t item =
      add(false,
          {Frame{torch_cuda, none, 0, 0x16a7000},
           Frame{torch_cuda,
                 tl.strings.Intern(
                     "_ZN2at6native24_local_scalar_dense_cudaERKNS_6TensorE"),
                 0, 0x16a7cd5},
           Frame{libc, tl.strings.Intern("__libc_start_main"), 0, 0x2a28b}});
  EXPECT_EQ(CallSiteText(tl, item),
            "at::native::_local_scalar_dense_cuda(at::Tensor const&) "
            "(libtorch_cuda.so+0x16a7cd5)");
  const uint32_t stripped = add(
      false, {Frame{app, none, 0, 0x552dc}, Frame{app, none, 0, 0x9af3},
              Frame{libc, tl.strings.Intern("__libc_start_main"), 0, 0x2a28b}});
  EXPECT_EQ(CallSiteText(tl, stripped), "app+0x552dc");
  const uint32_t plain_c =
      add(false, {Frame{app, tl.strings.Intern("load_batch"), 0, 0x1200}});
  EXPECT_EQ(CallSiteText(tl, plain_c), "load_batch (app+0x1200)");
  const uint32_t with_line =
      add(false, {Frame{tl.strings.Intern("app.c"), tl.strings.Intern("main"),
                        7, 0x1200}});
  EXPECT_EQ(CallSiteText(tl, with_line), "main (app.c:7)");
  const uint32_t python = add(
      true,
      {Frame{tl.strings.Intern("train.py"), tl.strings.Intern("step"), 0, 0},
       Frame{tl.strings.Intern("train.py"), tl.strings.Intern("main"), 90, 0}});
  EXPECT_EQ(CallSiteText(tl, python), "step (train.py:0)");
  const uint32_t bad_mangling =
      add(false, {Frame{app, tl.strings.Intern("_Zxx"), 0, 0x10}});
  EXPECT_EQ(CallSiteText(tl, bad_mangling), "_Zxx (app+0x10)");
  EXPECT_EQ(CallSiteText(tl, add(false, {})), "");
  EXPECT_EQ(CallSiteText(tl, 0), "");
  EXPECT_EQ(CallSiteText(tl, 1000), "");
}

// Call sites with distinct ids but the same innermost frame (traces give
// every call its own stack) are one group: the report prints that frame.
TEST(SyncPointsTest, SameFrameDifferentSiteIdsAreOneGroup) {
  TimelineBuilder b;
  Timeline& tl = b.timeline();
  for (int i = 0; i < 3; ++i) {
    CallSite site;
    site.frames.push_back(
        Frame{tl.strings.Intern("app.c"), tl.strings.Intern("main"), 7});
    site.frames.push_back(Frame{tl.strings.Intern("crt.c"),
                                tl.strings.Intern("start"),
                                static_cast<uint32_t>(i)});
    tl.call_sites.push_back(site);
  }
  b.Launch(0, 1, 2, 10);
  for (uint32_t i = 1; i <= 3; ++i) {
    b.Api("cudaDeviceSynchronize", 10.0 * i + 1, 10.0 * i + 2);
    tl.api_calls.back().call_site = i;
  }
  const Report r = MustAnalyze(tl);
  ASSERT_EQ(r.sync_points.size(), 1u);
  EXPECT_EQ(r.sync_points[0].call_site, "main (app.c:7)");
  EXPECT_EQ(r.sync_points[0].count, 3u);
}

// A run of syncs before the GPU resumes shares one idle stretch: it is
// counted once, so idle-after never exceeds the span.
TEST(SyncPointsTest, IdleAfterARunOfSyncsIsCountedOnce) {
  TimelineBuilder b;
  b.Launch(0, 1, 2, 10);
  b.Api("cudaFree", 11, 20);
  b.Api("cudaFree", 21, 30);
  b.Api("cudaFree", 31, 40);
  b.Launch(41, 42, 50, 60);  // GPU idle 10 .. 50
  const Report r = MustAnalyze(b.timeline());
  ASSERT_EQ(r.sync_points.size(), 1u);
  EXPECT_EQ(r.sync_points[0].count, 3u);
  EXPECT_EQ(r.sync_points[0].idle_after_ns, Us(50 - 11));
  EXPECT_LE(r.sync_points[0].idle_after_ns, r.devices[0].idle_ns);
}

TEST(SyncPointsTest, VersionSuffixedNamesClassify) {
  TimelineBuilder b;
  b.Launch(0, 1, 2, 10);
  b.Api("cudaStreamSynchronize_v3020", 2, 11);
  b.Api("cuCtxSynchronize", 11, 12);
  const Report r = MustAnalyze(b.timeline());
  EXPECT_NE(Find(r, "cudaStreamSynchronize_v3020"), nullptr);
  EXPECT_NE(Find(r, "cuCtxSynchronize"), nullptr);
}

}  // namespace
}  // namespace feedprof
