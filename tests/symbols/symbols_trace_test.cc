// Through a trace file: the reader fills the native modules from a
// CallSites packet, the symbolizer turns its native frame into a source
// line, and the CLI prints that line (with --symbol-path when the module
// moved).
#include <dlfcn.h>

#include <string>

#include "absl/strings/escaping.h"
#include "feedprof/symbolize.h"
#include "feedprof/trace_loader.h"
#include "gtest/gtest.h"
#include "tests/symbols/test_module.h"
#include "tests/testing/feedprof_cli_runner.h"
#include "tests/testing/trace_test_files.h"

namespace feedprof {
namespace {

constexpr uint32_t kModulePathId = 90;

// The full test trace with its call site 5 made a native one: a frame in
// the test module at `module_path`, the module announced with its build id.
std::string WriteNativeTrace(const testing::TempDir& dir,
                             const std::string& module_path, int* line) {
  const uintptr_t address = SymbolsTestCallSite();
  *line = SymbolsTestCallLine();
  Dl_info info{};
  EXPECT_NE(dladdr(reinterpret_cast<void*>(address), &info), 0);
  std::vector<trace::Packet> packets = testing::FullTracePackets();
  for (trace::Packet& p : packets) {
    if (!p.has_call_sites()) continue;
    trace::CallSites& sites = *p.mutable_call_sites();
    trace::CallSite& site = *sites.mutable_call_sites(0);
    site.set_python(false);
    site.clear_frames();
    trace::Frame& frame = *site.add_frames();
    frame.set_file_id(kModulePathId);
    frame.set_pc(address - reinterpret_cast<uintptr_t>(info.dli_fbase));
    trace::NativeModule& module = *sites.add_modules();
    module.set_path_id(kModulePathId);
    module.set_build_id(absl::HexStringToBytes(SYMBOLS_TEST_BUILD_ID));
  }
  packets.insert(packets.begin() + 1,
                 testing::StringsPacket({{kModulePathId, module_path}}));
  const std::string path = dir.File("native.fpt");
  testing::WriteFile(path, testing::FramePackets(packets));
  return path;
}

TEST(SymbolsTraceTest, ReaderKeepsModulesAndFramesSymbolize) {
  testing::TempDir dir;
  int line = 0;
  const std::string path = WriteNativeTrace(dir, SYMBOLS_TEST_MODULE, &line);
  absl::StatusOr<Timeline> t = LoadTrace(path);
  ASSERT_TRUE(t.ok()) << t.status();
  ASSERT_EQ(t->native_modules.size(), 1u);
  EXPECT_EQ(t->strings.Get(t->native_modules[0].path), SYMBOLS_TEST_MODULE);
  EXPECT_EQ(t->native_modules[0].build_id, SYMBOLS_TEST_BUILD_ID);
  ASSERT_TRUE(HasUnsymbolizedNativeFrames(*t));
  const SymbolizeResult r = SymbolizeNativeFrames(*t);
  EXPECT_EQ(r.with_line, 1u);
  EXPECT_EQ(r.unchecked, 0u);
  EXPECT_TRUE(t->warnings.empty());
}

TEST(SymbolsTraceTest, CliPrintsTheSourceLineOfAMovedModule) {
  testing::TempDir dir;
  int line = 0;
  const std::string path = WriteNativeTrace(
      dir, "/recording/machine/libsymbols_test_module.so", &line);
  const std::string where = "symbols_test::CallerOfCapture() (";
  const std::string file_line = "test_module.cc:" + std::to_string(line) + ")";

  const testing::CliResult plain = testing::RunFeedprofCli("analyze " + path);
  EXPECT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_NE(plain.err.find("module not found on this machine"),
            std::string::npos)
      << plain.err;
  EXPECT_EQ(plain.out.find(file_line), std::string::npos) << plain.out;

  const std::string module_dir =
      std::string(SYMBOLS_TEST_MODULE)
          .substr(0, std::string(SYMBOLS_TEST_MODULE).rfind('/'));
  const testing::CliResult found = testing::RunFeedprofCli(
      "analyze --symbol-path " + module_dir + " " + path);
  EXPECT_EQ(found.exit_code, 0) << found.err;
  EXPECT_NE(found.out.find(where), std::string::npos) << found.out;
  EXPECT_NE(found.out.find(file_line), std::string::npos) << found.out;
  EXPECT_EQ(found.err.find("module not found"), std::string::npos) << found.err;
}

// `feedprof dump` shows each module line with its path and build id.
TEST(SymbolsTraceTest, DumpListsTheModulesWithTheirBuildIds) {
  testing::TempDir dir;
  int line = 0;
  const std::string path = WriteNativeTrace(dir, SYMBOLS_TEST_MODULE, &line);
  const testing::CliResult dump = testing::RunFeedprofCli("dump " + path);
  ASSERT_EQ(dump.exit_code, 0) << dump.err;
  const size_t at = dump.out.find("\"type\":\"native_module\"");
  ASSERT_NE(at, std::string::npos) << dump.out.substr(0, 2000);
  const std::string module_line =
      dump.out.substr(at, dump.out.find('\n', at) - at);
  EXPECT_NE(
      module_line.find(std::string("\"path\":\"") + SYMBOLS_TEST_MODULE + "\""),
      std::string::npos)
      << module_line;
  EXPECT_NE(module_line.find(std::string("\"build_id\":\"") +
                             SYMBOLS_TEST_BUILD_ID + "\""),
            std::string::npos)
      << module_line;
}

}  // namespace
}  // namespace feedprof
