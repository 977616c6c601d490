#include "cupti_hooks/recorder_sink.h"

#include "preload/recorder.h"

namespace feedprof::cupti {

const RecorderSink& ProcessRecorderSink() {
  static constexpr RecorderSink kSink{
      &preload::SubmitPacket, &preload::InternString, &preload::RecordApiCall,
      &preload::CountCuptiDrops, &preload::NowNs};
  return kSink;
}

}  // namespace feedprof::cupti
