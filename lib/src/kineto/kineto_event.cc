#include "kineto/kineto_event.h"

#include <string_view>

#include "kineto/kineto_event_scanner.h"
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
    ApplyDim3Element(t, tokens.text(), i, out);
  }
}

// The text of the value just read, where it stays until the event is
// mapped: a string's text is gone at the next token, so it is kept.
std::string_view StableText(JsonTokenizer& tokens, JsonToken token,
                            KeptStrings* kept) {
  return token == JsonToken::kString ? kept->Keep(tokens.text())
                                     : tokens.text();
}

bool ReadArgs(JsonTokenizer& tokens, KinetoEvent* event, KeptStrings* kept) {
  JsonToken t = tokens.Next();
  if (t == JsonToken::kArrayBegin) return tokens.SkipRestOfContainer();
  if (t != JsonToken::kObjectBegin) return t != JsonToken::kError;
  for (;;) {
    t = tokens.Next();
    if (t == JsonToken::kObjectEnd) return true;
    if (t != JsonToken::kKey) return false;
    const ArgKey key = ArgKeyOf(tokens.text());
    bool ok = true;
    switch (key) {
      case ArgKey::kGrid:
        ok = ReadDim3(tokens, event->grid);
        break;
      case ArgKey::kBlock:
        ok = ReadDim3(tokens, event->block);
        break;
      case ArgKey::kOther:
        ok = tokens.SkipValue();
        break;
      default:
        ok = ReadScalar(tokens, &t);
        if (ok) ApplyArg(key, t, StableText(tokens, t, kept), event);
        break;
    }
    if (!ok) return false;
  }
}

}  // namespace

// The token-by-token way: any JSON the tokenizer accepts, split across
// buffer refills anywhere, with the tokenizer's errors.
bool ReadKinetoEventTokens(JsonTokenizer& tokens, KinetoEvent* event,
                           KeptStrings* kept) {
  event->Reset();
  for (;;) {
    JsonToken t = tokens.Next();
    if (t == JsonToken::kObjectEnd) return true;
    if (t != JsonToken::kKey) return false;
    const EventKey key = EventKeyOf(tokens.text());
    bool ok = true;
    switch (key) {
      case EventKey::kArgs:
        ok = ReadArgs(tokens, event, kept);
        break;
      case EventKey::kOther:
        ok = tokens.SkipValue();
        break;
      default:
        ok = ReadScalar(tokens, &t);
        if (!ok) break;
        switch (key) {
          case EventKey::kPh:
            ApplyPh(t, tokens.text(), event);
            break;
          case EventKey::kCat:
            ApplyString(t, StableText(tokens, t, kept), &event->cat);
            break;
          case EventKey::kName:
            ApplyString(t, StableText(tokens, t, kept), &event->name);
            break;
          case EventKey::kPid:
            ApplyId(t, StableText(tokens, t, kept), &event->pid);
            break;
          case EventKey::kTid:
            ApplyId(t, StableText(tokens, t, kept), &event->tid);
            break;
          case EventKey::kTs:
            ApplyTime(t, tokens.text(), &event->has_ts, &event->ts_ns);
            break;
          case EventKey::kDur:
            ApplyTime(t, tokens.text(), &event->has_dur, &event->dur_ns);
            break;
          default:
            break;
        }
        break;
    }
    if (!ok) return false;
  }
}

EventKey EventKeyOf(std::string_view key) {
  switch (key.size()) {
    case 2:
      if (key == "ph") return EventKey::kPh;
      if (key == "ts") return EventKey::kTs;
      break;
    case 3:
      if (key == "cat") return EventKey::kCat;
      if (key == "pid") return EventKey::kPid;
      if (key == "tid") return EventKey::kTid;
      if (key == "dur") return EventKey::kDur;
      break;
    case 4:
      if (key == "name") return EventKey::kName;
      if (key == "args") return EventKey::kArgs;
      break;
    default:
      break;
  }
  return EventKey::kOther;
}

