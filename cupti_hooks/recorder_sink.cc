#include "cupti_hooks/recorder_sink.h"

#include "preload/gpu_collection_status.h"
#include "preload/recorder.h"

namespace feedprof::cupti {
namespace {

void RecordStatus(uint32_t state, const char* detail) {
  preload::RecordGpuCollectionStatus(
      static_cast<preload::GpuCollectionState>(state), detail);
}

}  // namespace

const RecorderSink& ProcessRecorderSink() {
  static constexpr RecorderSink kSink{
      &preload::SubmitPacket,  &preload::InternString,
      &preload::RecordApiCall, &preload::CountCuptiDrops,
      &preload::NowNs,         &RecordStatus};
  return kSink;
}

}  // namespace feedprof::cupti
