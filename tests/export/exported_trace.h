// Reads an exported trace back for the export tests, and the checks every
// export must pass: the JSON parses, slices are complete and nest per track,
// flows pair up, every track is named, counters are numbers; and the
// comparison of two reports that a round trip through Kineto JSON must keep.
#ifndef FEEDPROF_TESTS_EXPORT_EXPORTED_TRACE_H_
#define FEEDPROF_TESTS_EXPORT_EXPORTED_TRACE_H_

#include <map>
#include <set>
#include <string>
#include <vector>

#include "feedprof/analysis.h"

namespace feedprof::testing {

struct ExportedEvent {
  std::map<std::string, std::string> fields;  // scalars as written
  std::map<std::string, std::string> args;    // scalars; "[...]" for lists
  std::set<std::string> numeric_args;
  std::string Field(const std::string& key) const {
    auto it = fields.find(key);
    return it == fields.end() ? std::string() : it->second;
  }
  std::string Arg(const std::string& key) const {
    auto it = args.find(key);
    return it == args.end() ? std::string() : it->second;
  }
};

struct ExportedTrace {
  std::vector<ExportedEvent> events;
  std::set<std::string> top_level_keys;
  std::string error;  // empty when the file parsed
};

// Parses a plain or gzip export with feedprof's own JSON tokenizer (it
// checks the grammar throughout).
ExportedTrace ReadExportedTrace(const std::string& path);

// Adds a GoogleTest failure for every rule an export breaks.
void ExpectValidExport(const ExportedTrace& trace);

// Adds a failure for every figure a Kineto round trip must keep exactly:
// per device span, busy, idle, op counts, gap count and the idle causes that
// need no host samples; launch statistics; host-blocking sync points per
// (API, reason); GPU-side waits; step count.
void ExpectSameAnalysis(const Report& original, const Report& round_trip,
                        bool original_has_samples);

}  // namespace feedprof::testing

#endif  // FEEDPROF_TESTS_EXPORT_EXPORTED_TRACE_H_
