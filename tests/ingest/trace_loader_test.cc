// LoadTrace / DetectTraceFormat: each format is recognised by content or by
// name, and an unknown file is an error that shows what it holds.
#include "feedprof/trace_loader.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <string>
#include <vector>

#include "feedprof/trace_reader.h"
#include "google/protobuf/stubs/logging.h"
#include "tests/testing/trace_test_files.h"

namespace feedprof {
namespace {

using testing::FramePackets;
using testing::TempDir;
using testing::WriteFile;

SourceFormat Detect(const std::string& path) {
  absl::StatusOr<DetectedFormat> f = DetectTraceFormat(path);
  EXPECT_TRUE(f.ok()) << f.status();
  return f.ok() ? f->format : SourceFormat::kUnknown;
}

constexpr char kTinyKineto[] =
    R"({"traceEvents":[{"ph":"X","cat":"kernel","name":"k","pid":0,)"
    R"("tid":7,"ts":10.0,"dur":2.5,"args":{"device":0,"stream":7,)"
    R"("correlation":1}}]})";

TEST(TraceLoader, DetectsFeedprofByContentExtensionAndDirectory) {
  TempDir dir;
  const std::string bytes =
      FramePackets(testing::SmallProcessPackets(5, -1, "k", 100, 0));
  WriteFile(dir.File("trace.bin"), bytes);  // no telling name
  EXPECT_EQ(Detect(dir.File("trace.bin")), SourceFormat::kFeedprof);
  WriteFile(dir.File("empty.fpt"), "");
  EXPECT_EQ(Detect(dir.File("empty.fpt")), SourceFormat::kFeedprof);
  EXPECT_EQ(Detect(dir.path()), SourceFormat::kFeedprof);
  // A header packet longer than what was sniffed still counts.
  WriteFile(dir.File("cut"), bytes.substr(0, 4));
  EXPECT_EQ(Detect(dir.File("cut")), SourceFormat::kFeedprof);
}

TEST(TraceLoader, DetectsFeedprofWithInvalidUtf8InTheHeaderQuietly) {
  TempDir dir;
  std::vector<trace::Packet> packets =
      testing::SmallProcessPackets(5, -1, "k", 100, 0);
  packets[0].mutable_header()->add_argv("caf\xE9");  // Latin-1, not UTF-8
  {
    google::protobuf::LogSilencer quiet;  // libprotobuf complains on write
    WriteFile(dir.File("trace.bin"), FramePackets(packets));
  }
  ::testing::internal::CaptureStderr();
  const SourceFormat format = Detect(dir.File("trace.bin"));
  const std::string stderr_text = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(format, SourceFormat::kFeedprof);
  EXPECT_EQ(stderr_text, "");
  absl::StatusOr<Timeline> t = LoadTrace(dir.File("trace.bin"));
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->gpu_ops.size(), 1u);
}

TEST(TraceLoader, DetectsKinetoJsonAndGzip) {
  TempDir dir;
  WriteFile(dir.File("trace.txt"), std::string("\n  ") + kTinyKineto);
  EXPECT_EQ(Detect(dir.File("trace.txt")), SourceFormat::kKineto);
  WriteFile(dir.File("x.data"), std::string("\x1f\x8b\x08\x00", 4));
  EXPECT_EQ(Detect(dir.File("x.data")), SourceFormat::kKineto);
  WriteFile(dir.File("empty.json"), "");
  EXPECT_EQ(Detect(dir.File("empty.json")), SourceFormat::kKineto);
  WriteFile(dir.File("empty.json.gz"), "");
  EXPECT_EQ(Detect(dir.File("empty.json.gz")), SourceFormat::kKineto);
}

TEST(TraceLoader, DetectsNsightSqlite) {
  TempDir dir;
  WriteFile(dir.File("report"), std::string("SQLite format 3\0rest", 20));
  EXPECT_EQ(Detect(dir.File("report")), SourceFormat::kNsight);
}

TEST(TraceLoader, UnknownFormatShowsTheFirstBytesAndTheFormats) {
  TempDir dir;
  const std::string path = dir.File("mystery.dat");
  WriteFile(path, "hello\x01");
  absl::StatusOr<DetectedFormat> f = DetectTraceFormat(path);
  ASSERT_FALSE(f.ok());
  const std::string message(f.status().message());
  EXPECT_NE(message.find(path + ": unrecognised trace format (first bytes: "
                                "68 65 6c 6c 6f 01 \"hello.\")"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("Kineto"), std::string::npos);
  EXPECT_NE(message.find("Nsight Systems"), std::string::npos);
  EXPECT_NE(message.find("*.fpt"), std::string::npos);

  absl::StatusOr<Timeline> t = LoadTrace(path);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().message(), f.status().message());
}

TEST(TraceLoader, MissingPathIsNotFound) {
  absl::StatusOr<Timeline> t = LoadTrace("/nonexistent/trace.json");
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), absl::StatusCode::kNotFound);
}

