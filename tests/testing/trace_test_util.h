// Reading trace files in tests: splits the length-delimited Trace stream
// into Packets with libprotobuf, the way the analysis side does, and stops
// at the first incomplete packet.
#ifndef FEEDPROF_TESTS_TESTING_TRACE_TEST_UTIL_H_
#define FEEDPROF_TESTS_TESTING_TRACE_TEST_UTIL_H_

#include <google/protobuf/io/coded_stream.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "proto/feedprof.pb.h"

namespace feedprof::testing {

struct ParsedTrace {
  std::vector<feedprof::trace::Packet> packets;
  size_t consumed_bytes = 0;  // bytes of the whole packets
  bool clean_end = false;     // the input ended exactly after a packet
  bool bad_packet = false;    // a whole packet that did not parse
};

inline ParsedTrace ParseTraceBytes(const uint8_t* data, size_t size) {
  ParsedTrace out;
  google::protobuf::io::CodedInputStream in(data, static_cast<int>(size));
  in.SetTotalBytesLimit(INT32_MAX);
  for (;;) {
    const int start = in.CurrentPosition();
    if (static_cast<size_t>(start) == size) {
      out.clean_end = true;
      break;
    }
    uint32_t tag = in.ReadTag();
    if (tag != 0x0A) break;
    uint32_t length = 0;
    if (!in.ReadVarint32(&length)) break;
    if (static_cast<size_t>(in.CurrentPosition()) + length > size) break;
    std::string bytes;
    if (!in.ReadString(&bytes, static_cast<int>(length))) break;
    feedprof::trace::Packet packet;
    if (!packet.ParseFromString(bytes)) {
      out.bad_packet = true;
      break;
    }
    out.packets.push_back(std::move(packet));
    out.consumed_bytes = static_cast<size_t>(in.CurrentPosition());
  }
  return out;
}

inline std::string ReadFileBytes(const std::string& path) {
  std::string bytes;
  if (std::FILE* f = std::fopen(path.c_str(), "rb")) {
    char buf[65536];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) bytes.append(buf, n);
    std::fclose(f);
  }
  return bytes;
}

inline ParsedTrace ParseTraceFile(const std::string& path) {
  const std::string bytes = ReadFileBytes(path);
  return ParseTraceBytes(reinterpret_cast<const uint8_t*>(bytes.data()),
                         bytes.size());
}

}  // namespace feedprof::testing

#endif  // FEEDPROF_TESTS_TESTING_TRACE_TEST_UTIL_H_
