// The collector as libfeedprof.so runs it: StartCollection on this machine
// (CUPTI present, no driver), the degrade paths with their one line, and
// the buffer callbacks CUPTI would call, through the pool and converter.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "cupti_hooks/activity_buffer_pool.h"
#include "cupti_hooks/collector.h"
#include "cupti_hooks/cupti_entry.h"
#include "cupti_hooks/cupti_loader.h"
#include "preload/reentrancy_guard.h"
#include "tests/cupti_hooks/capture_sink.h"

namespace feedprof::cupti {
namespace {

using test::captured;
using test::CaptureSink;

int CountLines(const std::string& text) {
  int n = 0;
  for (char c : text) n += c == '\n';
  return n;
}

class CollectionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    unsetenv("FEEDPROF_CUPTI_PATH");
    unsetenv("FEEDPROF_CUPTI_BUFFER_MB");
    testing::ResetCollectionForTest();
    testing::SetRecorderSinkForTest(&CaptureSink());
    captured().Clear();
  }
  void TearDown() override {
    testing::SetRecorderSinkForTest(nullptr);
    testing::ResetCollectionForTest();
  }
};

bool DriverPresent() {
  void* h = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
  if (h == nullptr) h = dlopen("libcuda.so.1", RTLD_LAZY);
  if (h != nullptr) dlclose(h);
  return h != nullptr;
}

TEST_F(CollectionTest, NoDriverMeansHostOnlyWithOneLine) {
  if (DriverPresent()) GTEST_SKIP() << "a CUDA driver is installed here";
  ::testing::internal::CaptureStderr();
  const bool started = StartCollection();
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_FALSE(started);
  EXPECT_EQ(testing::LastCollectionMode(), CollectionMode::kHostOnly);
  EXPECT_EQ(CountLines(err), 1) << err;
  EXPECT_EQ(err.rfind("feedprof: ", 0), 0u) << err;
  EXPECT_NE(err.find("host-only"), std::string::npos) << err;
  EXPECT_NE(err.find("No CUDA driver"), std::string::npos) << err;

  // Later calls say nothing more and do nothing.
  ::testing::internal::CaptureStderr();
  EXPECT_FALSE(StartCollection());
  FlushCollection(false);
  FlushCollection(true);
  StopCollection();
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
  EXPECT_TRUE(captured().packets.empty());
}

TEST_F(CollectionTest, MissingLibcuptiMeansHostOnlyWithOneLine) {
  setenv("FEEDPROF_CUPTI_PATH", "/nonexistent/libcupti.so.13", 1);
  ::testing::internal::CaptureStderr();
  const bool started = StartCollection();
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_FALSE(started);
  EXPECT_EQ(CountLines(err), 1) << err;
  EXPECT_EQ(err.rfind("feedprof: ", 0), 0u) << err;
  EXPECT_NE(err.find("FEEDPROF_CUPTI_PATH=/nonexistent/libcupti.so.13"),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("not recorded"), std::string::npos) << err;
}

TEST_F(CollectionTest, WrongLibraryMeansHostOnlyWithOneLine) {
  // A loadable library that is not CUPTI.
  setenv("FEEDPROF_CUPTI_PATH", "libz.so.1", 1);
  ::testing::internal::CaptureStderr();
  EXPECT_FALSE(StartCollection());
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(CountLines(err), 1) << err;
  EXPECT_NE(err.find("lacks cuptiGetVersion"), std::string::npos) << err;
}

TEST_F(CollectionTest, ForkedChildNeverStarts) {
  OnForkChild();
  ::testing::internal::CaptureStderr();
  EXPECT_FALSE(StartCollection());
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
}

