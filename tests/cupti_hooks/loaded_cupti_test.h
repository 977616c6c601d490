// Test fixture base: the real libcupti loaded and its API table built.
//
// The converter, callback and table tests all read callback names and
// record layouts from the library itself; each starts from this state.
// A subclass that extends SetUp calls LoadedCuptiTest::SetUp() first and
// returns when it failed (HasFatalFailure()).
#ifndef FEEDPROF_TESTS_CUPTI_HOOKS_LOADED_CUPTI_TEST_H_
#define FEEDPROF_TESTS_CUPTI_HOOKS_LOADED_CUPTI_TEST_H_

#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>

#include "cupti_hooks/api_table.h"
#include "cupti_hooks/cupti_loader.h"

namespace feedprof::cupti::test {

class LoadedCuptiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    unsetenv("FEEDPROF_CUPTI_PATH");  // the toolkit's libcupti
    char message[1024];
    ASSERT_EQ(LoadCupti(&api_, message, sizeof message), LoadStatus::kLoaded)
        << message;
    table_ = std::make_unique<ApiTable>();
    table_->Build(api_);
  }
  void TearDown() override { UnloadCupti(&api_); }

  CuptiApi api_;
  std::unique_ptr<ApiTable> table_;
};

}  // namespace feedprof::cupti::test

#endif  // FEEDPROF_TESTS_CUPTI_HOOKS_LOADED_CUPTI_TEST_H_
