// The Python frame readers inside every CPython the machine has (3.10 to
// 3.13, shared and static libpython): line tables against the
// interpreter's own co_lines(), and a sampling round that must find a
// thread parked 40 frames deep at its exact line while the sampling call
// runs without the GIL.
#include <gtest/gtest.h>

#include <cctype>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/testing/python_interpreters.h"

namespace {

std::string RunScript(const std::string& python, const std::string& mode) {
  return feedprof::testing::CommandOutput(python + " " +
                                          FEEDPROF_READER_SCRIPT + " " + mode +
                                          " " + FEEDPROF_READER_PROBE);
}

int LineOf(const std::string& marker) {
  return feedprof::testing::LineWithMarker(FEEDPROF_READER_SCRIPT, marker);
}

std::string Value(const std::string& out, const std::string& key) {
  const size_t at = out.find(key + "=");
  if (at == std::string::npos) return {};
  const size_t start = at + key.size() + 1;
  return out.substr(start, out.find_first_of(" \n", start) - start);
}

class PythonReaderTest : public testing::TestWithParam<std::string> {};

TEST_P(PythonReaderTest, LineOfEveryInstructionMatchesTheInterpreter) {
  const std::string out = RunScript(GetParam(), "lines");
  ASSERT_NE(Value(out, "checked"), "") << out;
  EXPECT_GT(std::stol(Value(out, "checked")), 10000) << out;
  EXPECT_EQ(Value(out, "mismatches"), "0") << out;
}

TEST_P(PythonReaderTest, SamplingRoundFindsAParkedThreadAtItsLines) {
  const std::string out = RunScript(GetParam(), "stacks");
  const std::string script = FEEDPROF_READER_SCRIPT;
  const std::string parked_tid = Value(out, "parked_tid");
  const std::string main_tid = Value(out, "main_tid");
  ASSERT_NE(parked_tid, "") << out;
  EXPECT_EQ(Value(out, "state"), "1") << out;  // PYTHON_STACKS_ON
  EXPECT_EQ(Value(out, "torn"), "0") << out;
  const size_t row = out.find("\n" + parked_tid + "\t");
  ASSERT_NE(row, std::string::npos) << out;
  const std::string stack =
      out.substr(row + 1, out.find('\n', row + 1) - row - 1);
  // Innermost first: threading's wait, then the parked line, then 39
  // recursive calls at their line, then the thread's entry.
  const std::string parked =
      script + ":" + std::to_string(LineOf("# PARKED_LINE")) + ":parked_here";
  const std::string descend =
      script + ":" + std::to_string(LineOf("# DESCEND_LINE")) + ":descend";
  const size_t parked_at = stack.find(parked);
  ASSERT_NE(parked_at, std::string::npos) << stack;
  EXPECT_NE(stack.substr(0, parked_at).find("threading.py:"), std::string::npos)
      << stack;
  size_t descends = 0;
  for (size_t at = stack.find(descend); at != std::string::npos;
       at = stack.find(descend, at + 1)) {
    ++descends;
  }
  EXPECT_EQ(descends, 39u) << stack;
  // The base case of the recursion calls parked_here from its own line.
  EXPECT_NE(stack.find(":descend", stack.find(parked) + parked.size()),
            std::string::npos);
  // The main thread sits in the probe call, with the GIL released.
  const size_t main_row = out.find("\n" + main_tid + "\t");
  ASSERT_NE(main_row, std::string::npos) << out;
  EXPECT_NE(out.find(script + ":" + std::to_string(LineOf("# MAIN_LINE")) +
                         ":<module>",
                     main_row),
            std::string::npos)
      << out;
}

INSTANTIATE_TEST_SUITE_P(
    Interpreters, PythonReaderTest,
    testing::ValuesIn(
        feedprof::testing::PythonInterpreters(FEEDPROF_TEST_PYTHONS)),
    feedprof::testing::PythonTestName);

}  // namespace