TEST(TraceLoader, LoadsFeedprofTraces) {
  TempDir dir;
  WriteFile(dir.File("trace.bin"),
            FramePackets(testing::SmallProcessPackets(5, -1, "k", 100, 0)));
  absl::StatusOr<Timeline> t = LoadTrace(dir.File("trace.bin"));
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->format, SourceFormat::kFeedprof);
  EXPECT_EQ(t->gpu_ops.size(), 1u);
  EXPECT_EQ(t->processes.at(0).pid, 5);
}

TEST(TraceLoader, HandsKinetoTracesToTheKinetoReader) {
  TempDir dir;
  WriteFile(dir.File("trace.json"), kTinyKineto);
  absl::StatusOr<Timeline> t = LoadTrace(dir.File("trace.json"));
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->format, SourceFormat::kKineto);
  ASSERT_EQ(t->gpu_ops.size(), 1u);
  EXPECT_EQ(t->gpu_ops[0].end - t->gpu_ops[0].start, 2500);
}

TEST(TraceLoader, HandsSqliteFilesToTheNsightReader) {
  TempDir dir;
  // The header alone: not a usable database, whichever reader sees it.
  WriteFile(dir.File("report.sqlite"), std::string("SQLite format 3\0", 16));
  absl::StatusOr<Timeline> t = LoadTrace(dir.File("report.sqlite"));
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find(dir.File("report.sqlite")),
            std::string::npos)
      << t.status();
}

// A directory of Kineto files is read as a multi-rank run
// (trace_directory_test.cc); when none of them reads, the error names each
// file and its problem.
TEST(TraceLoader, DirectoryOfUnreadableKinetoTracesNamesEachFile) {
  TempDir dir;
  WriteFile(dir.File("rank0.json.gz"), "x");
  WriteFile(dir.File("rank1.json.gz"), "x");
  absl::StatusOr<Timeline> t = LoadTrace(dir.path());
  ASSERT_FALSE(t.ok());
  // One line per file, in name order, each the Kineto reader's error.
  const std::string message(t.status().message());
  const size_t newline = message.find('\n');
  ASSERT_NE(newline, std::string::npos) << message;
  EXPECT_EQ(message.rfind(dir.File("rank0.json.gz") + ": malformed JSON", 0),
            0u)
      << message;
  EXPECT_EQ(message.find(dir.File("rank1.json.gz") + ": malformed JSON"),
            newline + 1)
      << message;
}

// The real traces others recorded, detected by content.
TEST(TraceLoader, DetectsTheSharedRealTraces) {
  const std::string root = FEEDPROF_SHARED_TRACES_DIR;
  if (!std::filesystem::is_directory(root)) {
    GTEST_SKIP() << "no shared traces at " << root;
  }
  int checked = 0;
  for (const auto& entry :
       std::filesystem::recursive_directory_iterator(root)) {
    const std::string path = entry.path().string();
    SourceFormat expected = SourceFormat::kUnknown;
    if (path.ends_with(".json.gz")) expected = SourceFormat::kKineto;
    if (path.ends_with(".sqlite")) expected = SourceFormat::kNsight;
    if (expected == SourceFormat::kUnknown) continue;
    SCOPED_TRACE(path);
    EXPECT_EQ(Detect(path), expected);
    ++checked;
  }
  EXPECT_GE(checked, 10);
}

// A pipe blocks whoever opens it until a writer comes, and sniffing it
// would eat the bytes the reader needs: every entry point refuses it at
// once, naming the path.
TEST(TraceLoader, PipeIsRefusedWithoutOpeningIt) {
  TempDir dir;
  const std::string fifo = dir.File("trace.json");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  absl::StatusOr<DetectedFormat> f = DetectTraceFormat(fifo);
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(f.status().message().find(fifo + ": not a regular file"),
            std::string::npos)
      << f.status();
  EXPECT_FALSE(LoadTrace(fifo).ok());
  absl::StatusOr<Timeline> t = ReadFeedprofTrace(fifo);
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find(fifo + ": not a regular file"),
            std::string::npos)
      << t.status();
}

}  // namespace
}  // namespace feedprof