TEST(PlanCollectionTest, EveryCombinationOfResults) {
  CuptiApi api;
  char message[1024];
  ASSERT_EQ(LoadCupti(&api, message, sizeof message), LoadStatus::kLoaded);

  EXPECT_EQ(PlanCollection(api, CUPTI_SUCCESS, CUPTI_SUCCESS, message,
                           sizeof message),
            CollectionMode::kFull);
  EXPECT_STREQ(message, "");

  EXPECT_EQ(PlanCollection(api, CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED,
                           CUPTI_SUCCESS, message, sizeof message),
            CollectionMode::kActivityOnly);
  EXPECT_NE(
      std::strstr(message, "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED"),
      nullptr)
      << message;
  EXPECT_NE(std::strstr(message, "call sites"), nullptr) << message;
  EXPECT_EQ(std::strchr(message, '\n'), nullptr);

  EXPECT_EQ(PlanCollection(api, CUPTI_ERROR_NOT_INITIALIZED, CUPTI_SUCCESS,
                           message, sizeof message),
            CollectionMode::kActivityOnly);
  EXPECT_NE(std::strstr(message, "CUPTI_ERROR_NOT_INITIALIZED"), nullptr);

  EXPECT_EQ(PlanCollection(api, CUPTI_SUCCESS, CUPTI_ERROR_NOT_INITIALIZED,
                           message, sizeof message),
            CollectionMode::kHostOnly);
  EXPECT_NE(std::strstr(message, "host-only"), nullptr) << message;

  EXPECT_EQ(PlanCollection(api, CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED,
                           CUPTI_ERROR_INSUFFICIENT_PRIVILEGES, message,
                           sizeof message),
            CollectionMode::kHostOnly);
  EXPECT_NE(std::strstr(message, "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES"),
            nullptr)
      << message;
  UnloadCupti(&api);
}

TEST(CuptiLoaderTest, CudaHomeLayoutsAreCandidates) {
  unsetenv("FEEDPROF_CUPTI_PATH");
  setenv("CUDA_HOME", "/opt/cuda-x", 1);
  setenv("CUDA_PATH", "relative/is/ignored", 1);
  char paths[kMaxCandidatePaths][kPathCapacity];
  const size_t n = CuptiCandidatePaths(paths, kMaxCandidatePaths);
  unsetenv("CUDA_HOME");
  unsetenv("CUDA_PATH");
  std::vector<std::string> found(paths, paths + n);
  for (const char* layout : {"lib64", "extras/CUPTI/lib64", "lib"}) {
    const std::string want =
        std::string("/opt/cuda-x/") + layout + "/libcupti.so.13";
    EXPECT_NE(std::find(found.begin(), found.end(), want), found.end()) << want;
  }
  for (const std::string& path : found) {
    EXPECT_EQ(path.find("relative/is/ignored"), std::string::npos) << path;
  }
  // Before the plain soname, which stays last.
  EXPECT_EQ(found.back(), "libcupti.so.13");
}

TEST(CuptiLoaderTest, VersionsOfTheSameMajorAreCompatible) {
  EXPECT_TRUE(CuptiVersionCompatible(130001, 130001));
  EXPECT_TRUE(CuptiVersionCompatible(130000, 130001));
  EXPECT_TRUE(CuptiVersionCompatible(130102, 130001));
  EXPECT_FALSE(CuptiVersionCompatible(120900, 130001));
  EXPECT_FALSE(CuptiVersionCompatible(28, 130001));
  EXPECT_FALSE(CuptiVersionCompatible(140000, 130001));
}

TEST(CuptiLoaderTest, LoadsTheToolkitCopyAndChecksItsVersion) {
  unsetenv("FEEDPROF_CUPTI_PATH");
  char paths[kMaxCandidatePaths][kPathCapacity];
  const size_t n = CuptiCandidatePaths(paths, kMaxCandidatePaths);
  ASSERT_GE(n, 2u);  // the toolkit's copy and the plain soname at least
  EXPECT_STREQ(paths[n - 1], "libcupti.so.13");
  // The usual layouts of this machine's toolkit come after the build's.
  bool has_lib64 = false;
  for (size_t i = 0; i < n; ++i) {
    has_lib64 |=
        std::strcmp(paths[i], "/usr/local/cuda/lib64/libcupti.so.13") == 0;
  }
  EXPECT_TRUE(has_lib64);
  CuptiApi api;
  char message[1024];
  ASSERT_EQ(LoadCupti(&api, message, sizeof message), LoadStatus::kLoaded)
      << message;
  EXPECT_TRUE(CuptiVersionCompatible(api.version, CUPTI_API_VERSION));
  EXPECT_NE(api.ActivityGetNextRecord, nullptr);
  EXPECT_STREQ(api.ResultName(CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED),
               "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED");
  // Once mapped, the copy in the process is found first.
  const size_t again = CuptiCandidatePaths(paths, kMaxCandidatePaths);
  ASSERT_GE(again, 1u);
  EXPECT_NE(std::strstr(paths[0], "libcupti.so"), nullptr) << paths[0];
  EXPECT_STREQ(paths[0], api.path);
  UnloadCupti(&api);
}

