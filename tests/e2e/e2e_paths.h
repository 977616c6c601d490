// Where the end-to-end tests find the library and the example programs in
// the build tree, and small helpers they share.
#ifndef FEEDPROF_TESTS_E2E_E2E_PATHS_H_
#define FEEDPROF_TESTS_E2E_E2E_PATHS_H_

#include <cstdint>
#include <map>
#include <sstream>
#include <string>

#include "tests/e2e/child_process.h"

namespace feedprof::e2e {

inline const std::string kLibraryPath =
    FEEDPROF_BINARY_DIR "/preload/libfeedprof.so";
inline const std::string kExamplePath =
    FEEDPROF_BINARY_DIR "/examples/host/nvtx_threads_example";
inline const std::string kShimPath =
    FEEDPROF_BINARY_DIR "/examples/host/libnvtx_shim.so";
inline const std::string kPythonScriptPath =
    FEEDPROF_SOURCE_DIR "/examples/host/python/nvtx_threads.py";

// The environment that makes a program record into `output_dir`.
inline std::map<std::string, std::string> RecordingEnv(
    const std::string& output_dir) {
  return {{"LD_PRELOAD", kLibraryPath},
          {"FEEDPROF_OUTPUT_DIR", output_dir},
          // The library must point NVTX at itself; start from a clean slate.
          {"NVTX_INJECTION64_PATH", ""},
          {"FEEDPROF_SESSION_DIR", ""},
          {"FEEDPROF_DISABLE", ""}};
}

// The "key value" lines of the example's --report file.
inline std::map<std::string, uint64_t> ReadReport(const std::string& path) {
  std::map<std::string, uint64_t> values;
  std::istringstream in(ReadWholeFile(path));
  std::string key;
  uint64_t value = 0;
  while (in >> key >> value) values[key] = value;
  return values;
}

}  // namespace feedprof::e2e

#endif  // FEEDPROF_TESTS_E2E_E2E_PATHS_H_
