#include "kineto/kineto_event.h"

#include <string_view>

#include "kineto/kineto_time.h"

namespace feedprof::kineto {
namespace {

// Reads a scalar value; a container in its place is skipped. Returns false
// only on a JSON error.
bool ReadScalar(JsonTokenizer& tokens, JsonToken* token) {
  *token = tokens.Next();
  if (*token == JsonToken::kObjectBegin || *token == JsonToken::kArrayBegin) {
    return tokens.SkipRestOfContainer();
  }
  return *token != JsonToken::kError && *token != JsonToken::kEnd;
}

bool ReadString(JsonTokenizer& tokens, std::string* out) {
  JsonToken t;
  if (!ReadScalar(tokens, &t)) return false;
  if (t == JsonToken::kString) out->assign(tokens.text());
  return true;
}

bool ReadInt(JsonTokenizer& tokens, OptionalInt* out) {
  JsonToken t;
  if (!ReadScalar(tokens, &t)) return false;
  if (t == JsonToken::kNumber) {
    out->present = ParseInteger(tokens.text(), &out->value);
  } else if (t == JsonToken::kString) {
    out->present = FirstIntegerIn(tokens.text(), &out->value);
  }
  return true;
}

bool ReadId(JsonTokenizer& tokens, IdField* out) {
  JsonToken t;
  if (!ReadScalar(tokens, &t)) return false;
  if (t == JsonToken::kNumber) {
    out->present = ParseInteger(tokens.text(), &out->number);
    out->is_string = false;
  } else if (t == JsonToken::kString) {
    out->present = true;
    // A numeric string ("1234") is the number; anything else stays text.
    int64_t v = 0;
    if (ParseInteger(tokens.text(), &v) && !tokens.text().empty() &&
        tokens.text().find_first_of(".eE") == std::string_view::npos) {
      out->number = v;
      out->is_string = false;
    } else {
      out->text.assign(tokens.text());
      out->is_string = true;
    }
  }
  return true;
}

bool ReadTime(JsonTokenizer& tokens, bool* has, int64_t* ns) {
  JsonToken t;
  if (!ReadScalar(tokens, &t)) return false;
  if (t == JsonToken::kNumber || t == JsonToken::kString) {
    *has = MicrosToNanos(tokens.text(), ns);
  }
  return true;
}

// "grid": [x, y, z]
bool ReadDim3(JsonTokenizer& tokens, uint32_t out[3]) {
  JsonToken t = tokens.Next();
  if (t == JsonToken::kObjectBegin) return tokens.SkipRestOfContainer();
  if (t != JsonToken::kArrayBegin) return t != JsonToken::kError;
  for (int i = 0;; ++i) {
    t = tokens.Next();
    if (t == JsonToken::kArrayEnd) return true;
    if (t == JsonToken::kError) return false;
    if (t == JsonToken::kObjectBegin || t == JsonToken::kArrayBegin) {
      if (!tokens.SkipRestOfContainer()) return false;
      continue;
    }
    int64_t v = 0;
    if (i < 3 && t == JsonToken::kNumber && ParseInteger(tokens.text(), &v) &&
        v >= 0 && v <= UINT32_MAX) {
      out[i] = static_cast<uint32_t>(v);
    }
  }
}

bool ReadArgs(JsonTokenizer& tokens, KinetoEvent* event) {
  JsonToken t = tokens.Next();
  if (t == JsonToken::kArrayBegin) return tokens.SkipRestOfContainer();
  if (t != JsonToken::kObjectBegin) return t != JsonToken::kError;
  for (;;) {
    t = tokens.Next();
    if (t == JsonToken::kObjectEnd) return true;
    if (t != JsonToken::kKey) return false;
    const std::string_view key = tokens.text();
    bool ok = true;
    if (key == "correlation") {
      ok = ReadInt(tokens, &event->correlation);
    } else if (key == "External id" || key == "external id") {
      ok = ReadInt(tokens, &event->external_id);
    } else if (key == "device") {
      ok = ReadInt(tokens, &event->device);
    } else if (key == "stream") {
      ok = ReadInt(tokens, &event->stream);
    } else if (key == "bytes") {
      ok = ReadInt(tokens, &event->bytes);
    } else if (key == "grid") {
      ok = ReadDim3(tokens, event->grid);
    } else if (key == "block") {
      ok = ReadDim3(tokens, event->block);
    } else if (key == "cuda_sync_kind") {
      ok = ReadString(tokens, &event->sync_kind);
    } else if (key == "wait_on_stream") {
      ok = ReadInt(tokens, &event->wait_on_stream);
    } else if (key == "name") {
      ok = ReadString(tokens, &event->arg_name);
    } else if (key == "labels") {
      ok = ReadString(tokens, &event->arg_labels);
    } else if (key == "rank") {
      ok = ReadInt(tokens, &event->rank);
    } else {
      ok = tokens.SkipValue();
    }
    if (!ok) return false;
  }
}

}  // namespace

void KinetoEvent::Reset() {
  ph = 0;
  cat.clear();
  name.clear();
  pid.Reset();
  tid.Reset();
  has_ts = has_dur = false;
  ts_ns = dur_ns = 0;
  correlation = external_id = device = stream = bytes = wait_on_stream = rank =
      OptionalInt{};
  for (int i = 0; i < 3; ++i) grid[i] = block[i] = 0;
  sync_kind.clear();
  arg_name.clear();
  arg_labels.clear();
}

bool ReadKinetoEvent(JsonTokenizer& tokens, KinetoEvent* event) {
  event->Reset();
  for (;;) {
    JsonToken t = tokens.Next();
    if (t == JsonToken::kObjectEnd) return true;
    if (t != JsonToken::kKey) return false;
    const std::string_view key = tokens.text();
    bool ok = true;
    if (key == "ph") {
      JsonToken v;
      ok = ReadScalar(tokens, &v);
      if (ok && v == JsonToken::kString && !tokens.text().empty()) {
        event->ph = tokens.text()[0];
      }
    } else if (key == "cat") {
      ok = ReadString(tokens, &event->cat);
    } else if (key == "name") {
      ok = ReadString(tokens, &event->name);
    } else if (key == "pid") {
      ok = ReadId(tokens, &event->pid);
    } else if (key == "tid") {
      ok = ReadId(tokens, &event->tid);
    } else if (key == "ts") {
      ok = ReadTime(tokens, &event->has_ts, &event->ts_ns);
    } else if (key == "dur") {
      ok = ReadTime(tokens, &event->has_dur, &event->dur_ns);
    } else if (key == "args") {
      ok = ReadArgs(tokens, event);
    } else {
      ok = tokens.SkipValue();
    }
    if (!ok) return false;
  }
}

}  // namespace feedprof::kineto
