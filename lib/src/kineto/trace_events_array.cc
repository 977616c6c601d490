#include "kineto/trace_events_array.h"

#include <algorithm>
#include <string_view>
#include <vector>

namespace feedprof::kineto {
namespace {

bool TokenizerFailed(const JsonTokenizer& tokens, JsonFailure* failure) {
  failure->message = tokens.error();
  failure->offset = tokens.error_offset();
  failure->truncated = tokens.truncated();
  return false;
}

enum class ElementResult : unsigned char { kElement, kArrayEnd, kError };

// One element (or the closing ']') token by token; an event is mapped
// before the next token is read, while its strings are valid.
ElementResult ReadElement(JsonTokenizer& tokens, KinetoEventMapper& mapper,
                          KinetoEvent* event, KeptStrings* kept) {
  const JsonToken t = tokens.Next();
  if (t == JsonToken::kArrayEnd) return ElementResult::kArrayEnd;
  if (t == JsonToken::kError) return ElementResult::kError;
  if (t == JsonToken::kArrayBegin) {
    return tokens.SkipRestOfContainer() ? ElementResult::kElement
                                        : ElementResult::kError;
  }
  if (t != JsonToken::kObjectBegin) return ElementResult::kElement;
  kept->Clear();
  if (!ReadKinetoEvent(tokens, event, kept)) return ElementResult::kError;
  mapper.Add(*event);
  return ElementResult::kElement;
}

}  // namespace

bool ReadTraceEventsSerially(JsonTokenizer& tokens, KinetoEventMapper& mapper,
                             const std::function<void()>& on_mapped,
                             JsonFailure* failure) {
  KinetoEvent event;
  KeptStrings kept;
  for (;;) {
    switch (ReadElement(tokens, mapper, &event, &kept)) {
      case ElementResult::kArrayEnd:
        return true;
      case ElementResult::kError:
        return TokenizerFailed(tokens, failure);
      case ElementResult::kElement:
        on_mapped();
        break;
    }
  }
}

size_t BatchBytesAt(const TraceEventsBatching& batching, uint64_t text_read) {
  const uint64_t share = text_read / kBatchShareOfTextRead;
  const size_t most = std::max(batching.batch_bytes, batching.max_batch_bytes);
  return static_cast<size_t>(
      std::clamp<uint64_t>(share, batching.batch_bytes, most));
}

bool ReadTraceEventsInBatches(JsonTokenizer& tokens, KinetoEventMapper& mapper,
                              const TraceEventsBatching& batching,
                              const std::function<void()>& on_mapped,
                              JsonFailure* failure) {
  KinetoEventBatchPipeline& pipeline = *batching.pipeline;
  // Maps a batch that was read; false (with `*failure`) at its error.
  auto map_batch = [&](KinetoEventBatch* batch) {
    for (size_t i = 0; i < batch->parsed; ++i) mapper.Add(batch->events[i]);
    const bool ok = !batch->failed;
    if (!ok) *failure = batch->failure;
    pipeline.Release(batch);
    on_mapped();
    return ok;
  };
  // Maps the batches read so far, oldest first (with `wait`: all of them).
  auto map_read = [&](bool wait) {
    while (KinetoEventBatch* batch = pipeline.TakeOldest(wait)) {
      if (!map_batch(batch)) return false;
    }
    return true;
  };

  KinetoEvent event;  // for the elements the tokenizer reads
  KeptStrings kept;
  KinetoEventBatch* filling = nullptr;
  std::vector<SplitEventSpan> spans;
  bool after_element = false;
  size_t batch_bytes = batching.batch_bytes;  // of the batch being filled
  for (;;) {
    while (filling == nullptr) {
      filling = pipeline.TryAcquire();
      if (filling == nullptr && !map_batch(pipeline.TakeOldest(true))) {
        return false;
      }
    }
    const std::string_view text = tokens.BufferedText();
    if (filling->text.empty()) {
      batch_bytes = BatchBytesAt(batching, tokens.offset());
    }
    const size_t room = batch_bytes > filling->text.size()
                            ? batch_bytes - filling->text.size()
                            : 0;
    spans.clear();
    const SplitResult split =
        SplitTraceEvents(text, after_element, room, batching.split, &spans);
    if (split.consumed > 0) {
      const auto base = static_cast<uint32_t>(filling->text.size());
      const uint64_t offset = tokens.offset();
      filling->text.append(text.data(), split.consumed);
      for (const SplitEventSpan& span : spans) {
        filling->spans.push_back(
            {base + span.begin, span.size, offset + span.begin});
      }
      tokens.ConsumeArrayElements(split.consumed);
      after_element = true;
    }
    if (split.stop == SplitStop::kFull) {
      pipeline.Submit(filling);
      filling = nullptr;
      if (!map_read(false)) return false;
      continue;
    }
    if (split.stop == SplitStop::kNeedMore && tokens.Refill()) continue;

    // The tokenizer reads what comes next, once every event before it is
    // mapped.
    if (!filling->spans.empty()) {
      pipeline.Submit(filling);
      filling = nullptr;
    }
    if (!map_read(true)) return false;
    switch (ReadElement(tokens, mapper, &event, &kept)) {
      case ElementResult::kArrayEnd:
        if (filling != nullptr) pipeline.Release(filling);
        return true;
      case ElementResult::kError:
        return TokenizerFailed(tokens, failure);
      case ElementResult::kElement:
        after_element = true;
        on_mapped();
        break;
    }
  }
}

}  // namespace feedprof::kineto
