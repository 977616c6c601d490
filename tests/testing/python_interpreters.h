// The CPython interpreters tests of the Python frame readers run on, and
// the small helpers those tests share: running a script for its output and
// finding a marked line in it.
//
// The list comes from the compile definition FEEDPROF_TEST_PYTHONS (one
// comma-separated string, set from the CMake list of the same name in
// tests/CMakeLists.txt): the system's python3 and every pyenv version from
// 3.10 on.
#ifndef FEEDPROF_TESTS_TESTING_PYTHON_INTERPRETERS_H_
#define FEEDPROF_TESTS_TESTING_PYTHON_INTERPRETERS_H_

#include <gtest/gtest.h>

#include <cctype>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace feedprof::testing {

// `list`: comma-separated interpreter paths.
inline std::vector<std::string> PythonInterpreters(const std::string& list) {
  std::vector<std::string> out;
  std::stringstream paths(list);
  for (std::string path; std::getline(paths, path, ',');) {
    if (!path.empty()) out.push_back(path);
  }
  return out;
}

// A test name part for an interpreter path ("_usr_bin_python3").
inline std::string PythonTestName(
    const ::testing::TestParamInfo<std::string>& param_info) {
  std::string name;
  for (char c : param_info.param) name += std::isalnum(c) != 0 ? c : '_';
  return name;
}

// What `command` prints on stdout and stderr.
inline std::string CommandOutput(const std::string& command) {
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return {};
  std::string out;
  char chunk[4096];
  while (size_t n = fread(chunk, 1, sizeof chunk, pipe)) out.append(chunk, n);
  pclose(pipe);
  return out;
}

// The 1-based number of the first line of `path` holding `marker`; -1
// when none does.
inline int LineWithMarker(const std::string& path, const std::string& marker) {
  std::ifstream in(path);
  int number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    if (line.find(marker) != std::string::npos) return number;
  }
  return -1;
}

}  // namespace feedprof::testing

#endif  // FEEDPROF_TESTS_TESTING_PYTHON_INTERPRETERS_H_
