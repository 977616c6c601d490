#include "bench/bigtrace/kineto_repeater.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "kineto/gzip_input.h"
#include "kineto/json_tokenizer.h"

namespace feedprof::bench {
namespace {

using kineto::JsonToken;
using kineto::JsonTokenizer;

constexpr std::string_view kStepPrefix = "ProfilerStep#";
// Time between the end of one copy and the start of the next.
constexpr int64_t kGapMicros = 1000;

enum class PatchKind : uint8_t { kTime, kId, kStep, kPid, kRank, kWorldSize };

// A number in the source text that changes from copy to copy. For times
// only the integer part (whole µs) is patched; the fraction stays.
struct Patch {
  uint64_t offset = 0;
  uint32_t length = 0;
  PatchKind kind = PatchKind::kTime;
  int64_t value = 0;
};

struct EventSpan {
  uint64_t begin = 0;
  uint64_t end = 0;
  size_t patches_begin = 0;
  size_t patches_end = 0;
  bool metadata = false;
};

struct SourceEvents {
  std::string text;
  uint64_t array_prefix_end = 0;  // where the first event begins
  uint64_t array_suffix_begin = 0;
  std::string separator;  // between two events, as the source writes it
  std::vector<EventSpan> events;
  std::vector<Patch> patches;
  // The rank and world size in "distributedInfo", before the array.
  std::vector<Patch> header_patches;
  int64_t min_ts_us = INT64_MAX;
  int64_t max_end_us = INT64_MIN;
  int64_t max_id = 0;
  int64_t min_step = INT64_MAX;
  int64_t max_step = INT64_MIN;
};

bool ParseDigits(std::string_view digits, int64_t* value) {
  if (digits.empty()) return false;
  const auto [ptr, ec] =
      std::from_chars(digits.data(), digits.data() + digits.size(), *value);
  return ec == std::errc() && ptr == digits.data() + digits.size();
}

// The whole-µs part of a number token, when it is plain digits.
bool WholeMicros(std::string_view number, uint32_t* length, int64_t* value) {
  const size_t dot = number.find('.');
  const std::string_view whole = number.substr(0, dot);
  if (whole.find_first_not_of("0123456789") != std::string_view::npos) {
    return false;
  }
  if (dot != std::string_view::npos &&
      number.find_first_of("eE") != std::string_view::npos) {
    return false;
  }
  *length = static_cast<uint32_t>(whole.size());
  return ParseDigits(whole, value);
}

absl::Status Malformed(const std::string& path, const JsonTokenizer& tokens) {
  return absl::InvalidArgumentError(
      absl::StrCat(path, ": cannot repeat this trace: ",
                   tokens.failed() ? tokens.error() : "unexpected JSON shape",
                   "; use a Kineto trace as the PyTorch profiler writes it"));
}

// Reads an object value (anything else is skipped), noting a patch for
// each whole number it holds under a key `kind_of` gives a kind
// (std::nullopt: not patched).
template <typename KindOf>
bool ReadNumbersOfObject(JsonTokenizer& tokens, KindOf kind_of,
                         std::vector<Patch>* patches) {
  JsonToken t = tokens.Next();
  if (t != JsonToken::kObjectBegin) {
    return t == JsonToken::kArrayBegin ? tokens.SkipRestOfContainer()
                                       : t != JsonToken::kError;
  }
  for (;;) {
    t = tokens.Next();
    if (t == JsonToken::kObjectEnd) return true;
    if (t != JsonToken::kKey) return false;
    const std::optional<PatchKind> kind = kind_of(tokens.text());
    if (!kind) {
      if (!tokens.SkipValue()) return false;
      continue;
    }
    t = tokens.Next();
    int64_t number = 0;
    if (t == JsonToken::kNumber && ParseDigits(tokens.text(), &number)) {
      patches->push_back(Patch{tokens.token_offset(),
                               static_cast<uint32_t>(tokens.text().size()),
                               *kind, number});
    } else if (t == JsonToken::kObjectBegin || t == JsonToken::kArrayBegin) {
      if (!tokens.SkipRestOfContainer()) return false;
    } else if (t == JsonToken::kError) {
      return false;
    }
  }
}

// Reads the rest of the "args" object, noting id patches.
bool ReadArgs(JsonTokenizer& tokens, SourceEvents* source) {
  const size_t before = source->patches.size();
  const bool ok = ReadNumbersOfObject(
      tokens,
      [](std::string_view key) -> std::optional<PatchKind> {
        if (key == "correlation" || key == "External id" ||
            key == "external id") {
          return PatchKind::kId;
        }
        return std::nullopt;
      },
      &source->patches);
  for (size_t i = before; i < source->patches.size(); ++i) {
    source->max_id = std::max(source->max_id, source->patches[i].value);
  }
  return ok;
}

bool ReadEvent(JsonTokenizer& tokens, SourceEvents* source, EventSpan* span) {
  span->patches_begin = source->patches.size();
  int64_t ts_us = 0;
  int64_t dur_us = 0;
  bool has_ts = false;
  for (;;) {
    JsonToken t = tokens.Next();
    if (t == JsonToken::kObjectEnd) break;
    if (t != JsonToken::kKey) return false;
    const std::string_view key = tokens.text();
    if (key == "args") {
      if (!ReadArgs(tokens, source)) return false;
      continue;
    }
    if (key != "ts" && key != "dur" && key != "id" && key != "ph" &&
        key != "name" && key != "pid") {
      if (!tokens.SkipValue()) return false;
      continue;
    }
    const std::string k(key);
    t = tokens.Next();
    if (t == JsonToken::kObjectBegin || t == JsonToken::kArrayBegin) {
      if (!tokens.SkipRestOfContainer()) return false;
      continue;
    }
    if (t == JsonToken::kError) return false;
    const std::string_view value = tokens.text();
    if (k == "ph") {
      span->metadata = t == JsonToken::kString && value == "M";
    } else if (k == "name") {
      // The digits of "ProfilerStep#N", when the string has no escapes
      // (its text then sits in the source right after the quote).
      int64_t step = 0;
      if (t == JsonToken::kString &&
          value.substr(0, kStepPrefix.size()) == kStepPrefix) {
        const std::string_view digits = value.substr(kStepPrefix.size());
        const uint64_t at = tokens.token_offset() + 1 + kStepPrefix.size();
        if (ParseDigits(digits, &step) &&
            std::string_view(source->text).substr(at, digits.size()) ==
                digits) {
          source->patches.push_back(Patch{at,
                                          static_cast<uint32_t>(digits.size()),
                                          PatchKind::kStep, step});
          source->min_step = std::min(source->min_step, step);
          source->max_step = std::max(source->max_step, step);
        }
      }
    } else if (k == "pid") {
      int64_t pid = 0;
      if (t == JsonToken::kNumber && ParseDigits(value, &pid)) {
        source->patches.push_back(Patch{tokens.token_offset(),
                                        static_cast<uint32_t>(value.size()),
                                        PatchKind::kPid, pid});
      }
    } else if (t == JsonToken::kNumber) {
      uint32_t length = 0;
      int64_t whole = 0;
      if (!WholeMicros(value, &length, &whole)) continue;
      if (k == "ts") {
        source->patches.push_back(
            Patch{tokens.token_offset(), length, PatchKind::kTime, whole});
        ts_us = whole;
        has_ts = true;
      } else if (k == "dur") {
        dur_us = whole + 1;
      } else if (value.find('.') == std::string_view::npos) {  // "id"
        source->patches.push_back(
            Patch{tokens.token_offset(), length, PatchKind::kId, whole});
        source->max_id = std::max(source->max_id, whole);
      }
    }
  }
  span->end = tokens.offset();
  span->patches_end = source->patches.size();
  if (has_ts && !span->metadata) {
    source->min_ts_us = std::min(source->min_ts_us, ts_us);
    source->max_end_us = std::max(source->max_end_us, ts_us + dur_us);
  }
  // Patches are applied in text order.
  std::sort(source->patches.begin() +
                static_cast<std::ptrdiff_t>(span->patches_begin),
            source->patches.end(),
            [](const Patch& a, const Patch& b) { return a.offset < b.offset; });
  return true;
}

// The value of "distributedInfo": where its "rank" and "world_size"
// numbers are, when it is an object that has them.
bool ReadDistributedInfo(JsonTokenizer& tokens, SourceEvents* source) {
  return ReadNumbersOfObject(
      tokens,
      [](std::string_view key) -> std::optional<PatchKind> {
        if (key == "rank") return PatchKind::kRank;
        if (key == "world_size") return PatchKind::kWorldSize;
        return std::nullopt;
      },
      &source->header_patches);
}

absl::StatusOr<SourceEvents> ReadSource(const std::string& path) {
  auto input = kineto::GzipFileInput::Open(path);
  if (!input.ok()) return input.status();
  SourceEvents source;
  std::vector<char> chunk(1 << 20);
  for (;;) {
    const size_t n = (*input)->Read(chunk.data(), chunk.size());
    if (n == 0) break;
    source.text.append(chunk.data(), n);
  }
  if ((*input)->end() != kineto::GzipFileInput::End::kClean) {
    return absl::DataLossError(
        absl::StrCat(path, ": cannot read it whole: ", (*input)->detail()));
  }

  kineto::StringByteSource bytes(source.text);
  JsonTokenizer tokens(&bytes);
  if (tokens.Next() != JsonToken::kObjectBegin) return Malformed(path, tokens);
  bool found = false;
  for (;;) {
    JsonToken t = tokens.Next();
    if (t == JsonToken::kObjectEnd) break;
    if (t != JsonToken::kKey) return Malformed(path, tokens);
    if (tokens.text() == "distributedInfo" && !found) {
      if (!ReadDistributedInfo(tokens, &source)) return Malformed(path, tokens);
      continue;
    }
    if (tokens.text() != "traceEvents" || found) {
      if (!tokens.SkipValue()) return Malformed(path, tokens);
      continue;
    }
    found = true;
    if (tokens.Next() != JsonToken::kArrayBegin) {
      return Malformed(path, tokens);
    }
    for (;;) {
      t = tokens.Next();
      if (t == JsonToken::kArrayEnd) break;
      if (t != JsonToken::kObjectBegin) return Malformed(path, tokens);
      EventSpan span;
      span.begin = tokens.token_offset();
      if (!ReadEvent(tokens, &source, &span)) return Malformed(path, tokens);
      source.events.push_back(span);
    }
  }
  if (source.events.size() < 2 || source.min_ts_us > source.max_end_us) {
    return absl::InvalidArgumentError(
        absl::StrCat(path,
                     ": cannot repeat this trace: it needs at least two timed "
                     "events in \"traceEvents\""));
  }
  source.array_prefix_end = source.events.front().begin;
  source.array_suffix_begin = source.events.back().end;
  source.separator = source.text.substr(
      source.events[0].end, source.events[1].begin - source.events[0].end);
  return source;
}

// Buffered output that counts what it wrote.
class Output {
 public:
  explicit Output(std::FILE* file) : file_(file), buffer_(4 << 20) {}
  void Write(std::string_view bytes) {
    if (used_ + bytes.size() > buffer_.size()) Flush();
    if (bytes.size() > buffer_.size()) {
      ok_ = ok_ &&
            std::fwrite(bytes.data(), 1, bytes.size(), file_) == bytes.size();
    } else {
      std::copy(bytes.begin(), bytes.end(),
                buffer_.begin() + static_cast<ptrdiff_t>(used_));
      used_ += bytes.size();
    }
    written_ += bytes.size();
  }
  void WriteNumber(int64_t value) {
    char digits[24];
    const auto result = std::to_chars(digits, digits + sizeof(digits), value);
    Write(std::string_view(digits, static_cast<size_t>(result.ptr - digits)));
  }
  void Flush() {
    ok_ = ok_ && std::fwrite(buffer_.data(), 1, used_, file_) == used_;
    used_ = 0;
  }
  uint64_t written() const { return written_; }
  bool ok() const { return ok_; }

