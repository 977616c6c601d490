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

namespace {

std::vector<std::string> Interpreters() {
  std::vector<std::string> out;
  std::stringstream list(FEEDPROF_TEST_PYTHONS);
  for (std::string path; std::getline(list, path, ',');) {
    if (!path.empty()) out.push_back(path);
  }
  if (out.empty()) out.push_back(FEEDPROF_PYTHON);
  return out;
}

std::string RunScript(const std::string& python) {
  const std::string command = python + " " + FEEDPROF_PYTHON_SCRIPT + " " +
                              FEEDPROF_PYTHON_PROBE + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return {};
  std::string out;
  char chunk[4096];
  while (size_t n = fread(chunk, 1, sizeof chunk, pipe)) out.append(chunk, n);
  pclose(pipe);
  return out;
}

int LineOf(const std::string& path, const std::string& marker) {
  std::ifstream in(path);
  int number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    if (line.find(marker) != std::string::npos) return number;
  }
  return -1;
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

INSTANTIATE_TEST_SUITE_P(
    Interpreters, PythonFramesTest, testing::ValuesIn(Interpreters()),
    [](const testing::TestParamInfo<std::string>& param_info) {
      std::string name;
      for (char c : param_info.param) name += std::isalnum(c) != 0 ? c : '_';
      return name;
    });

}  // namespace
