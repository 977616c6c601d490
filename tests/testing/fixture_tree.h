// A throw-away directory tree for procfs/sysfs fixtures.
//
// Tests of the host sampler and platform snapshot write the files a kernel
// would show (with the odd cases real machines have) under a fresh
// temporary root, point the code at that root, and remove it afterwards.
#ifndef FEEDPROF_TESTS_TESTING_FIXTURE_TREE_H_
#define FEEDPROF_TESTS_TESTING_FIXTURE_TREE_H_

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "gtest/gtest.h"

namespace feedprof::testing {

class FixtureTree {
 public:
  FixtureTree() {
    std::string tmpl =
        (std::filesystem::temp_directory_path() / "feedprof-host-XXXXXX")
            .string();
    char* made = mkdtemp(tmpl.data());
    EXPECT_NE(made, nullptr) << "cannot create a temporary directory";
    root_ = tmpl;
  }
  ~FixtureTree() {
    std::error_code ec;
    std::filesystem::remove_all(root_, ec);
  }
  FixtureTree(const FixtureTree&) = delete;
  FixtureTree& operator=(const FixtureTree&) = delete;

  const std::string& root() const { return root_; }

  // Writes `text` to root/relative, creating directories.
  void Write(const std::string& relative, const std::string& text) const {
    const std::filesystem::path path = std::filesystem::path(root_) / relative;
    std::filesystem::create_directories(path.parent_path());
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
    EXPECT_TRUE(out.good()) << "cannot write fixture " << path;
  }

  void MakeDir(const std::string& relative) const {
    std::filesystem::create_directories(std::filesystem::path(root_) /
                                        relative);
  }

 private:
  std::string root_;
};

}  // namespace feedprof::testing

#endif  // FEEDPROF_TESTS_TESTING_FIXTURE_TREE_H_
