// The JSON number grammar, once for the Kineto readers: the tokenizer
// checks a number with it and the one-pass event scanner finds a number's
// end with it, so both accept exactly the same numbers.
#ifndef FEEDPROF_KINETO_JSON_NUMBER_GRAMMAR_H_
#define FEEDPROF_KINETO_JSON_NUMBER_GRAMMAR_H_

#include "kineto/json_byte_classes.h"

namespace feedprof::kineto {

// Where the grammar stopped reading [p, e): `end` is the end of the number
// it read, or nullptr when it met a byte (or the end, at `stop`) where it
// needed another; `expected` then says what it needed.
struct JsonNumberScan {
  const char* end = nullptr;
  const char* stop = nullptr;
  const char* expected = nullptr;
};

// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? from `p`, as far as it
// goes before `e`.
inline JsonNumberScan ScanJsonNumber(const char* p, const char* e) {
  const auto needed = [&p](const char* what) {
    return JsonNumberScan{nullptr, p, what};
  };
  if (p < e && *p == '-') ++p;
  if (p == e || !IsJsonDigit(*p)) return needed("a digit");
  if (*p == '0') {
    ++p;
  } else {
    while (p < e && IsJsonDigit(*p)) ++p;
  }
  if (p < e && *p == '.') {
    ++p;
    if (p == e || !IsJsonDigit(*p)) return needed("a digit after '.'");
    while (p < e && IsJsonDigit(*p)) ++p;
  }
  if (p < e && (*p == 'e' || *p == 'E')) {
    ++p;
    if (p < e && (*p == '+' || *p == '-')) ++p;
    if (p == e || !IsJsonDigit(*p)) return needed("a digit in the exponent");
    while (p < e && IsJsonDigit(*p)) ++p;
  }
  return JsonNumberScan{p, p, nullptr};
}

}  // namespace feedprof::kineto

#endif  // FEEDPROF_KINETO_JSON_NUMBER_GRAMMAR_H_
