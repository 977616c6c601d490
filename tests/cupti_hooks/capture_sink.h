// A RecorderSink that keeps everything the CUPTI collector hands over, so
// tests can parse the packets with libprotobuf and check each field.
#ifndef FEEDPROF_TESTS_CUPTI_HOOKS_CAPTURE_SINK_H_
#define FEEDPROF_TESTS_CUPTI_HOOKS_CAPTURE_SINK_H_

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "cupti_hooks/recorder_sink.h"
#include "feedprof.pb.h"

namespace feedprof::cupti::test {

struct Captured {
  std::mutex mutex;
  std::vector<trace::Packet> packets;
  std::map<std::string, uint32_t> ids;
  std::map<uint32_t, std::string> strings;
  std::vector<preload::ApiCallRecord> api_calls;
  uint64_t records_dropped = 0;
  uint64_t zero_timestamps = 0;
  uint64_t buffers_dropped = 0;
  uint64_t unparsable = 0;
  uint64_t now = 1'000'000;

  void Clear() {
    std::lock_guard<std::mutex> lock(mutex);
    packets.clear();
    api_calls.clear();
    records_dropped = zero_timestamps = buffers_dropped = unparsable = 0;
  }
  std::string Text(uint32_t id) {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = strings.find(id);
    return it == strings.end() ? std::string() : it->second;
  }
  std::vector<trace::EventBatch> Batches() {
    std::lock_guard<std::mutex> lock(mutex);
    std::vector<trace::EventBatch> out;
    for (const auto& p : packets) {
      if (p.has_events()) out.push_back(p.events());
    }
    return out;
  }
};

inline Captured& captured() {
  static Captured* c = new Captured();
  return *c;
}

inline bool CaptureSubmit(const uint8_t* bytes, size_t size) {
  trace::Packet packet;
  Captured& c = captured();
  std::lock_guard<std::mutex> lock(c.mutex);
  if (!packet.ParseFromArray(bytes, static_cast<int>(size))) {
    ++c.unparsable;
    return true;
  }
  c.packets.push_back(packet);
  return true;
}

inline uint32_t CaptureIntern(std::string_view text) {
  Captured& c = captured();
  std::lock_guard<std::mutex> lock(c.mutex);
  auto [it, inserted] =
      c.ids.emplace(std::string(text), static_cast<uint32_t>(c.ids.size() + 1));
  if (inserted) c.strings[it->second] = it->first;
  return it->second;
}

inline void CaptureApiCall(const preload::ApiCallRecord& record) {
  Captured& c = captured();
  std::lock_guard<std::mutex> lock(c.mutex);
  c.api_calls.push_back(record);
}

inline void CaptureDrops(uint64_t records, uint64_t zero, uint64_t buffers) {
  Captured& c = captured();
  std::lock_guard<std::mutex> lock(c.mutex);
  c.records_dropped += records;
  c.zero_timestamps += zero;
  c.buffers_dropped += buffers;
}

// A clock that advances 1 µs per reading, so durations are exact.
inline uint64_t CaptureNow() { return captured().now += 1000; }

inline const RecorderSink& CaptureSink() {
  static const RecorderSink sink{&CaptureSubmit, &CaptureIntern,
                                 &CaptureApiCall, &CaptureDrops, &CaptureNow};
  return sink;
}

}  // namespace feedprof::cupti::test

#endif  // FEEDPROF_TESTS_CUPTI_HOOKS_CAPTURE_SINK_H_
