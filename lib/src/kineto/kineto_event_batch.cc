#include "kineto/kineto_event_batch.h"

#include <algorithm>
#include <cstring>
#include <string_view>

#include "kineto/json_tokenizer.h"
#include "kineto/kineto_event_scanner.h"

namespace feedprof::kineto {
namespace {

// Serves a view without copying it.
class ViewByteSource : public ByteSource {
 public:
  explicit ViewByteSource(std::string_view data) : data_(data) {}
  size_t Read(char* out, size_t capacity) override {
    const size_t n = std::min(capacity, data_.size());
    std::memcpy(out, data_.data(), n);
    data_.remove_prefix(n);
    return n;
  }

 private:
  std::string_view data_;
};

// The token-by-token way for one event, with the document's offsets. The
// object is whole (the splitter matched its brackets), so any error the
// tokenizer finds lies inside it, where the document's tokenizer would
// find it too.
bool ReadEventTokenByToken(std::string_view object, uint64_t offset,
                           KinetoEvent* event, KeptStrings* kept,
                           JsonFailure* failure) {
  ViewByteSource source(object);
  JsonTokenizer::Limits limits;
  limits.initial_buffer_bytes = object.size() + 64;
  JsonTokenizer tokens(&source, limits, offset);
  // Token by token only: `tokens` and its buffer end here, so no string
  // may point into it.
  if (tokens.Next() == JsonToken::kObjectBegin &&
      ReadKinetoEventTokens(tokens, event, kept)) {
    return true;
  }
  failure->message = tokens.error();
  failure->offset = tokens.error_offset();
  failure->truncated = tokens.truncated();
  return false;
}

}  // namespace

void ReadKinetoEventBatch(KinetoEventBatch* batch) {
  if (batch->events.size() < batch->spans.size()) {
    batch->events.resize(batch->spans.size());
  }
  batch->parsed = 0;
  batch->failed = false;
  for (const KinetoEventSpan& span : batch->spans) {
    const std::string_view object(batch->text.data() + span.begin, span.size);
    KinetoEvent* event = &batch->events[batch->parsed];
    // The scanner reads the text after the '{'; it must take all of it.
    if (ScanBufferedKinetoEvent(object.substr(1), event) != span.size - 1 &&
        !ReadEventTokenByToken(object, span.offset, event, &batch->kept,
                               &batch->failure)) {
      batch->failed = true;
      return;
    }
    ++batch->parsed;
  }
}

}  // namespace feedprof::kineto
