// One Kineto trace event, materialized from the JSON stream.
//
// Why a flat struct: the reader sees keys in whatever order the exporter
// wrote them ("ph" first in complete events, "name" first in metadata
// events), so it collects the fields it understands into this struct and maps
// the event once the object has closed. Unknown keys and args are skipped.
//
// Why views and no owned strings: millions of events are read on worker
// threads and mapped on the reader's thread, so every byte of the struct
// crosses between cores; its strings point into the JSON text (or into
// KeptStrings, kept_strings.h, where the text does not stay put) rather than
// copying it, and the struct is plain data that resets with a few stores.
// Every view must stay valid until the event is mapped.
#ifndef FEEDPROF_LIB_SRC_KINETO_KINETO_EVENT_H_
#define FEEDPROF_LIB_SRC_KINETO_KINETO_EVENT_H_

#include <cstdint>
#include <memory>
#include <string_view>
#include <type_traits>

#include "kineto/json_tokenizer.h"
#include "kineto/kept_strings.h"

namespace feedprof::kineto {

// An integer-or-string JSON field (Kineto writes pid/tid either way).
struct IdField {
  bool present = false;
  bool is_string = false;
  int64_t number = 0;
  std::string_view text;
};

struct OptionalInt {
  bool present = false;
  int64_t value = 0;
};

struct KinetoEvent {
  char ph = 0;  // "X", "i", "M", "s", "f", ... (first character)
  std::string_view cat;
  std::string_view name;
  IdField pid;
  IdField tid;
  bool has_ts = false;
  int64_t ts_ns = 0;
  bool has_dur = false;
  int64_t dur_ns = 0;

  // args
  OptionalInt correlation;
  OptionalInt external_id;
  OptionalInt device;
  OptionalInt stream;
  OptionalInt bytes;
  OptionalInt wait_on_stream;
  OptionalInt rank;  // metadata args (rare)
  uint32_t grid[3] = {0, 0, 0};
  uint32_t block[3] = {0, 0, 0};
  std::string_view sync_kind;   // args "cuda_sync_kind"
  std::string_view arg_name;    // args "name" (process_name / thread_name)
  std::string_view arg_labels;  // args "labels" (process_labels)

  // Zeroes the event in place (assigning a temporary built it on the stack
  // and copied it: twice the stores, in the scanner's hottest line).
  void Reset() { std::construct_at(this); }
};
static_assert(std::is_trivially_destructible_v<KinetoEvent>);

// Reads the rest of an event object whose '{' the tokenizer just returned,
// up to and including its '}'. False on a JSON error (see the tokenizer).
// Events that lie whole in the tokenizer's buffer go through
// ScanBufferedKinetoEvent (kineto_event_scanner.h); the rest, and every
// event that scanner declines, token by token. The event's strings point
// into the tokenizer's buffer (valid until its next token) or into `kept`
// (valid until it is cleared).
bool ReadKinetoEvent(JsonTokenizer& tokens, KinetoEvent* event,
                     KeptStrings* kept);
// The same, token by token only: every string is kept in `kept`, none
// points into the tokenizer's buffer (for a tokenizer that does not outlive
// the event).
bool ReadKinetoEventTokens(JsonTokenizer& tokens, KinetoEvent* event,
                           KeptStrings* kept);

// The fields of an event, and how one JSON value lands in them. Both ways
// of reading an event (token by token, and the buffered scanner) classify
// keys and convert values through these, so they read the same event the
// same way; they differ only in how they find the tokens.
enum class EventKey : uint8_t {
  kPh,
  kCat,
  kName,
  kPid,
  kTid,
  kTs,
  kDur,
  kArgs,
  kOther,  // skipped
};
EventKey EventKeyOf(std::string_view key);

enum class ArgKey : uint8_t {
  kCorrelation,  // "correlation"
  kExternalId,   // "External id", "external id"
  kDevice,
  kStream,
  kBytes,
  kGrid,
  kBlock,
  kSyncKind,  // "cuda_sync_kind"
  kWaitOnStream,
  kName,
  kLabels,
  kRank,
  kOther,  // skipped
};
ArgKey ArgKeyOf(std::string_view key);

// `kind` is the token of a scalar value (kString, kNumber, kTrue, kFalse,
// kNull) and `text` its text. A value of a type a field does not take
// leaves the field as it was.
void ApplyPh(JsonToken kind, std::string_view text, KinetoEvent* event);
void ApplyString(JsonToken kind, std::string_view text, std::string_view* out);
void ApplyInt(JsonToken kind, std::string_view text, OptionalInt* out);
void ApplyId(JsonToken kind, std::string_view text, IdField* out);
void ApplyTime(JsonToken kind, std::string_view text, bool* has, int64_t* ns);
// Element `index` of a "grid"/"block" array.
void ApplyDim3Element(JsonToken kind, std::string_view text, int index,
                      uint32_t out[3]);
// The field of an integer arg (correlation, External id, device, stream,
// bytes, wait_on_stream, rank); nullptr for any other key.
OptionalInt* IntArgField(ArgKey key, KinetoEvent* event);
// A scalar value of the arg `key` (any key but kGrid, kBlock and kOther).
void ApplyArg(ArgKey key, JsonToken kind, std::string_view text,
              KinetoEvent* event);

}  // namespace feedprof::kineto

#endif  // FEEDPROF_LIB_SRC_KINETO_KINETO_EVENT_H_
