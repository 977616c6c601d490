// Reads one Kineto event straight out of the tokenizer's buffer.
//
// Why: a Kineto trace is millions of small flat objects, and reading one
// token at a time through the tokenizer's state machine (a call, a state
// switch and a string view per key and per value) cost more than the rest of
// the reader together. Nearly every event lies whole inside the 1 MiB
// buffer, so this scanner walks it in one pass over those bytes — keys
// matched as they are found, skipped values jumped over, the values the
// reader needs converted through the same Apply* functions as the
// token-by-token path (kineto_event.h), or, for numbers of the plain form,
// read as they are found to the same values (plain_decimal.h) — and hands
// the tokenizer the byte count to consume.
//
// It only accepts what it is sure the tokenizer accepts the same way: every
// value checked by the tokenizer's rules (number syntax, literals, commas,
// colons, brackets; inside skipped containers only brackets and strings, as
// SkipValue checks them). Anything else — an escape in a key or in a string
// it would decode, an event that runs past the end of the buffer, deep
// nesting, a long token, any syntax error — makes it decline, and the event
// is read token by token from its start, which gives the same result or the
// same error, with its byte offset, as before this scanner existed.
#ifndef FEEDPROF_LIB_SRC_KINETO_KINETO_EVENT_SCANNER_H_
#define FEEDPROF_LIB_SRC_KINETO_KINETO_EVENT_SCANNER_H_

#include <cstddef>
#include <string_view>

#include "kineto/kineto_event.h"

namespace feedprof::kineto {

// `rest` is the text right after an event's '{'. On success fills `event`
// (as ReadKinetoEvent would) and returns how many bytes of `rest` the event
// takes, its closing '}' included; returns 0 when it declines (`event` is
// then undefined: the caller reads the event again).
size_t ScanBufferedKinetoEvent(std::string_view rest, KinetoEvent* event);

}  // namespace feedprof::kineto

#endif  // FEEDPROF_LIB_SRC_KINETO_KINETO_EVENT_SCANNER_H_
