// Builds feedprof trace files for the reader tests.
//
// The tests write traces with libprotobuf exactly as the recorder frames
// them (tag 0x0A, varint length, Packet bytes), so every number a test
// checks after reading is one it put there.
#ifndef FEEDPROF_TESTS_TESTING_TRACE_TEST_FILES_H_
#define FEEDPROF_TESTS_TESTING_TRACE_TEST_FILES_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "feedprof.pb.h"

namespace feedprof::testing {

// One packet framed as a Trace.packet field.
std::string FramePacket(const trace::Packet& packet);
std::string FramePackets(const std::vector<trace::Packet>& packets);

// A packet that defines the given (id, text) interned strings.
trace::Packet StringsPacket(
    const std::vector<std::pair<uint32_t, std::string>>& strings);

void WriteFile(const std::string& path, std::string_view bytes);
std::string ReadFile(const std::string& path);

// A fresh directory under the test temp dir, removed with its contents.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string File(std::string_view name) const;

 private:
  std::string path_;
};

// A trace of one process (pid 4242, rank 3) with every packet kind; the
// numbers are spelled out in trace_test_files.cc and checked by the tests.
std::vector<trace::Packet> FullTracePackets();

// A minimal process: header, strings {1: kernel_name}, one kernel with
// correlation 1 at `start_ns` lasting 100 ns, one launch call with
// correlation 1, drops with `events_dropped`.
std::vector<trace::Packet> SmallProcessPackets(uint32_t pid, int32_t rank,
                                               const std::string& kernel_name,
                                               uint64_t start_ns,
                                               uint64_t events_dropped);

}  // namespace feedprof::testing

#endif  // FEEDPROF_TESTS_TESTING_TRACE_TEST_FILES_H_
