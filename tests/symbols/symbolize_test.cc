// Native frames symbolized against real modules built with debug info
// (CMakeLists.txt): shared object, PIE and non-PIE executables, a rebuilt
// copy with another build id, a stripped copy, a missing and a damaged
// module, a moved one found through a symbol path.
#include "feedprof/symbolize.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "gtest/gtest.h"
#include "symbols/elf_file_facts.h"
#include "tests/symbols/test_module.h"

namespace feedprof {
namespace {

namespace fs = std::filesystem;

struct Where {
  std::string module;
  uint64_t offset = 0;
  int line = 0;
};

// The shared object's call site, as the recorder writes it.
Where LibraryCallSite() {
  const uintptr_t address = SymbolsTestCallSite();
  Dl_info info{};
  EXPECT_NE(dladdr(reinterpret_cast<void*>(address), &info), 0);
  return Where{info.dli_fname,
               address - reinterpret_cast<uintptr_t>(info.dli_fbase),
               SymbolsTestCallLine()};
}

// An executable's call site, as it prints it.
Where ProgramCallSite(const std::string& program) {
  Where where{program, 0, 0};
  FILE* out = popen(program.c_str(), "r");
  EXPECT_NE(out, nullptr);
  if (out == nullptr) return where;
  unsigned long long offset = 0;
  EXPECT_EQ(std::fscanf(out, "%llx %d", &offset, &where.line), 2);
  EXPECT_EQ(pclose(out), 0);
  where.offset = offset;
  return where;
}

// A timeline with one native call site at `where`, its module recorded
// with `build_id` (none when empty).
Timeline OneFrame(const Where& where, const std::string& build_id) {
  Timeline t;  // call site 0 is the empty one
  CallSite site;
  Frame frame;
  frame.kind = FrameKind::kNative;
  frame.module = t.strings.Intern(where.module);
  frame.pc = where.offset;
  site.frames.push_back(frame);
  t.call_sites.push_back(site);
  if (!build_id.empty()) {
    t.native_modules.push_back(NativeModule{frame.module, build_id});
  }
  return t;
}

// The build id of the file at `path`, as the recorder would have written it.
std::string BuildIdOf(const std::string& path) {
  return symbols::ReadElfFileFacts(path).build_id;
}

const Frame& TheFrame(const Timeline& t) { return t.call_sites[1].frames[0]; }

std::string BaseName(std::string_view path) {
  return std::string(path.substr(path.rfind('/') + 1));
}

std::string Warnings(const Timeline& t) {
  std::string all;
  for (const std::string& w : t.warnings) all += w + "\n";
  return all;
}

void ExpectCallSite(const Timeline& t, const Where& where) {
  const Frame& f = TheFrame(t);
  EXPECT_EQ(t.strings.Get(f.function), "symbols_test::CallerOfCapture()");
  EXPECT_EQ(BaseName(t.strings.Get(f.file)), "test_module.cc");
  EXPECT_EQ(f.line, static_cast<uint32_t>(where.line));
  EXPECT_GT(where.line, 0);
}

// A fresh directory under the test's temporary directory.
fs::path TempDir(const std::string& name) {
  const fs::path dir =
      fs::temp_directory_path() /
      ("feedprof_symbols_" + std::to_string(getpid()) + "_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

TEST(SymbolizeTest, SharedObjectFrameGetsFunctionFileAndLine) {
  const Where where = LibraryCallSite();
  Timeline t = OneFrame(where, SYMBOLS_TEST_BUILD_ID);
  ASSERT_TRUE(HasUnsymbolizedNativeFrames(t));
  const SymbolizeResult r = SymbolizeNativeFrames(t);
  EXPECT_EQ(r.native_frames, 1u);
  EXPECT_EQ(r.symbolized, 1u);
  EXPECT_EQ(r.with_line, 1u);
  EXPECT_EQ(r.unchecked, 0u);
  EXPECT_EQ(r.modules_failed, 0u);
  ExpectCallSite(t, where);
  EXPECT_EQ(TheFrame(t).module, t.strings.Intern(where.module));
  EXPECT_TRUE(t.warnings.empty()) << Warnings(t);
  EXPECT_FALSE(HasUnsymbolizedNativeFrames(t));
}

TEST(SymbolizeTest, PieExecutableFrame) {
  const Where where = ProgramCallSite(SYMBOLS_PIE_PROGRAM);
  Timeline t = OneFrame(where, BuildIdOf(where.module));
  const SymbolizeResult r = SymbolizeNativeFrames(t);
  EXPECT_EQ(r.with_line, 1u);
  ExpectCallSite(t, where);
}

TEST(SymbolizeTest, NonPieExecutableFrameCountsFromItsLinkBase) {
  const Where where = ProgramCallSite(SYMBOLS_NOPIE_PROGRAM);
  Timeline t = OneFrame(where, BuildIdOf(where.module));
  const SymbolizeResult r = SymbolizeNativeFrames(t);
  EXPECT_EQ(r.with_line, 1u);
  ExpectCallSite(t, where);
}

// A trace written before build ids were recorded: the file at the recorded
// path may be another build (another machine's libc gives plausible, wrong
// lines), so it is not used unless the user points at it.
TEST(SymbolizeTest, WithoutRecordedBuildIdOnlyAFileTheUserGaveIsUsed) {
  const Where where = LibraryCallSite();
  Timeline t = OneFrame(where, "");
  SymbolizeResult r = SymbolizeNativeFrames(t);
  EXPECT_EQ(r.symbolized, 0u);
  EXPECT_EQ(r.modules_failed, 1u);
  EXPECT_EQ(TheFrame(t).line, 0u);
  ASSERT_EQ(t.warnings.size(), 1u);
  EXPECT_NE(t.warnings[0].find("the trace recorded no build id for it"),
            std::string::npos)
      << t.warnings[0];
  EXPECT_NE(t.warnings[0].find("pass --symbol-path DIR"), std::string::npos);

  Timeline pointed = OneFrame(where, "");
  SymbolizeOptions options;
  options.symbol_paths = {fs::path(SYMBOLS_TEST_MODULE).parent_path()};
  r = SymbolizeNativeFrames(pointed, options);
  EXPECT_EQ(r.unchecked, 1u);
  ExpectCallSite(pointed, where);
  ASSERT_EQ(pointed.warnings.size(), 1u);
  EXPECT_NE(pointed.warnings[0].find("without a build id check"),
            std::string::npos)
      << pointed.warnings[0];
}

TEST(SymbolizeTest, ExactInstructionOfASampledStackIsNotMovedBack) {
  // The first byte of a function: pc - 1 would fall in the function before.
  // (Its address from the library itself, not a PLT stub of the test's.)
  void* library = dlopen(SYMBOLS_TEST_MODULE, RTLD_NOW | RTLD_NOLOAD);
  ASSERT_NE(library, nullptr);
  void* function = dlsym(library, "SymbolsTestCallSite");
  ASSERT_NE(function, nullptr);
  Dl_info info{};
  ASSERT_NE(dladdr(function, &info), 0);
  const Where where{info.dli_fname,
                    reinterpret_cast<uintptr_t>(function) -
                        reinterpret_cast<uintptr_t>(info.dli_fbase),
                    0};
  dlclose(library);
  Timeline t = OneFrame(where, SYMBOLS_TEST_BUILD_ID);
  t.stack_samples.push_back(StackSample{1000, 1, 1, 1, 0});
  SymbolizeNativeFrames(t);
  EXPECT_EQ(t.strings.Get(TheFrame(t).function), "SymbolsTestCallSite");
  EXPECT_EQ(BaseName(t.strings.Get(TheFrame(t).file)), "test_module.cc");
}

TEST(SymbolizeTest, RebuiltModuleIsRefusedWithBothBuildIds) {
  Where where = LibraryCallSite();
  where.module = SYMBOLS_REBUILT_MODULE;  // same name, another build
  Timeline t = OneFrame(where, SYMBOLS_TEST_BUILD_ID);
  const SymbolizeResult r = SymbolizeNativeFrames(t);
  EXPECT_EQ(r.symbolized, 0u);
  EXPECT_EQ(r.modules_failed, 1u);
  EXPECT_EQ(TheFrame(t).line, 0u);
  EXPECT_EQ(TheFrame(t).function, 0u);
  ASSERT_EQ(t.warnings.size(), 1u);
  const std::string& w = t.warnings[0];
  EXPECT_NE(w.find("build id differs (recorded aaaaaaaa…, " +
                   std::string(SYMBOLS_REBUILT_MODULE) + " has bbbbbbbb…"),
            std::string::npos)
      << w;
}

TEST(SymbolizeTest, SymbolPathHoldingTheRightBuildWins) {
  Where where = LibraryCallSite();
  where.module = SYMBOLS_REBUILT_MODULE;
  Timeline t = OneFrame(where, SYMBOLS_TEST_BUILD_ID);
  SymbolizeOptions options;
  options.symbol_paths = {fs::path(SYMBOLS_TEST_MODULE).parent_path()};
  SymbolizeNativeFrames(t, options);
  ExpectCallSite(t, LibraryCallSite());
  EXPECT_TRUE(t.warnings.empty()) << Warnings(t);
}

TEST(SymbolizeTest, MovedModuleIsFoundThroughSymbolPath) {
  Where where = LibraryCallSite();
  where.module = "/no/such/dir/libsymbols_test_module.so";
  Timeline t = OneFrame(where, SYMBOLS_TEST_BUILD_ID);
  SymbolizeOptions options;
  options.symbol_paths = {"/no/such/symbols",
                          fs::path(SYMBOLS_TEST_MODULE).parent_path()};
  const SymbolizeResult r = SymbolizeNativeFrames(t, options);
  EXPECT_EQ(r.with_line, 1u);
  ExpectCallSite(t, where);
  EXPECT_TRUE(t.warnings.empty()) << Warnings(t);
}

TEST(SymbolizeTest, MissingModuleSaysWhereItLooked) {
  Where where = LibraryCallSite();
  where.module = "/no/such/dir/libgone.so";
  Timeline t = OneFrame(where, SYMBOLS_TEST_BUILD_ID);
  SymbolizeOptions options;
  options.symbol_paths = {"/opt/syms"};
  options.debug_roots = {"/no/debug"};
  const SymbolizeResult r = SymbolizeNativeFrames(t, options);
  EXPECT_EQ(r.modules_failed, 1u);
  EXPECT_EQ(TheFrame(t).pc, where.offset);
  ASSERT_EQ(t.warnings.size(), 1u);
  EXPECT_NE(t.warnings[0].find(
                "module not found on this machine (looked in "
                "/opt/syms/libgone.so, /no/such/dir/libgone.so, "
                "/no/debug/.build-id/aa/aaaaaa11111111aaaaaaaa11111111aaaaaaaa"
                ".debug; pass --symbol-path DIR)"),
            std::string::npos)
      << t.warnings[0];
}

TEST(SymbolizeTest, StrippedModuleSaysSo) {
  Where where = LibraryCallSite();
  where.module = SYMBOLS_STRIPPED_MODULE;
  Timeline t = OneFrame(where, SYMBOLS_TEST_BUILD_ID);
  SymbolizeOptions options;
  options.debug_roots = {};
  const SymbolizeResult r = SymbolizeNativeFrames(t, options);
  EXPECT_EQ(r.symbolized, 0u);
  ASSERT_EQ(t.warnings.size(), 1u);
  EXPECT_NE(t.warnings[0].find("no symbols or line info in " +
                               std::string(SYMBOLS_STRIPPED_MODULE) +
                               " (stripped; install its -dbg package"),
            std::string::npos)
      << t.warnings[0];
}

TEST(SymbolizeTest, StrippedModuleUsesItsDebugFileByBuildId) {
  const fs::path root = TempDir("debug_root");
  const std::string id = SYMBOLS_TEST_BUILD_ID;
  const fs::path debug =
      root / ".build-id" / id.substr(0, 2) / (id.substr(2) + ".debug");
  fs::create_directories(debug.parent_path());
  fs::copy_file(SYMBOLS_DEBUG_FILE, debug);
  Where where = LibraryCallSite();
  where.module = SYMBOLS_STRIPPED_MODULE;
  Timeline t = OneFrame(where, SYMBOLS_TEST_BUILD_ID);
  SymbolizeOptions options;
  options.debug_roots = {root.string()};
  SymbolizeNativeFrames(t, options);
  ExpectCallSite(t, LibraryCallSite());
  EXPECT_TRUE(t.warnings.empty()) << Warnings(t);
  fs::remove_all(root);
}

TEST(SymbolizeTest, DamagedModulesGiveAReasonNotACrash) {
  const fs::path dir = TempDir("damaged");
  std::string elf(fs::file_size(SYMBOLS_TEST_MODULE), '\0');
  std::ifstream(SYMBOLS_TEST_MODULE, std::ios::binary)
      .read(elf.data(), static_cast<std::streamsize>(elf.size()));
  ASSERT_GT(elf.size(), 8192u);
  const std::vector<std::pair<std::string, std::string>> files = {
      {"libgarbage.so", std::string(3000, '\x7f')},
      {"libempty.so", ""},
      {"libheader.so", elf.substr(0, 64)},
      {"libtruncated.so", elf.substr(0, 4096)},
      {"libhalf.so", elf.substr(0, elf.size() / 2)},
  };
  for (const auto& [name, bytes] : files) {
    std::ofstream(dir / name, std::ios::binary) << bytes;
    Where where = LibraryCallSite();
    where.module = (dir / name).string();
    Timeline t = OneFrame(where, "");
    // Through --symbol-path: without a recorded build id only a file the
    // user points at is opened.
    SymbolizeOptions options;
    options.symbol_paths = {dir.string()};
    SymbolizeNativeFrames(t, options);
    EXPECT_EQ(t.warnings.size(), 1u) << name << ": " << Warnings(t);
    EXPECT_EQ(t.warnings[0].find("recorded no build id"), std::string::npos)
        << t.warnings[0];
    EXPECT_EQ(TheFrame(t).pc, where.offset);
  }
  fs::remove_all(dir);
}

TEST(SymbolizeTest, TimelineWithoutNativeFramesIsUntouched) {
  Timeline t;
  CallSite python;
  python.python = true;
  Frame f;
  f.kind = FrameKind::kPython;
  f.file = t.strings.Intern("train.py");
  f.function = t.strings.Intern("step");
  f.line = 12;
  python.frames.push_back(f);
  t.call_sites.push_back(python);
  CallSite nsight;  // a native frame with a name but no offset
  Frame n;
  n.kind = FrameKind::kNative;
  n.module = t.strings.Intern("libtorch_cuda.so");
  n.function = t.strings.Intern("at::native::copy_");
  nsight.frames.push_back(n);
  t.call_sites.push_back(nsight);
  const size_t strings = t.strings.size();
  EXPECT_FALSE(HasUnsymbolizedNativeFrames(t));
  const SymbolizeResult r = SymbolizeNativeFrames(t);
  EXPECT_EQ(r.native_frames, 0u);
  EXPECT_EQ(r.modules, 0u);
  EXPECT_EQ(t.strings.size(), strings);
  EXPECT_TRUE(t.warnings.empty());
  EXPECT_EQ(t.call_sites[1].frames[0].line, 12u);
  EXPECT_EQ(t.call_sites[2].frames[0].function, n.function);
}

}  // namespace
}  // namespace feedprof
