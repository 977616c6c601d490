// API names and roles by CUPTI callback id, from the real libcupti.
#include "cupti_hooks/api_table.h"

#include <gtest/gtest.h>

#include "tests/cupti_hooks/loaded_cupti_test.h"

namespace feedprof::cupti {
namespace {

TEST(NormalizeApiNameTest, StripsVersionAndPerThreadSuffixes) {
  EXPECT_EQ(NormalizeApiName("cudaMemcpyAsync_ptsz_v7000"), "cudaMemcpyAsync");
  EXPECT_EQ(NormalizeApiName("cudaMemcpy_v3020"), "cudaMemcpy");
  EXPECT_EQ(NormalizeApiName("cuMemcpyHtoD_v2"), "cuMemcpyHtoD");
  EXPECT_EQ(NormalizeApiName("cuMemcpyHtoDAsync_v2_ptsz"), "cuMemcpyHtoDAsync");
  EXPECT_EQ(NormalizeApiName("cudaStreamGetCaptureInfo_v2_v11030"),
            "cudaStreamGetCaptureInfo");
  EXPECT_EQ(NormalizeApiName("cuLaunchKernel"), "cuLaunchKernel");
  EXPECT_EQ(NormalizeApiName("cuCtxCreate_v4"), "cuCtxCreate");
  EXPECT_EQ(NormalizeApiName(""), "");
}

TEST(ClassifyApiTest, RolesByName) {
  using enum ApiClass;
  const ApiDomain rt = ApiDomain::kRuntime;
  const ApiDomain drv = ApiDomain::kDriver;
  EXPECT_EQ(ClassifyApi(rt, "cudaDeviceSynchronize"), kBlocking);
  EXPECT_EQ(ClassifyApi(rt, "cudaStreamSynchronize"), kBlocking);
  EXPECT_EQ(ClassifyApi(rt, "cudaEventSynchronize"), kBlocking);
  EXPECT_EQ(ClassifyApi(rt, "cudaMemcpy"), kBlocking);
  EXPECT_EQ(ClassifyApi(rt, "cudaMemcpyAsync"), kBlocking);  // may be pageable
  EXPECT_EQ(ClassifyApi(rt, "cudaMemset"), kBlocking);
  EXPECT_EQ(ClassifyApi(rt, "cudaMemsetAsync"), kOrdinary);
  EXPECT_EQ(ClassifyApi(rt, "cudaMalloc"), kBlocking);
  EXPECT_EQ(ClassifyApi(rt, "cudaFree"), kBlocking);
  EXPECT_EQ(ClassifyApi(rt, "cudaHostAlloc"), kBlocking);
  EXPECT_EQ(ClassifyApi(rt, "cudaFreeHost"), kBlocking);
  EXPECT_EQ(ClassifyApi(rt, "cudaMallocAsync"), kOrdinary);
  EXPECT_EQ(ClassifyApi(rt, "cudaDeviceSetLimit"), kBlocking);
  EXPECT_EQ(ClassifyApi(rt, "cudaLaunchKernel"), kOrdinary);
  EXPECT_EQ(ClassifyApi(rt, "cudaEventRecord"), kOrdinary);
  EXPECT_EQ(ClassifyApi(rt, "cudaGetDevice"), kNoise);
  EXPECT_EQ(ClassifyApi(rt, "cudaGetLastError"), kNoise);
  EXPECT_EQ(ClassifyApi(rt, "cudaOccupancyMaxActiveBlocksPerMultiprocessor"),
            kNoise);
  EXPECT_EQ(ClassifyApi(rt, "cudaDeviceReset"), kFlushBefore);
  EXPECT_EQ(ClassifyApi(drv, "cuCtxSynchronize"), kBlocking);
  EXPECT_EQ(ClassifyApi(drv, "cuMemcpyDtoH"), kBlocking);
  EXPECT_EQ(ClassifyApi(drv, "cuMemsetD32"), kBlocking);
  EXPECT_EQ(ClassifyApi(drv, "cuMemsetD32Async"), kOrdinary);
  EXPECT_EQ(ClassifyApi(drv, "cuMemAlloc"), kBlocking);
  EXPECT_EQ(ClassifyApi(drv, "cuLaunchKernel"), kOrdinary);
  EXPECT_EQ(ClassifyApi(drv, "cuCtxGetCurrent"), kNoise);
  // Asked by the CUDA 13 runtime before each launch (seen on an H200).
  EXPECT_EQ(ClassifyApi(drv, "cuKernelGetName"), kNoise);
  EXPECT_EQ(ClassifyApi(drv, "cuCtxDestroy"), kFlushBefore);
  EXPECT_EQ(ClassifyApi(drv, "cudaGetDevice"), kOrdinary);  // wrong domain
}

TEST(IsCallbackOwnedTest, BlockingAndFlushBeforeOnly) {
  EXPECT_TRUE(IsCallbackOwned(ApiClass::kBlocking));
  EXPECT_TRUE(IsCallbackOwned(ApiClass::kFlushBefore));
  EXPECT_FALSE(IsCallbackOwned(ApiClass::kOrdinary));
  EXPECT_FALSE(IsCallbackOwned(ApiClass::kNoise));
}

using ApiTableTest = test::LoadedCuptiTest;

TEST_F(ApiTableTest, NamesAndRolesFromTheLoadedLibrary) {
  using enum ApiClass;
  const ApiDomain rt = ApiDomain::kRuntime;
  const ApiDomain drv = ApiDomain::kDriver;
  EXPECT_EQ(table_->Size(rt),
            static_cast<uint32_t>(CUPTI_RUNTIME_TRACE_CBID_SIZE));
  EXPECT_EQ(table_->Size(drv),
            static_cast<uint32_t>(CUPTI_DRIVER_TRACE_CBID_SIZE));
  EXPECT_EQ(
      table_->Name(rt, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_ptsz_v7000),
      "cudaMemcpyAsync");
  EXPECT_EQ(
      table_->Class(rt, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_ptsz_v7000),
      kBlocking);
  EXPECT_EQ(table_->Class(
                rt, CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_ptsz_v7000),
            kBlocking);
  EXPECT_EQ(table_->Class(rt, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000),
            kOrdinary);
  EXPECT_EQ(table_->Class(rt, CUPTI_RUNTIME_TRACE_CBID_cudaGetDevice_v3020),
            kNoise);
  EXPECT_EQ(table_->Class(drv, CUPTI_DRIVER_TRACE_CBID_cuCtxGetCurrent),
            kNoise);
  EXPECT_EQ(table_->Class(drv, CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2),
            kBlocking);
  EXPECT_EQ(table_->Class(rt, CUPTI_RUNTIME_TRACE_CBID_cudaDeviceReset_v3020),
            kFlushBefore);
  // Unknown ids are ordinary and nameless.
  EXPECT_EQ(table_->Name(rt, 1'000'000), "");
  EXPECT_EQ(table_->Class(rt, 1'000'000), kOrdinary);

  int blocking = 0;
  for (uint32_t id = 0; id < table_->Size(rt); ++id) {
    if (table_->Class(rt, id) == kBlocking) ++blocking;
  }
  // Every cudaMemcpy*/cudaMemset* variant, syncs and allocations.
  EXPECT_GE(blocking, 60);
  EXPECT_LE(blocking, 120);
}

}  // namespace
}  // namespace feedprof::cupti
