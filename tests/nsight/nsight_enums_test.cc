// The value translations of the Nsight Systems importer, one by one.
#include "nsight/nsight_enums.h"

#include <gtest/gtest.h>

namespace feedprof::nsight {
namespace {

TEST(NsightEnumsTest, DecodesGlobalThreadId) {
  // A real globalTid from the saxpy export: pid 1230493, main thread.
  const GlobalThreadId id = DecodeGlobalId(302119224788637);
  EXPECT_EQ(id.pid, 1230493);
  EXPECT_EQ(id.tid, 1230493);
  // Its globalPid has tid 0.
  EXPECT_EQ(DecodeGlobalId(302119223558144).pid, 1230493);
  EXPECT_EQ(DecodeGlobalId(302119223558144).tid, 0);
}

TEST(NsightEnumsTest, StripsOnlyTrailingVersionSuffix) {
  EXPECT_EQ(StripVersionSuffix("cudaLaunchKernel_v7000"), "cudaLaunchKernel");
  EXPECT_EQ(StripVersionSuffix("cudaMalloc_v3020"), "cudaMalloc");
  EXPECT_EQ(StripVersionSuffix("cudaMalloc"), "cudaMalloc");
  EXPECT_EQ(StripVersionSuffix("cuModuleGetLoadingMode"),
            "cuModuleGetLoadingMode");
  EXPECT_EQ(StripVersionSuffix("cuMemcpy_v2x"), "cuMemcpy_v2x");
  EXPECT_EQ(StripVersionSuffix("kernel_v"), "kernel_v");
  EXPECT_EQ(StripVersionSuffix("_v12"), "_v12");  // nothing would be left
  EXPECT_EQ(StripVersionSuffix(""), "");
  EXPECT_TRUE(HasVersionSuffix("cudaFree_v3020"));
  EXPECT_FALSE(HasVersionSuffix("cudaFree"));
}

TEST(NsightEnumsTest, MemoryKindIsOneHigherThanNsys) {
  EXPECT_EQ(MemoryKindFromNsys(0), MemoryKind::kPageable);
  EXPECT_EQ(MemoryKindFromNsys(1), MemoryKind::kPinned);
  EXPECT_EQ(MemoryKindFromNsys(2), MemoryKind::kDevice);
  EXPECT_EQ(MemoryKindFromNsys(3), MemoryKind::kArray);
  EXPECT_EQ(MemoryKindFromNsys(4), MemoryKind::kManaged);
  EXPECT_EQ(MemoryKindFromNsys(5), MemoryKind::kDeviceStatic);
  EXPECT_EQ(MemoryKindFromNsys(6), MemoryKind::kManagedStatic);
  EXPECT_EQ(MemoryKindFromNsys(7), MemoryKind::kUnknown);  // nsys "Unknown"
  EXPECT_EQ(MemoryKindFromNsys(-1), MemoryKind::kUnknown);
  EXPECT_EQ(MemoryKindFromNsys(std::nullopt), MemoryKind::kUnknown);
}

TEST(NsightEnumsTest, CopyKindFollowsCupti) {
  EXPECT_EQ(CopyKindFromNsys(1), CopyKind::kHtoD);
  EXPECT_EQ(CopyKindFromNsys(2), CopyKind::kDtoH);
  EXPECT_EQ(CopyKindFromNsys(8), CopyKind::kDtoD);
  EXPECT_EQ(CopyKindFromNsys(10), CopyKind::kPtoP);
  EXPECT_EQ(CopyKindFromNsys(11), CopyKind::kHtoD);  // unified HtoD
  EXPECT_EQ(CopyKindFromNsys(12), CopyKind::kDtoH);
  EXPECT_EQ(CopyKindFromNsys(13), CopyKind::kDtoD);
  EXPECT_EQ(CopyKindFromNsys(99), CopyKind::kUnknown);
  EXPECT_EQ(CopyKindFromNsys(std::nullopt), CopyKind::kUnknown);
}

TEST(NsightEnumsTest, SyncTypeComesFromApiName) {
  EXPECT_EQ(SyncTypeFromApiName("cudaStreamSynchronize"),
            SyncType::kStreamSynchronize);
  EXPECT_EQ(SyncTypeFromApiName("cuStreamSynchronize"),
            SyncType::kStreamSynchronize);
  EXPECT_EQ(SyncTypeFromApiName("cudaEventSynchronize"),
            SyncType::kEventSynchronize);
  EXPECT_EQ(SyncTypeFromApiName("cudaEventQuery"), SyncType::kEventSynchronize);
  EXPECT_EQ(SyncTypeFromApiName("cudaDeviceSynchronize"),
            SyncType::kContextSynchronize);
  EXPECT_EQ(SyncTypeFromApiName("cuCtxSynchronize"),
            SyncType::kContextSynchronize);
  EXPECT_EQ(SyncTypeFromApiName("cudaStreamWaitEvent"),
            SyncType::kStreamWaitEvent);
  EXPECT_EQ(SyncTypeFromApiName("cudaLaunchKernel"), SyncType::kUnknown);
}

TEST(NsightEnumsTest, SyncTypeFromEnumLabel) {
  EXPECT_EQ(SyncTypeFromEnumLabel("Stream wait sync"),
            SyncType::kStreamWaitEvent);
  EXPECT_EQ(SyncTypeFromEnumLabel("Stream sync"), SyncType::kStreamSynchronize);
  EXPECT_EQ(SyncTypeFromEnumLabel("Event sync"), SyncType::kEventSynchronize);
  EXPECT_EQ(SyncTypeFromEnumLabel("Context sync"),
            SyncType::kContextSynchronize);
  EXPECT_EQ(SyncTypeFromEnumLabel("Unknown"), SyncType::kUnknown);
}

TEST(NsightEnumsTest, ApiDomain) {
  EXPECT_EQ(ApiDomainFor("cudaMalloc", 0), ApiDomain::kRuntime);
  EXPECT_EQ(ApiDomainFor("cuModuleGetLoadingMode", 1), ApiDomain::kDriver);
  EXPECT_EQ(ApiDomainFor("cudaMalloc", std::nullopt), ApiDomain::kRuntime);
  EXPECT_EQ(ApiDomainFor("cuLaunchKernel", std::nullopt), ApiDomain::kDriver);
  EXPECT_EQ(ApiDomainFor("cudaMalloc", kEventClassCudaBacktrace),
            ApiDomain::kRuntime);
}

}  // namespace
}  // namespace feedprof::nsight
