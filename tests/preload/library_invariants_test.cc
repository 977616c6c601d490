// libfeedprof.so is a guest in someone else's process: it depends on the C
// library family only and exports only its entry points (docs/architecture.md).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <set>
#include <sstream>
#include <string>

namespace {

const std::string kLibrary =
    std::string(FEEDPROF_BINARY_DIR) + "/preload/libfeedprof.so";

bool HaveTool(const char* tool) {
  const std::string cmd = std::string("command -v ") + tool + " >/dev/null";
  return std::system(cmd.c_str()) == 0;
}

std::string Capture(const std::string& cmd) {
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  pclose(p);
  return out;
}

TEST(LibraryInvariantsTest, NeedsOnlyTheCLibraryFamily) {
  if (!HaveTool("readelf")) GTEST_SKIP() << "readelf not installed";
  const std::string dynamic = Capture("readelf -d --wide " + kLibrary);
  ASSERT_NE(dynamic.find("Dynamic section"), std::string::npos) << dynamic;
  const std::set<std::string> allowed = {"libc.so.6",
                                         "libm.so.6",
                                         "libdl.so.2",
                                         "libpthread.so.0",
                                         "librt.so.1",
                                         "ld-linux-x86-64.so.2",
                                         "ld-linux-aarch64.so.1"};
  std::istringstream in(dynamic);
  int needed = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.find("(NEEDED)") == std::string::npos) continue;
    const size_t open = line.find('[');
    const size_t close = line.find(']');
    ASSERT_NE(open, std::string::npos) << line;
    const std::string lib = line.substr(open + 1, close - open - 1);
    EXPECT_TRUE(allowed.count(lib)) << "libfeedprof.so needs " << lib;
    ++needed;
  }
  EXPECT_GE(needed, 1);
}

TEST(LibraryInvariantsTest, ExportsOnlyTheEntryPoints) {
  if (!HaveTool("nm")) GTEST_SKIP() << "nm not installed";
  const std::string defined =
      Capture("nm -D --defined-only --format=posix " + kLibrary);
  std::istringstream in(defined);
  std::set<std::string> exports;
  for (std::string line; std::getline(in, line);) {
    std::istringstream fields(line);
    std::string name;
    fields >> name;
    if (!name.empty()) exports.insert(name);
  }
  EXPECT_TRUE(exports.count("InitializeInjection"));
  // In front of the C library's: they finish the trace before the process
  // ends without running exit handlers.
  EXPECT_TRUE(exports.count("_exit"));
  EXPECT_TRUE(exports.count("_Exit"));
  for (const std::string& name : exports) {
    const bool ok = name == "InitializeInjection" ||
                    name == "InitializeInjectionNvtx2" || name == "_exit" ||
                    name == "_Exit" || name.rfind("feedprof_", 0) == 0;
    EXPECT_TRUE(ok) << "libfeedprof.so exports " << name;
  }
#ifdef FEEDPROF_HAVE_NVTX
  EXPECT_TRUE(exports.count("InitializeInjectionNvtx2"));
#endif
}

TEST(LibraryInvariantsTest, CarriesNoSharedCxxRuntimeOrProtobuf) {
  if (!HaveTool("nm")) GTEST_SKIP() << "nm not installed";
  // Strong undefined symbols only: the static C++ runtime leaves weak
  // references (transactional-memory clones) that resolve to null.
  const std::string undefined =
      Capture("nm -D --undefined-only --format=posix " + kLibrary);
  std::istringstream in(undefined);
  int strong = 0;
  for (std::string line; std::getline(in, line);) {
    std::istringstream fields(line);
    std::string name, type;
    fields >> name >> type;
    if (type != "U") continue;
    ++strong;
    EXPECT_EQ(name.find("GLIBCXX"), std::string::npos) << name;
    EXPECT_EQ(name.find("CXXABI"), std::string::npos) << name;
    EXPECT_EQ(name.find("protobuf"), std::string::npos) << name;
    EXPECT_EQ(name.find("absl"), std::string::npos) << name;
    EXPECT_NE(name.rfind("_Z", 0), 0u) << "C++ symbol from outside: " << name;
  }
  EXPECT_GT(strong, 10);  // libc functions, at least
}

TEST(LibraryInvariantsTest, NoThreadLocalWrapperSymbols) {
  if (!HaveTool("nm")) GTEST_SKIP() << "nm not installed";
  // A thread_local that is not constinit gets a TLS init function
  // (_ZTH...) and wrapper (_ZTW...): a weak undefined reference left in the
  // dynamic table, and a call on every access of the hot path.
  const std::string symbols = Capture("nm -D --format=posix " + kLibrary);
  std::istringstream in(symbols);
  int checked = 0;
  for (std::string line; std::getline(in, line);) {
    std::istringstream fields(line);
    std::string name;
    fields >> name;
    ++checked;
    EXPECT_NE(name.rfind("_ZTH", 0), 0u) << name;
    EXPECT_NE(name.rfind("_ZTW", 0), 0u) << name;
  }
  EXPECT_GT(checked, 10);
}

}  // namespace
