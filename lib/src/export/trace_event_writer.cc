#include "export/trace_event_writer.h"

#include <charconv>
#include <cmath>
#include <cstdio>

#include "common/json_writer.h"

namespace feedprof::exporter {
namespace {

constexpr size_t kFlushBytes = 256 << 10;

void AppendInt(int64_t v, std::string* out) {
  char digits[24];
  const auto r = std::to_chars(digits, digits + sizeof(digits), v);
  out->append(digits, r.ptr);
}

void AppendUint(uint64_t v, std::string* out) {
  char digits[24];
  const auto r = std::to_chars(digits, digits + sizeof(digits), v);
  out->append(digits, r.ptr);
}

void AppendDouble(double v, std::string* out) {
  if (!std::isfinite(v)) {
    out->append("0");  // counters must stay numeric
    return;
  }
  char digits[32];
  const auto r = std::to_chars(digits, digits + sizeof(digits), v);
  out->append(digits, r.ptr);
}

}  // namespace

void AppendMicros(TimeNs ns, std::string* out) {
  // Unsigned arithmetic: -INT64_MIN does not fit an int64.
  uint64_t magnitude = static_cast<uint64_t>(ns);
  if (ns < 0) {
    out->push_back('-');
    magnitude = ~magnitude + 1;
  }
  AppendUint(magnitude / 1000, out);
  const auto frac = static_cast<unsigned>(magnitude % 1000);
  char tail[5] = {'.', static_cast<char>('0' + frac / 100),
                  static_cast<char>('0' + frac / 10 % 10),
                  static_cast<char>('0' + frac % 10), 0};
  out->append(tail, 4);
}

TraceEventWriter::TraceEventWriter(ByteSink* sink) : sink_(sink) {
  buf_.reserve(kFlushBytes + 4096);
}

void TraceEventWriter::BeginTrace() { buf_.append("{\"traceEvents\":[\n"); }

void TraceEventWriter::Begin(std::string_view ph, std::string_view cat,
                             std::string_view name, int64_t pid, int64_t tid) {
  if (!first_event_) buf_.append(",\n");
  first_event_ = false;
  ++events_;
  buf_.append("{\"ph\":\"");
  buf_.append(ph);
  buf_.push_back('"');
  if (!cat.empty()) {
    buf_.append(",\"cat\":");
    common::AppendJsonString(cat, &buf_);
  }
  buf_.append(",\"name\":");
  common::AppendJsonString(name, &buf_);
  buf_.append(",\"pid\":");
  AppendInt(pid, &buf_);
  buf_.append(",\"tid\":");
  AppendInt(tid, &buf_);
}

void TraceEventWriter::Ts(TimeNs ns) {
  buf_.append(",\"ts\":");
  AppendMicros(ns, &buf_);
}

void TraceEventWriter::Dur(TimeNs ns) {
  buf_.append(",\"dur\":");
  AppendMicros(ns, &buf_);
}

void TraceEventWriter::Field(std::string_view key, int64_t value) {
  buf_.push_back(',');
  Key(key);
  AppendInt(value, &buf_);
}

void TraceEventWriter::Field(std::string_view key, std::string_view value) {
  buf_.push_back(',');
  Key(key);
  common::AppendJsonString(value, &buf_);
}

void TraceEventWriter::Key(std::string_view key) {
  common::AppendJsonString(key, &buf_);
  buf_.push_back(':');
}

void TraceEventWriter::BeginArgs() {
  buf_.append(",\"args\":{");
  first_arg_ = true;
}

#define FEEDPROF_ARG_PREFIX             \
  if (!first_arg_) buf_.push_back(','); \
  first_arg_ = false;                   \
  Key(key)

void TraceEventWriter::Arg(std::string_view key, int64_t value) {
  FEEDPROF_ARG_PREFIX;
  AppendInt(value, &buf_);
}

void TraceEventWriter::ArgUint(std::string_view key, uint64_t value) {
  FEEDPROF_ARG_PREFIX;
  AppendUint(value, &buf_);
}

void TraceEventWriter::ArgDouble(std::string_view key, double value) {
  FEEDPROF_ARG_PREFIX;
  AppendDouble(value, &buf_);
}

void TraceEventWriter::Arg(std::string_view key, std::string_view value) {
  FEEDPROF_ARG_PREFIX;
  common::AppendJsonString(value, &buf_);
}

void TraceEventWriter::ArgTriple(std::string_view key,
                                 const uint32_t (&values)[3]) {
  FEEDPROF_ARG_PREFIX;
  buf_.push_back('[');
  for (int i = 0; i < 3; ++i) {
    if (i > 0) buf_.push_back(',');
    AppendUint(values[i], &buf_);
  }
  buf_.push_back(']');
}

void TraceEventWriter::BeginArgList(std::string_view key) {
  FEEDPROF_ARG_PREFIX;
  buf_.push_back('[');
  first_list_item_ = true;
}

#undef FEEDPROF_ARG_PREFIX

void TraceEventWriter::ListString(std::string_view value) {
  if (!first_list_item_) buf_.push_back(',');
  first_list_item_ = false;
  common::AppendJsonString(value, &buf_);
}

void TraceEventWriter::EndArgList() { buf_.push_back(']'); }

void TraceEventWriter::EndArgs() { buf_.push_back('}'); }

void TraceEventWriter::End() {
  buf_.push_back('}');
  MaybeFlush();
}

void TraceEventWriter::EndEvents() { buf_.append("\n]"); }

void TraceEventWriter::TopLevelKey(std::string_view key) {
  buf_.append(",\n");
  Key(key);
}

void TraceEventWriter::Raw(std::string_view json) {
  buf_.append(json);
  MaybeFlush();
}

absl::Status TraceEventWriter::Finish() {
  buf_.append("\n}\n");
  Flush();
  absl::Status closed = sink_->Close();
  if (status_.ok()) status_ = closed;
  return status_;
}

void TraceEventWriter::MaybeFlush() {
  if (buf_.size() >= kFlushBytes) Flush();
}

void TraceEventWriter::Flush() {
  bytes_ += buf_.size();
  // After an error nothing more is written; the caller sees it at Finish.
  if (status_.ok()) status_ = sink_->Write(buf_);
  buf_.clear();
}

}  // namespace feedprof::exporter
