// A module a Python test script loads with ctypes: each call captures the
// caller's call site with the collector's CallSiteRecorder and returns it as
// text ("python|file:line:function|..." or "native|N frames"), so the test
// can check the Python frames the recorder sees from inside a real
// interpreter.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <string>

#include "cupti_hooks/call_sites.h"
#include "feedprof.pb.h"

namespace {

std::map<uint32_t, std::string>& Strings() {
  static auto* strings = new std::map<uint32_t, std::string>();
  return *strings;
}
std::string& LastSite() {
  static auto* site = new std::string();
  return *site;
}

uint32_t Intern(std::string_view text) {
  auto& strings = Strings();
  for (const auto& [id, value] : strings) {
    if (value == text) return id;
  }
  const auto id = static_cast<uint32_t>(strings.size() + 1);
  strings[id] = std::string(text);
  return id;
}

bool Submit(const uint8_t* bytes, size_t size) {
  feedprof::trace::Packet packet;
  if (!packet.ParseFromArray(bytes, static_cast<int>(size)) ||
      !packet.has_call_sites()) {
    return false;
  }
  const auto& site = packet.call_sites().call_sites(0);
  std::string text = site.python() ? "python" : "native";
  if (site.python()) {
    for (const auto& f : site.frames()) {
      text += "|" + Strings()[f.file_id()] + ":" + std::to_string(f.line()) +
              ":" + Strings()[f.function_id()];
    }
  } else {
    text += "|" + std::to_string(site.frames_size()) + " frames";
  }
  LastSite() = text;
  return true;
}

void NoApiCall(const feedprof::preload::ApiCallRecord&) {}
void NoDrops(uint64_t, uint64_t, uint64_t) {}
uint64_t Zero() { return 0; }

const feedprof::cupti::RecorderSink kSink{&Submit, &Intern, &NoApiCall,
                                          &NoDrops, &Zero};

feedprof::cupti::CallSiteRecorder& Recorder() {
  static auto* recorder = new feedprof::cupti::CallSiteRecorder(kSink);
  return *recorder;
}

}  // namespace

// Returns the id of the caller's call site; its text goes to `out` when
// the site is new (else `out` is left empty).
extern "C" __attribute__((visibility("default"))) unsigned probe_call_site(
    char* out, int size) {
  LastSite().clear();
  const uint32_t id = Recorder().CaptureAndIntern();
  std::snprintf(out, static_cast<size_t>(size), "%s", LastSite().c_str());
  return id;
}

// Nanoseconds per call-site capture of the caller's stack (capture, hash
// and lookup of a site seen before), the best of `repeats` runs of
// `iterations`.
extern "C" __attribute__((visibility("default"))) double probe_time_capture(
    int iterations, int repeats) {
  double best = -1;
  uint32_t id = 0;
  for (int r = 0; r < repeats; ++r) {
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < iterations; ++i) {
      id |= Recorder().CaptureAndIntern();
    }
    const double ns = std::chrono::duration<double, std::nano>(
                          std::chrono::steady_clock::now() - start)
                          .count() /
                      iterations;
    if (best < 0 || ns < best) best = ns;
  }
  return id != 0 ? best : -1;
}
