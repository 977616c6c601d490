// Call sites from inside a real CPython process: the recorder finds the
// interpreter's C API at run time, reads the innermost frames only while
// the thread holds the GIL, and falls back to native frames without it.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

namespace {

std::string RunScript() {
  const std::string command = std::string(FEEDPROF_PYTHON) + " " +
                              FEEDPROF_PYTHON_SCRIPT + " " +
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

TEST(PythonFramesTest, InnermostPythonFramesWithFileLineAndFunction) {
  const std::string out = RunScript();
  const std::string script = FEEDPROF_PYTHON_SCRIPT;
  const int probe_line = LineOf(script, "PROBE_LINE");
  ASSERT_GT(probe_line, 0);
  // The same Python call site three times: interned once.
  EXPECT_NE(out.find("distinct:1\n"), std::string::npos) << out;
  const size_t first = out.find("first:python|");
  ASSERT_NE(first, std::string::npos) << out;
  const std::string line = out.substr(first, out.find('\n', first) - first);
  // Innermost first: capture(), then Loader.next_batch at the probe line,
  // then train_step, then the module.
  EXPECT_NE(line.find("|" + script + ":"), std::string::npos) << line;
  EXPECT_NE(line.find(":capture|"), std::string::npos) << line;
  EXPECT_NE(line.find(script + ":" + std::to_string(probe_line) +
                      ":Loader.next_batch|"),
            std::string::npos)
      << line;
  EXPECT_NE(line.find(":train_step|"), std::string::npos) << line;
  EXPECT_LT(line.find(":capture|"), line.find(":Loader.next_batch|"));
  EXPECT_LT(line.find(":Loader.next_batch|"), line.find(":train_step|"));
}

TEST(PythonFramesTest, WithoutTheGilNativeFramesAreUsed) {
  const std::string out = RunScript();
  EXPECT_NE(out.find("nogil:native|"), std::string::npos) << out;
}

}  // namespace
