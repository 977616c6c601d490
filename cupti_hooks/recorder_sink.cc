#include "cupti_hooks/recorder_sink.h"

#include "preload/gpu_collection_status.h"
#include "preload/recorder.h"

namespace feedprof::cupti {

const RecorderSink& ProcessRecorderSink() {
  static constexpr RecorderSink kSink{
      &preload::SubmitPacket,  &preload::InternString,
      &preload::RecordApiCall, &preload::CountCuptiDrops,
      &preload::NowNs,         &preload::RecordGpuCollectionStatus};
  return kSink;
}

}  // namespace feedprof::cupti
