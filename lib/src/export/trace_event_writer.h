// Writes Chrome trace events one at a time into a ByteSink.
//
// An export of hundreds of millions of events cannot be a document tree or
// one string: each event is formatted into a small buffer that goes to the
// sink whenever it passes a threshold, so memory stays flat whatever the
// trace's size. Times are written as Kineto writes them, microseconds with
// a fraction ("1712195495505543.217"): three decimals carry every
// nanosecond, and feedprof's Kineto reader converts that text back to the
// same integer nanoseconds, so a round trip is exact. Strings go through
// the JSON writer's escaping (invalid UTF-8 becomes U+FFFD), doubles in
// their shortest round-trip form.
#ifndef FEEDPROF_LIB_SRC_EXPORT_TRACE_EVENT_WRITER_H_
#define FEEDPROF_LIB_SRC_EXPORT_TRACE_EVENT_WRITER_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "feedprof/export.h"
#include "feedprof/timeline.h"

namespace feedprof::exporter {

// Appends `ns` as microseconds with three decimals ("-1.500" for -1500).
void AppendMicros(TimeNs ns, std::string* out);

class TraceEventWriter {
 public:
  explicit TraceEventWriter(ByteSink* sink);

  // `{"traceEvents":[` — call once before the first event.
  void BeginTrace();

  // Opens an event: {"ph":..,"cat":..,"name":..,"pid":..,"tid":..
  // `cat` may be empty (left out).
  void Begin(std::string_view ph, std::string_view cat, std::string_view name,
             int64_t pid, int64_t tid);
  void Ts(TimeNs ns);
  void Dur(TimeNs ns);
  void Field(std::string_view key, int64_t value);
  void Field(std::string_view key, std::string_view value);

  // The event's "args" object; Arg* only between BeginArgs and EndArgs.
  void BeginArgs();
  void Arg(std::string_view key, int64_t value);
  void ArgUint(std::string_view key, uint64_t value);
  void ArgDouble(std::string_view key, double value);
  void Arg(std::string_view key, std::string_view value);
  // [a, b, c] of integers.
  void ArgTriple(std::string_view key, const uint32_t (&values)[3]);
  // A list of strings.
  void BeginArgList(std::string_view key);
  void ListString(std::string_view value);
  void EndArgList();
  void EndArgs();
  // Closes the event.
  void End();

  // `]` after the last event; then top-level keys with raw JSON values.
  void EndEvents();
  void TopLevelKey(std::string_view key);
  void Raw(std::string_view json);

  // Closes the top-level object, flushes and closes the sink; the first
  // error of any write.
  [[nodiscard]] absl::Status Finish();

  uint64_t events() const { return events_; }
  uint64_t bytes() const { return bytes_; }
  const absl::Status& status() const { return status_; }

 private:
  void Key(std::string_view key);
  void MaybeFlush();
  void Flush();

  ByteSink* sink_;
  std::string buf_;
  absl::Status status_;
  uint64_t events_ = 0;
  uint64_t bytes_ = 0;
  bool first_event_ = true;
  bool first_arg_ = true;
  bool first_list_item_ = true;
};

}  // namespace feedprof::exporter

#endif  // FEEDPROF_LIB_SRC_EXPORT_TRACE_EVENT_WRITER_H_
