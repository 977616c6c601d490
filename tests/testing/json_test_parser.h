// A strict JSON parser for checking what the dump prints.
//
// The tests must prove each dumped line is valid JSON on its own and read
// values back exactly (64-bit integers included), without a dependency the
// project does not otherwise need. Strictness is the point: raw control
// characters, invalid UTF-8, trailing commas or trailing bytes fail.
#ifndef FEEDPROF_TESTS_TESTING_JSON_TEST_PARSER_H_
#define FEEDPROF_TESTS_TESTING_JSON_TEST_PARSER_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace feedprof::testing {

struct JsonValue {
  enum class Kind { kNull, kBool, kNumber, kString, kArray, kObject };
  Kind kind = Kind::kNull;
  bool boolean = false;
  std::string text;  // string contents (decoded) or the number as written
  std::vector<JsonValue> items;
  std::vector<std::pair<std::string, JsonValue>> members;

  // Member `key` of an object; nullptr when absent or not an object.
  const JsonValue* Find(std::string_view key) const;
  // Convenience accessors for tests; a wrong kind yields a sentinel that
  // makes the comparison fail.
  std::string Str(std::string_view key) const;
  int64_t Int(std::string_view key) const;
  uint64_t Uint(std::string_view key) const;
  double Double(std::string_view key) const;
};

// The value of the whole of `json`, or nullopt if it is not valid JSON.
std::optional<JsonValue> ParseJson(std::string_view json);

}  // namespace feedprof::testing

#endif  // FEEDPROF_TESTS_TESTING_JSON_TEST_PARSER_H_