ArgKey ArgKeyOf(std::string_view key) {
  switch (key.size()) {
    case 4:
      if (key == "grid") return ArgKey::kGrid;
      if (key == "name") return ArgKey::kName;
      if (key == "rank") return ArgKey::kRank;
      break;
    case 5:
      if (key == "bytes") return ArgKey::kBytes;
      if (key == "block") return ArgKey::kBlock;
      break;
    case 6:
      if (key == "device") return ArgKey::kDevice;
      if (key == "stream") return ArgKey::kStream;
      if (key == "labels") return ArgKey::kLabels;
      break;
    case 11:
      if (key == "correlation") return ArgKey::kCorrelation;
      if (key == "External id" || key == "external id") {
        return ArgKey::kExternalId;
      }
      break;
    case 14:
      if (key == "cuda_sync_kind") return ArgKey::kSyncKind;
      if (key == "wait_on_stream") return ArgKey::kWaitOnStream;
      break;
    default:
      break;
  }
  return ArgKey::kOther;
}

void ApplyPh(JsonToken kind, std::string_view text, KinetoEvent* event) {
  if (kind == JsonToken::kString && !text.empty()) event->ph = text[0];
}

void ApplyString(JsonToken kind, std::string_view text, std::string_view* out) {
  if (kind == JsonToken::kString) *out = text;
}

void ApplyInt(JsonToken kind, std::string_view text, OptionalInt* out) {
  if (kind == JsonToken::kNumber) {
    out->present = ParseInteger(text, &out->value);
  } else if (kind == JsonToken::kString) {
    out->present = FirstIntegerIn(text, &out->value);
  }
}

void ApplyId(JsonToken kind, std::string_view text, IdField* out) {
  if (kind == JsonToken::kNumber) {
    out->present = ParseInteger(text, &out->number);
    out->is_string = false;
  } else if (kind == JsonToken::kString) {
    out->present = true;
    // A numeric string ("1234") is the number; anything else stays text.
    int64_t v = 0;
    if (ParseInteger(text, &v) && !text.empty() &&
        text.find_first_of(".eE") == std::string_view::npos) {
      out->number = v;
      out->is_string = false;
    } else {
      out->text = text;
      out->is_string = true;
    }
  }
}

void ApplyTime(JsonToken kind, std::string_view text, bool* has, int64_t* ns) {
  if (kind == JsonToken::kNumber || kind == JsonToken::kString) {
    *has = MicrosToNanos(text, ns);
  }
}

void ApplyDim3Element(JsonToken kind, std::string_view text, int index,
                      uint32_t out[3]) {
  int64_t v = 0;
  if (index < 3 && kind == JsonToken::kNumber && ParseInteger(text, &v) &&
      v >= 0 && v <= UINT32_MAX) {
    out[index] = static_cast<uint32_t>(v);
  }
}

OptionalInt* IntArgField(ArgKey key, KinetoEvent* event) {
  switch (key) {
    case ArgKey::kCorrelation:
      return &event->correlation;
    case ArgKey::kExternalId:
      return &event->external_id;
    case ArgKey::kDevice:
      return &event->device;
    case ArgKey::kStream:
      return &event->stream;
    case ArgKey::kBytes:
      return &event->bytes;
    case ArgKey::kWaitOnStream:
      return &event->wait_on_stream;
    case ArgKey::kRank:
      return &event->rank;
    case ArgKey::kGrid:
    case ArgKey::kBlock:
    case ArgKey::kSyncKind:
    case ArgKey::kName:
    case ArgKey::kLabels:
    case ArgKey::kOther:
      return nullptr;
  }
  return nullptr;
}

void ApplyArg(ArgKey key, JsonToken kind, std::string_view text,
              KinetoEvent* event) {
  if (OptionalInt* field = IntArgField(key, event)) {
    ApplyInt(kind, text, field);
    return;
  }
  switch (key) {
    case ArgKey::kSyncKind:
      ApplyString(kind, text, &event->sync_kind);
      break;
    case ArgKey::kName:
      ApplyString(kind, text, &event->arg_name);
      break;
    case ArgKey::kLabels:
      ApplyString(kind, text, &event->arg_labels);
      break;
    default:
      break;
  }
}

bool ReadKinetoEvent(JsonTokenizer& tokens, KinetoEvent* event,
                     KeptStrings* kept) {
  if (const size_t n = ScanBufferedKinetoEvent(tokens.BufferedText(), event);
      n > 0) {
    tokens.ConsumeRestOfObject(n);
    return true;
  }
  return ReadKinetoEventTokens(tokens, event, kept);
}

}  // namespace feedprof::kineto
