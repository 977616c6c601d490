// FEEDPROF_* parsing: defaults, good values, and one warning plus the
// default for each bad value.
#include "preload/config.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace feedprof::preload {
namespace {

using Env = std::map<std::string, std::string>;

const char* Lookup(void* context, const char* name) {
  auto* env = static_cast<Env*>(context);
  auto it = env->find(name);
  return it == env->end() ? nullptr : it->second.c_str();
}

Config Parse(Env env) {
  Config c;
  ParseConfig(Lookup, &env, &c);
  return c;
}

TEST(ConfigTest, DefaultsWhenNothingIsSet) {
  const Config c = Parse({});
  EXPECT_FALSE(c.disabled);
  EXPECT_STREQ(c.output_dir, "");
  EXPECT_STREQ(c.session_dir, "");
  EXPECT_EQ(c.sampling_hz, 100u);
  EXPECT_EQ(c.sampling_interval_ns(), 10000000u);
  EXPECT_EQ(c.buffer_mb, 32u);
  EXPECT_EQ(c.flush_interval_ms, 1000u);
  EXPECT_FALSE(c.flush_interval_set);  // forked children may shorten it
  EXPECT_EQ(c.log_level, LogLevel::kInfo);
  EXPECT_EQ(c.warnings, 0);
}

TEST(ConfigTest, GoodValuesAreTaken) {
  const Config c = Parse({{"FEEDPROF_OUTPUT_DIR", "/tmp/run1"},
                          {"FEEDPROF_SESSION_DIR", "/tmp/run0"},
                          {"FEEDPROF_DISABLE", "true"},
                          {"FEEDPROF_SAMPLING_HZ", "10000"},
                          {"FEEDPROF_BUFFER_MB", "4"},
                          {"FEEDPROF_FLUSH_INTERVAL_MS", "250"},
                          {"FEEDPROF_LOG_LEVEL", "DEBUG"}});
  EXPECT_TRUE(c.disabled);
  EXPECT_STREQ(c.output_dir, "/tmp/run1");
  EXPECT_STREQ(c.session_dir, "/tmp/run0");
  EXPECT_EQ(c.sampling_hz, 10000u);
  EXPECT_EQ(c.sampling_interval_ns(), 100000u);
  EXPECT_EQ(c.buffer_mb, 4u);
  EXPECT_EQ(c.flush_interval_ms, 250u);
  EXPECT_TRUE(c.flush_interval_set);
  // An invalid value keeps the default, which children may still shorten.
  EXPECT_FALSE(
      Parse({{"FEEDPROF_FLUSH_INTERVAL_MS", "soon"}}).flush_interval_set);
  EXPECT_EQ(c.log_level, LogLevel::kDebug);
  EXPECT_EQ(c.warnings, 0);
  EXPECT_TRUE(Parse({{"FEEDPROF_DISABLE", "1"}}).disabled);
  EXPECT_FALSE(Parse({{"FEEDPROF_DISABLE", "0"}}).disabled);
  EXPECT_FALSE(Parse({{"FEEDPROF_DISABLE", "false"}}).disabled);
  EXPECT_EQ(Parse({{"FEEDPROF_LOG_LEVEL", "quiet"}}).log_level,
            LogLevel::kQuiet);
}

TEST(ConfigTest, EachBadValueWarnsOnceAndKeepsTheDefault) {
  ::testing::internal::CaptureStderr();
  const Config c = Parse({{"FEEDPROF_SAMPLING_HZ", "0"},
                          {"FEEDPROF_BUFFER_MB", "lots"},
                          {"FEEDPROF_FLUSH_INTERVAL_MS", "-5"},
                          {"FEEDPROF_LOG_LEVEL", "verbose"},
                          {"FEEDPROF_DISABLE", "maybe"}});
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(c.warnings, 5);
  EXPECT_EQ(c.sampling_hz, 100u);
  EXPECT_EQ(c.buffer_mb, 32u);
  EXPECT_EQ(c.flush_interval_ms, 1000u);
  EXPECT_EQ(c.log_level, LogLevel::kInfo);
  EXPECT_FALSE(c.disabled);
  size_t lines = 0;
  for (size_t pos = 0; (pos = err.find("feedprof: ", pos)) != std::string::npos;
       ++pos) {
    ++lines;
  }
  EXPECT_EQ(lines, 5u) << err;
  EXPECT_NE(err.find("FEEDPROF_SAMPLING_HZ=\"0\""), std::string::npos) << err;
  EXPECT_NE(err.find("1..10000"), std::string::npos) << err;
}

TEST(ConfigTest, OutOfRangeNumbersAreRejected) {
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(Parse({{"FEEDPROF_SAMPLING_HZ", "10001"}}).sampling_hz, 100u);
  EXPECT_EQ(
      Parse({{"FEEDPROF_SAMPLING_HZ", "99999999999999999999999"}}).sampling_hz,
      100u);
  EXPECT_EQ(Parse({{"FEEDPROF_SAMPLING_HZ", "12abc"}}).sampling_hz, 100u);
  EXPECT_EQ(Parse({{"FEEDPROF_SAMPLING_HZ", ""}}).sampling_hz, 100u);
  EXPECT_EQ(Parse({{"FEEDPROF_BUFFER_MB", "0"}}).buffer_mb, 32u);
  ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(Parse({{"FEEDPROF_SAMPLING_HZ", "1"}}).sampling_hz, 1u);
}

TEST(ConfigTest, PythonStacksTakeEveryNthHostRound) {
  Config c = Parse({});
  EXPECT_EQ(c.python_stacks_hz, 100u);
  EXPECT_EQ(c.python_stack_every_rounds(), 1u);  // 100 Hz of 100 Hz
  c = Parse(
      {{"FEEDPROF_SAMPLING_HZ", "1000"}, {"FEEDPROF_PYTHON_STACKS_HZ", "100"}});
  EXPECT_EQ(c.python_stack_every_rounds(), 10u);
  c = Parse(
      {{"FEEDPROF_SAMPLING_HZ", "100"}, {"FEEDPROF_PYTHON_STACKS_HZ", "1000"}});
  EXPECT_EQ(c.python_stack_every_rounds(), 1u);  // at most every round
  c = Parse(
      {{"FEEDPROF_SAMPLING_HZ", "100"}, {"FEEDPROF_PYTHON_STACKS_HZ", "30"}});
  EXPECT_EQ(c.python_stack_every_rounds(), 3u);  // rounded: ~33 Hz
  c = Parse({{"FEEDPROF_PYTHON_STACKS_HZ", "0"}});
  EXPECT_EQ(c.python_stack_every_rounds(), 0u);  // off
  ::testing::internal::CaptureStderr();
  c = Parse({{"FEEDPROF_PYTHON_STACKS_HZ", "fast"}});
  const std::string warning = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(c.python_stacks_hz, 100u);
  EXPECT_NE(warning.find("FEEDPROF_PYTHON_STACKS_HZ"), std::string::npos)
      << warning;
}

}  // namespace
}  // namespace feedprof::preload
