// Implements gpu_collection_status.h.
#include "preload/gpu_collection_status.h"

#include <cstring>
#include <string_view>

#include "preload/recorder.h"
#include "preload/recorder_state.h"
#include "preload/trace_packets.h"

namespace feedprof::preload {

void RecordGpuCollectionStatus(GpuCollectionState state, const char* detail) {
  if (!RecordingEnabled()) return;
  // Details are single log lines of at most ~1 KiB; a longer one is cut.
  uint8_t buffer[1280];
  std::string_view text = detail != nullptr ? detail : "";
  if (text.size() > 1200) text = text.substr(0, 1200);
  const size_t size = EncodeGpuCollectionPacket(static_cast<uint32_t>(state),
                                                text, buffer, sizeof buffer);
  if (size != 0) State().packets.Push(buffer, size);
}

}  // namespace feedprof::preload
