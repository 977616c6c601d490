// A feedprof trace file, parsed with libprotobuf for the end-to-end tests.
//
// The tests check what the injected library wrote, so they read the file
// with the reference protobuf parser (not with the analysis-side reader,
// which they would otherwise be testing at the same time): packets one by
// one, up to the last whole packet, with interned ids resolved and
// delta-encoded timestamps turned into absolute ones.
#ifndef FEEDPROF_TESTS_E2E_TRACE_FILE_H_
#define FEEDPROF_TESTS_E2E_TRACE_FILE_H_

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "proto/feedprof.pb.h"

namespace feedprof::e2e {

struct Range {
  uint32_t tid = 0;
  uint64_t start_ns = 0;
  uint64_t end_ns = 0;
  std::string name;
  std::string domain;
  uint32_t depth = 0;
  uint32_t category = 0;
  uint32_t color = 0;
  uint64_t payload = 0;
  uint32_t start_tid = 0;
  bool start_end = false;
};

struct Mark {
  uint32_t tid = 0;
  uint64_t ts_ns = 0;
  std::string name;
  std::string domain;
  uint32_t category = 0;
  uint32_t color = 0;
};

struct ThreadSample {
  uint32_t tid = 0;
  uint64_t ts_ns = 0;
  uint64_t user_ns = 0;
  uint64_t system_ns = 0;
  std::string name;
};

// A process's counters at one instant, its time made absolute.
struct ProcessSample {
  uint64_t ts_ns = 0;
  trace::ProcessSample counters;
};

struct TraceFile {
  std::string path;
  size_t packets = 0;
  // Bytes after the last whole packet (a file cut off mid-packet).
  size_t trailing_bytes = 0;
  bool has_header = false;
  trace::Header header;
  bool has_footer = false;
  trace::Footer footer;
  bool has_drops = false;
  trace::DropCounts drops;  // the last one in the file
  std::vector<Range> ranges;
  std::vector<Mark> marks;
  std::vector<ThreadSample> thread_samples;
  std::vector<ProcessSample> process_samples;    // in time order
  std::map<uint32_t, std::string> thread_names;  // from ThreadInfo packets
  std::map<uint32_t, std::string> strings;       // interned id -> text
  // (domain name, category) -> category name, from NvtxCategoryName packets.
  std::map<std::pair<std::string, uint32_t>, std::string> category_names;

  // Ranges named `name` on thread `tid` (any thread when tid is 0).
  std::vector<Range> RangesNamed(const std::string& name,
                                 uint32_t tid = 0) const;
  std::vector<Mark> MarksNamed(const std::string& name) const;
  // Highest cumulative user+system CPU time sampled for `tid`; 0 if none.
  uint64_t MaxThreadCpuNs(uint32_t tid) const;
};

// Parses the file at `path`. Returns false (with `*error` set) only when the
// file cannot be opened or a whole packet does not parse.
bool ReadTraceFile(const std::string& path, TraceFile* trace,
                   std::string* error);

// Every `*.fpt` file under `dir`, recursively, sorted.
std::vector<std::string> FindTraceFiles(const std::string& dir);

}  // namespace feedprof::e2e

#endif  // FEEDPROF_TESTS_E2E_TRACE_FILE_H_
