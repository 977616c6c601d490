// Every reader opens its input through common::InputFile: a directory, a
// missing file, a file this user cannot read and a pipe are each refused at
// once with an error that names the path and says what to do, whichever
// reader (feedprof, Kineto, Nsight) or the format-detecting loader is given
// it.
#include "common/input_file.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "feedprof/kineto_reader.h"
#include "feedprof/nsight_reader.h"
#include "feedprof/trace_loader.h"
#include "fpt/packet_stream.h"
#include "kineto/gzip_input.h"
#include "nsight/sqlite_database.h"
#include "tests/testing/trace_test_files.h"

namespace feedprof {
namespace {

using testing::TempDir;
using testing::WriteFile;

// One way into a reader: its status for `path`.
struct ReaderEntry {
  const char* name;
  std::function<absl::Status(const std::string&)> open;
};

// The readers of files, and with `with_loader` the format-detecting loader
// too (feedprof/trace_loader.h).
std::vector<ReaderEntry> AllReaders(bool with_loader) {
  std::vector<ReaderEntry> readers = {
      {"InputFile",
       [](const std::string& p) {
         return common::InputFile::Open(p).status();
       }},
      {"PacketStreamReader",
       [](const std::string& p) {
         return fpt::PacketStreamReader::Open(p).status();
       }},
      {"GzipFileInput",
       [](const std::string& p) {
         return kineto::GzipFileInput::Open(p).status();
       }},
      {"ReadKinetoTrace",
       [](const std::string& p) { return ReadKinetoTrace(p).status(); }},
      {"SqliteDatabase",
       [](const std::string& p) {
         return nsight::SqliteDatabase::Open(p).status();
       }},
      {"ReadNsightTrace",
       [](const std::string& p) { return ReadNsightTrace(p).status(); }},
  };
  if (with_loader) {
    readers.push_back({"DetectTraceFormat", [](const std::string& p) {
                         return DetectTraceFormat(p).status();
                       }});
    readers.push_back({"LoadTrace", [](const std::string& p) {
                         return LoadTrace(p).status();
                       }});
  }
  return readers;
}

// Every reader fails on `path` with `code` and a message holding `text`.
void ExpectEveryReaderFails(const std::string& path, absl::StatusCode code,
                            const std::string& text) {
  // The loader takes a directory for a feedprof session.
  const bool with_loader = !std::filesystem::is_directory(path);
  for (const ReaderEntry& reader : AllReaders(with_loader)) {
    SCOPED_TRACE(reader.name);
    const absl::Status status = reader.open(path);
    EXPECT_EQ(status.code(), code) << status;
    EXPECT_NE(status.message().find(text), std::string::npos) << status;
  }
}

TEST(InputFileTest, OpensARegularFileReadOnlyAndCloseOnExec) {
  TempDir dir;
  const std::string path = dir.File("trace.json");
  WriteFile(path, "0123456789");
  absl::StatusOr<common::InputFile> file = common::InputFile::Open(path);
  ASSERT_TRUE(file.ok()) << file.status();
  EXPECT_EQ(file->size(), 10u);
  EXPECT_EQ(file->path(), path);
  const int fd_flags = ::fcntl(file->fd(), F_GETFD);
  EXPECT_NE(fd_flags & FD_CLOEXEC, 0);
  const int status_flags = ::fcntl(file->fd(), F_GETFL);
  EXPECT_EQ(status_flags & O_ACCMODE, O_RDONLY);
  EXPECT_EQ(status_flags & O_NONBLOCK, 0);  // cleared once known regular
  char bytes[4] = {};
  EXPECT_EQ(file->ReadAt(6, bytes, sizeof bytes), 4);
  EXPECT_EQ(std::string(bytes, 4), "6789");
  EXPECT_EQ(file->ReadAt(8, bytes, sizeof bytes), 2);  // short at the end

  // Moving hands the descriptor over; only the last owner closes it.
  const int fd = file->fd();
  common::InputFile moved = *std::move(file);
  EXPECT_EQ(moved.fd(), fd);
  EXPECT_EQ(::fcntl(fd, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
}

TEST(InputFileTest, EveryReaderRefusesADirectoryNamingIt) {
  TempDir dir;
  ExpectEveryReaderFails(dir.path(), absl::StatusCode::kInvalidArgument,
                         dir.path() +
                             " is a directory: give a trace file (.fpt, "
                             ".json, .json.gz or .sqlite) or a session "
                             "directory");
}

TEST(InputFileTest, EveryReaderReportsAMissingFileAsNotFound) {
  TempDir dir;
  const std::string missing = dir.File("no_such_trace.json.gz");
  ExpectEveryReaderFails(
      missing, absl::StatusCode::kNotFound,
      missing +
          ": No such file or directory; check the path and give a "
          "trace file");
}

TEST(InputFileTest, EveryReaderReportsAnUnreadableFileAsPermissionDenied) {
  if (::geteuid() == 0) {
    GTEST_SKIP() << "running as root, which can read any file whatever its "
                    "mode, so no unreadable file can be made";
  }
  TempDir dir;
  const std::string path = dir.File("locked.sqlite");
  WriteFile(path, "SQLite format 3");
  ASSERT_EQ(::chmod(path.c_str(), 0), 0);
  ExpectEveryReaderFails(path, absl::StatusCode::kPermissionDenied,
                         path +
                             ": Permission denied; make the file and the "
                             "directories above it readable");
}

// Opening a pipe for reading would wait for a writer; every reader refuses
// it without waiting (this test would hang otherwise).
TEST(InputFileTest, EveryReaderRefusesAPipeWithoutBlocking) {
  TempDir dir;
  const std::string fifo = dir.File("trace.json");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  ExpectEveryReaderFails(fifo, absl::StatusCode::kInvalidArgument,
                         fifo +
                             ": not a regular file (a pipe, socket or "
                             "device); save the trace to a file first");
  EXPECT_FALSE(nsight::HasSqliteHeader(fifo));
}

}  // namespace
}  // namespace feedprof
