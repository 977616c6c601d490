// Native call sites carry their modules: each module a frame points into is
// announced once per trace, with its path and the GNU build id read from
// memory, which must be the one in the file on disk.
#include "cupti_hooks/call_sites.h"

#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "cupti_hooks/module_build_id.h"
#include "cupti_hooks/module_path.h"
#include "symbols/elf_file_facts.h"
#include "tests/cupti_hooks/capture_sink.h"

namespace feedprof::cupti {
namespace {

using test::captured;
using test::CaptureSink;

std::vector<trace::CallSites> CallSitesPackets() {
  std::vector<trace::CallSites> out;
  std::lock_guard<std::mutex> lock(captured().mutex);
  for (const auto& p : captured().packets) {
    if (p.has_call_sites()) out.push_back(p.call_sites());
  }
  return out;
}

__attribute__((noinline)) uint32_t CaptureHere(CallSiteRecorder& recorder) {
  return recorder.CaptureAndIntern();
}

__attribute__((noinline)) uint32_t CaptureThere(CallSiteRecorder& recorder) {
  return recorder.CaptureAndIntern();
}

TEST(CallSiteModulesTest, EachModuleIsAnnouncedOnceWithItsFileBuildId) {
  captured().Clear();
  CallSiteRecorder recorder(CaptureSink());
  recorder.set_python_enabled(false);
  ASSERT_NE(CaptureHere(recorder), 0u);
  ASSERT_NE(CaptureThere(recorder), 0u);
  const std::vector<trace::CallSites> packets = CallSitesPackets();
  ASSERT_EQ(packets.size(), 2u);

  // Every module named by a frame is announced, in that packet or before.
  std::map<uint32_t, std::string> announced;  // path id -> build id
  for (const trace::CallSites& packet : packets) {
    for (const trace::NativeModule& m : packet.modules()) {
      EXPECT_TRUE(announced.emplace(m.path_id(), m.build_id()).second)
          << "announced twice: " << captured().Text(m.path_id());
    }
    for (const trace::CallSite& site : packet.call_sites()) {
      EXPECT_FALSE(site.python());
      ASSERT_GT(site.frames_size(), 0);
      for (const trace::Frame& f : site.frames()) {
        if (f.file_id() == 0) continue;
        EXPECT_TRUE(announced.contains(f.file_id()))
            << captured().Text(f.file_id());
      }
    }
  }
  ASSERT_FALSE(announced.empty());
  EXPECT_TRUE(packets[1].modules().empty());  // the same modules again

  // The build ids are the files' own; the test program has one.
  bool saw_test_program = false;
  for (const auto& [path_id, build_id] : announced) {
    const std::string path = captured().Text(path_id);
    ASSERT_EQ(path.front(), '/') << path;
    const symbols::ElfFileFacts facts = symbols::ReadElfFileFacts(path);
    ASSERT_EQ(facts.state, symbols::ElfFileFacts::State::kOk) << path;
    EXPECT_EQ(absl::BytesToHexString(build_id), facts.build_id) << path;
    if (path.ends_with("/cupti_call_sites_test")) {
      saw_test_program = true;
      EXPECT_FALSE(build_id.empty());
    }
  }
  EXPECT_TRUE(saw_test_program);
}

TEST(CallSiteModulesTest, MainProgramIsRecordedByItsAbsolutePath) {
  char out[512];
  const auto here = reinterpret_cast<uintptr_t>(&CaptureHere);
  const char* path =
      RecordedModulePath(here, "cupti_call_sites_test", out, sizeof out);
  EXPECT_EQ(path, out);
  EXPECT_TRUE(std::string(path).ends_with("/cupti_call_sites_test")) << path;
  EXPECT_STREQ(RecordedModulePath(here, "/abs/name", out, sizeof out),
               "/abs/name");
}

TEST(CallSiteModulesTest, MalformedNotesGiveNoBuildId) {
  uint8_t out[kMaxBuildIdBytes];
  // A well-formed GNU build id note: namesz 4, descsz 4, type 3.
  const uint8_t good[] = {4, 0, 0,   0,   4,   0, 0,    0,    3,    0,
                          0, 0, 'G', 'N', 'U', 0, 0xde, 0xad, 0xbe, 0xef};
  ASSERT_EQ(FindBuildIdNote(good, sizeof good, 4, out, sizeof out), 4u);
  EXPECT_EQ(out[0], 0xde);
  EXPECT_EQ(FindBuildIdNote(good, sizeof good - 1, 4, out, sizeof out), 0u);
  EXPECT_EQ(FindBuildIdNote(good, 10, 4, out, sizeof out), 0u);
  EXPECT_EQ(FindBuildIdNote(good, sizeof good, 4, out, 2), 0u);
  uint8_t huge[sizeof good];
  std::memcpy(huge, good, sizeof good);
  huge[3] = 0xff;  // namesz past the end
  EXPECT_EQ(FindBuildIdNote(huge, sizeof huge, 4, out, sizeof out), 0u);
  std::memcpy(huge, good, sizeof good);
  huge[7] = 0xff;  // descsz past the end
  EXPECT_EQ(FindBuildIdNote(huge, sizeof huge, 8, out, sizeof out), 0u);
}

}  // namespace
}  // namespace feedprof::cupti