 private:
  std::FILE* file_;
  std::vector<char> buffer_;
  size_t used_ = 0;
  uint64_t written_ = 0;
  bool ok_ = true;
};

absl::Status WriteError(const std::string& path) {
  return absl::InternalError(
      absl::StrCat(path, ": cannot write: ", std::strerror(errno),
                   "; free disk space or choose another directory"));
}

}  // namespace

absl::StatusOr<RepeatedTrace> WriteRepeatedKinetoTrace(
    const std::string& source_path, uint64_t target_bytes,
    const std::string& out_path, const KinetoRank* rank) {
  absl::StatusOr<SourceEvents> read = ReadSource(source_path);
  if (!read.ok()) return read.status();
  const SourceEvents& source = *read;
  const int64_t time_shift = source.max_end_us - source.min_ts_us + kGapMicros;
  const int64_t id_shift = source.max_id + 1;
  const int64_t step_shift = source.min_step <= source.max_step
                                 ? source.max_step - source.min_step + 1
                                 : 0;

  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(
      std::fopen(out_path.c_str(), "wb"), &std::fclose);
  if (!file) return WriteError(out_path);
  Output out(file.get());
  const std::string_view text(source.text);
  const KinetoRank as_recorded;
  const KinetoRank& r = rank != nullptr ? *rank : as_recorded;
  // The text before the array, with this rank's rank and world size.
  uint64_t cursor = 0;
  if (rank != nullptr) {
    for (const Patch& patch : source.header_patches) {
      out.Write(text.substr(cursor, patch.offset - cursor));
      out.WriteNumber(patch.kind == PatchKind::kRank ? r.rank : r.world_size);
      cursor = patch.offset + patch.length;
    }
  }
  out.Write(text.substr(cursor, source.array_prefix_end - cursor));
  const std::string_view suffix = text.substr(source.array_suffix_begin);
  RepeatedTrace result;
  bool first = true;
  while (first || out.written() + suffix.size() < target_bytes) {
    const int64_t k = static_cast<int64_t>(result.repetitions);
    for (const EventSpan& event : source.events) {
      if (event.metadata && k > 0) continue;
      if (!first) out.Write(source.separator);
      first = false;
      cursor = event.begin;
      for (size_t i = event.patches_begin; i < event.patches_end; ++i) {
        const Patch& patch = source.patches[i];
        out.Write(text.substr(cursor, patch.offset - cursor));
        switch (patch.kind) {
          case PatchKind::kTime:
            out.WriteNumber(patch.value + k * time_shift + r.start_shift_us);
            break;
          case PatchKind::kId:
            out.WriteNumber(patch.value + k * id_shift);
            break;
          case PatchKind::kStep:
            out.WriteNumber(patch.value + k * step_shift);
            break;
          case PatchKind::kPid:
            out.WriteNumber(patch.value + r.rank);
            break;
          case PatchKind::kRank:  // the header's, never in an event
          case PatchKind::kWorldSize:
            out.WriteNumber(patch.value);
            break;
        }
        cursor = patch.offset + patch.length;
      }
      out.Write(text.substr(cursor, event.end - cursor));
    }
    ++result.repetitions;
  }
  out.Write(suffix);
  out.Flush();
  if (!out.ok() || std::fflush(file.get()) != 0) return WriteError(out_path);
  result.bytes = out.written();
  return result;
}

}  // namespace feedprof::bench
