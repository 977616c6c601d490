// A SQLite file built by a test, row by row, with the sqlite3 C API.
//
// The importer's traps (version-suffixed names, nested duplicate rows, the
// memory-kind offset, missing tables and columns) are each easiest to pin
// down on a database that holds exactly the rows the test names. The file
// lives in the test's temporary directory and is removed afterwards.
#ifndef FEEDPROF_TESTS_NSIGHT_SCRATCH_SQLITE_FILE_H_
#define FEEDPROF_TESTS_NSIGHT_SCRATCH_SQLITE_FILE_H_

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <string>

namespace feedprof::nsight::testing {

class ScratchSqliteFile {
 public:
  explicit ScratchSqliteFile(const std::string& name)
      : path_(::testing::TempDir() + "/" + name + "_" +
              std::to_string(getpid()) + ".sqlite") {
    std::remove(path_.c_str());
    EXPECT_EQ(sqlite3_open(path_.c_str(), &db_), SQLITE_OK);
  }
  ScratchSqliteFile(const ScratchSqliteFile&) = delete;
  ScratchSqliteFile& operator=(const ScratchSqliteFile&) = delete;
  ~ScratchSqliteFile() {
    Close();
    std::remove(path_.c_str());
  }

  // Runs one or more SQL statements; a failure fails the test.
  void Exec(const std::string& sql) {
    char* error = nullptr;
    const int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &error);
    EXPECT_EQ(rc, SQLITE_OK) << (error != nullptr ? error : "") << "\n" << sql;
    sqlite3_free(error);
  }

  // Closes the connection so the reader sees a complete file.
  const std::string& Finish() {
    Close();
    return path_;
  }

  const std::string& path() const { return path_; }

 private:
  void Close() {
    if (db_ != nullptr) sqlite3_close(db_);
    db_ = nullptr;
  }

  std::string path_;
  sqlite3* db_ = nullptr;
};

// globalTid/globalPid as nsys packs them.
inline int64_t GlobalId(int64_t pid, int64_t tid) {
  return (int64_t{1} << 48) | (pid << 24) | tid;
}

}  // namespace feedprof::nsight::testing

#endif  // FEEDPROF_TESTS_NSIGHT_SCRATCH_SQLITE_FILE_H_
