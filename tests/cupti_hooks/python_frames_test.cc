// Call sites from inside real CPython processes, of every version the
// machine has: the recorder reads the calling thread's frames from the
// interpreter's structures, with the GIL held and without it (ctypes.CDLL
// releases the GIL around the call, as PyTorch does around its CUDA calls).
#include <gtest/gtest.h>

#include <cctype>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/testing/python_interpreters.h"

namespace {

std::vector<std::string> Interpreters() {
  std::vector<std::string> out =
      feedprof::testing::PythonInterpreters(FEEDPROF_TEST_PYTHONS);
  if (out.empty()) out.push_back(FEEDPROF_PYTHON);
  return out;
}

std::string RunScript(const std::string& python) {
  return feedprof::testing::CommandOutput(
      python + " " + FEEDPROF_PYTHON_SCRIPT + " " + FEEDPROF_PYTHON_PROBE);
}

int LineOf(const std::string& path, const std::string& marker) {
  return feedprof::testing::LineWithMarker(path, marker);
}

class PythonFramesTest : public testing::TestWithParam<std::string> {};

TEST_P(PythonFramesTest, InnermostPythonFramesWithFileLineAndFunction) {
  const std::string out = RunScript(GetParam());
  const std::string script = FEEDPROF_PYTHON_SCRIPT;
  const int probe_line = LineOf(script, "PROBE_LINE");
  ASSERT_GT(probe_line, 0);
  // The same Python call site three times: interned once.
  EXPECT_NE(out.find("distinct:1\n"), std::string::npos) << out;
  const size_t first = out.find("first:python|");
  ASSERT_NE(first, std::string::npos) << out;
  const std::string line = out.substr(first, out.find('\n', first) - first);
  // Innermost first: capture(), then Loader.next_batch (3.10 has no
  // qualified names: next_batch) at the probe line, then train_step, then
  // the module.
  EXPECT_NE(line.find("|" + script + ":"), std::string::npos) << line;
  EXPECT_NE(line.find(":capture|"), std::string::npos) << line;
  const size_t batch =
      line.find(script + ":" + std::to_string(probe_line) + ":");
  ASSERT_NE(batch, std::string::npos) << line;
  EXPECT_NE(line.find("next_batch|", batch), std::string::npos) << line;
  EXPECT_NE(line.find(":train_step|"), std::string::npos) << line;
  EXPECT_LT(line.find(":capture|"), batch);
  EXPECT_LT(batch, line.find(":train_step|"));
}

TEST_P(PythonFramesTest, WithoutTheGilTheCallerLineIsStillFound) {
  const std::string out = RunScript(GetParam());
  const std::string script = FEEDPROF_PYTHON_SCRIPT;
  const int line = LineOf(script, "NOGIL_LINE");
  ASSERT_GT(line, 0);
  EXPECT_NE(
      out.find("nogil:python|" + script + ":" +
               std::to_string(LineOf(script, "CAPTURE_LINE")) + ":capture|" +
               script + ":" + std::to_string(line) + ":<module>"),
      std::string::npos)
      << GetParam() << "\n"
      << out;
}

INSTANTIATE_TEST_SUITE_P(Interpreters, PythonFramesTest,
                         testing::ValuesIn(Interpreters()),
                         feedprof::testing::PythonTestName);

}  // namespace