// CUPTI's buffer callbacks after a start that loaded libcupti (here it
// ends host-only for want of a driver, but the path CUPTI would drive is
// the same): pooled buffers, conversion, drop and zero-timestamp counts.
TEST_F(CollectionTest, BufferCallbacksConvertAndCountDrops) {
  setenv("FEEDPROF_CUPTI_BUFFER_MB", "16", 1);  // two 8 MiB buffers
  ::testing::internal::CaptureStderr();
  StartCollection();
  ::testing::internal::GetCapturedStderr();

  uint8_t* a = nullptr;
  uint8_t* b = nullptr;
  uint8_t* c = nullptr;
  size_t size_a = 0, size_b = 0, size_c = 0, max_records = 1;
  testing::RequestBufferForTest(&a, &size_a, &max_records);
  testing::RequestBufferForTest(&b, &size_b, &max_records);
  testing::RequestBufferForTest(&c, &size_c, &max_records);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(size_a, ActivityBufferPool::kDefaultBufferBytes);
  EXPECT_EQ(max_records, 0u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a) % 8, 0u);
  EXPECT_EQ(c, nullptr);  // past the cap
  EXPECT_EQ(size_c, 0u);

  // CUPTI fills `a`: one kernel, one zero-timestamp kernel.
  CUpti_ActivityKernel10 k{};
  k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  k.start = 1'000;
  k.end = 3'000;
  k.name = "_Z4stepv";
  std::memcpy(a, &k, sizeof k);
  k.start = 0;
  std::memcpy(a + sizeof k, &k, sizeof k);
  testing::CompleteBufferForTest(a, size_a, 2 * sizeof k);

  auto batches = captured().Batches();
  ASSERT_EQ(batches.size(), 1u);
  ASSERT_EQ(batches[0].kernels_size(), 1);
  EXPECT_EQ(batches[0].kernels(0).duration_ns(), 2'000u);
  EXPECT_EQ(captured().Text(batches[0].kernels(0).name_id()), "step()");
  EXPECT_EQ(captured().zero_timestamps, 1u);
  EXPECT_EQ(captured().buffers_dropped, 1u);  // the refused third request
  EXPECT_EQ(captured().records_dropped, 0u);

  // The returned buffer is reused; the cap still holds.
  uint8_t* d = nullptr;
  size_t size_d = 0;
  testing::RequestBufferForTest(&d, &size_d, &max_records);
  EXPECT_EQ(d, a);
  testing::RequestBufferForTest(&c, &size_c, &max_records);
  EXPECT_EQ(c, nullptr);
  // An empty completion returns the buffer and reports the new refusal.
  testing::CompleteBufferForTest(b, size_b, 0);
  EXPECT_EQ(captured().buffers_dropped, 2u);
  testing::CompleteBufferForTest(d, size_d, 0);
}

// What the fake cuptiActivityFlushAll saw.
struct FlushSeen {
  int calls = 0;
  uint32_t flag = 0;
  uint8_t recorder_in_call = 0;
  pthread_t thread{};
};
FlushSeen g_flush_seen;

CUptiResult FakeFlushAll(uint32_t flag) {
  ++g_flush_seen.calls;
  g_flush_seen.flag = flag;
  g_flush_seen.recorder_in_call = preload::t_recorder.in_call;
  g_flush_seen.thread = pthread_self();
  return CUPTI_SUCCESS;
}

// At exit the recorder's exit handler is on the stack and refuses packets
// from its thread: the forced flush must run where they are accepted.
TEST(FlushTest, FlushFromInsideTheRecorderRunsOnACleanThread) {
  CuptiApi api;
  api.ActivityFlushAll = &FakeFlushAll;
  g_flush_seen = FlushSeen{};
  testing::FlushAllForTest(api, 0);
  EXPECT_EQ(g_flush_seen.calls, 1);
  EXPECT_TRUE(pthread_equal(g_flush_seen.thread, pthread_self()));

  preload::t_recorder.in_call = 1;  // as inside the exit handler
  testing::FlushAllForTest(api, CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  preload::t_recorder.in_call = 0;
  EXPECT_EQ(g_flush_seen.calls, 2);
  EXPECT_EQ(g_flush_seen.flag,
            static_cast<uint32_t>(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));
  EXPECT_EQ(g_flush_seen.recorder_in_call, 0);
  EXPECT_FALSE(pthread_equal(g_flush_seen.thread, pthread_self()));
}

}  // namespace
}  // namespace feedprof::cupti
