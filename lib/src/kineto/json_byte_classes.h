// Byte classes the Kineto JSON readers look up per byte: the one-pass event
// scanner, the tokenizer and the event splitter must agree on them, so they
// are defined once.
#ifndef FEEDPROF_KINETO_JSON_BYTE_CLASSES_H_
#define FEEDPROF_KINETO_JSON_BYTE_CLASSES_H_

#include <array>
#include <cstdint>

namespace feedprof::kineto {

// Bytes that matter while skipping a value: quotes and brackets.
constexpr std::array<bool, 256> MakeStructuralTable() {
  std::array<bool, 256> table{};
  table['"'] = table['{'] = table['}'] = table['['] = table[']'] = true;
  return table;
}
inline constexpr std::array<bool, 256> kStructural = MakeStructuralTable();

// A decimal digit: the one test the readers of numbers share.
inline bool IsJsonDigit(char c) { return c >= '0' && c <= '9'; }

// Bytes a JSON number may contain.
constexpr std::array<bool, 256> MakeNumberTable() {
  std::array<bool, 256> table{};
  for (char c = '0'; c <= '9'; ++c) table[static_cast<uint8_t>(c)] = true;
  table['-'] = table['+'] = table['.'] = table['e'] = table['E'] = true;
  return table;
}
inline constexpr std::array<bool, 256> kNumberChar = MakeNumberTable();

// JSON whitespace: space, tab, newline, carriage return.
constexpr std::array<bool, 256> MakeSpaceTable() {
  std::array<bool, 256> table{};
  table[' '] = table['\t'] = table['\n'] = table['\r'] = true;
  return table;
}
inline constexpr std::array<bool, 256> kJsonSpace = MakeSpaceTable();

// The one test of whitespace, so that the tokenizer, the event scanner and
// the splitter skip exactly the same bytes.
inline bool IsJsonSpace(char c) { return kJsonSpace[static_cast<uint8_t>(c)]; }

}  // namespace feedprof::kineto

#endif  // FEEDPROF_KINETO_JSON_BYTE_CLASSES_H_
