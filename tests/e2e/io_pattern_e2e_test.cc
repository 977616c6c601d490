// The /proc/self/io counters recorded in ProcessSample messages against
// what real programs did: io_pattern_target (C++) and io_pattern_workers.py
// (a multiprocessing pool, a torch DataLoader) run under the library, each
// into a fresh session directory, and the read counters between two
// samples of a process's file are compared with the reads the program
// counted itself.
//
// The sampler is a thread of the process: its own reads of /proc files are
// in the same counters. What it reads in a round follows from
// SampleCollector (every file is read with pread until pread returns 0:
// two calls a file):
//   every round   /proc/self/io, /proc/stat, and the stat file of each
//                 thread that ran since the last round (the sampler always
//                 did): at least 6 calls;
//   some rounds   the stat file of an idle thread (every 10 rounds), the
//                 status file of a thread that ran (every 10 rounds), and
//                 statm, meminfo and loadavg (every 10 rounds): at most
//                 4 T + 10 calls with T threads.
// Between two consecutive samples lies exactly one round's worth of these
// reads, so between samples i and j the sampler read between 6 (j - i) and
// (4 T + 10) (j - i) times; in bytes at most (j - i) times the sizes of
// those files (SamplerBytesPerRound). That is the tolerance of every check
// here. SamplerReadsAreCountedAndBounded measures the real figures (printed)
// and checks them against these bounds.
//
// A measured part is picked by time: the programs print CLOCK_MONOTONIC
// timestamps (the trace's clock) around their reads and keep quiet (no
// read at all) for 60 ms on each side, so the last sample before and the
// first sample after the reads hold the program's reads and the sampler's
// only. Storage reads (read_bytes) need a disk: a probe run first skips
// the tests where the temp dir is on tmpfs, where POSIX_FADV_DONTNEED does
// not drop pages or where read_bytes does not count the reads.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "proto/feedprof.pb.h"
#include "tests/e2e/child_process.h"
#include "tests/e2e/e2e_paths.h"
#include "tests/e2e/program_run.h"
#include "tests/e2e/trace_file.h"
#include "tests/testing/json_test_parser.h"

namespace feedprof::e2e {
namespace {

const std::string kTarget = FEEDPROF_BINARY_DIR "/tests/e2e/io_pattern_target";
const std::string kCliPath = FEEDPROF_BINARY_DIR "/tools/feedprof";
const std::string kWorkersScript =
    FEEDPROF_SOURCE_DIR "/tests/e2e/io_pattern_workers.py";

constexpr uint64_t kKiB = 1024;
constexpr uint64_t kMiB = 1024 * kKiB;

// ------------------------------------------------------- process samples --

struct IoSample {
  uint64_t ts_ns = 0;
  uint64_t rchar = 0;
  uint64_t syscr = 0;
  uint64_t read_bytes = 0;
  uint32_t num_threads = 0;
  // The recorder's own read calls and bytes, part of syscr and rchar.
  uint64_t profiler_syscr = 0;
  uint64_t profiler_rchar = 0;
};

struct ProcessIoTrace {
  std::string path;
  uint32_t pid = 0;
  std::string origin;
  std::vector<IoSample> samples;  // in time order
};

// The header and the ProcessSamples of the file at `path`, up to its last
// whole packet.
bool ReadProcessIo(const std::string& path, ProcessIoTrace* out,
                   std::string* error) {
  TraceFile file;
  if (!ReadTraceFile(path, &file, error)) return false;
  *out = ProcessIoTrace();
  out->path = path;
  out->pid = file.header.pid();
  out->origin = file.header.origin();
  for (const ProcessSample& p : file.process_samples) {
    const trace::ProcessSample& c = p.counters;
    out->samples.push_back({p.ts_ns, c.rchar(), c.syscr(), c.read_bytes(),
                            c.num_threads(), c.profiler_syscr(),
                            c.profiler_rchar()});
  }
  std::stable_sort(
      out->samples.begin(), out->samples.end(),
      [](const IoSample& a, const IoSample& b) { return a.ts_ns < b.ts_ns; });
  return true;
}

// pid -> the process's samples, for every file of the session.
std::map<uint32_t, ProcessIoTrace> ReadSessionIo(const std::string& session) {
  std::map<uint32_t, ProcessIoTrace> traces;
  for (const std::string& path : FindTraceFiles(session)) {
    ProcessIoTrace trace;
    std::string error;
    EXPECT_TRUE(ReadProcessIo(path, &trace, &error)) << error;
    EXPECT_EQ(traces.count(trace.pid), 0u) << "two files of pid " << trace.pid;
    traces[trace.pid] = std::move(trace);
  }
  return traces;
}

// ------------------------------------------------------ sampler's reads --

constexpr uint64_t kMinSamplerReadsPerRound = 6;

uint64_t MaxSamplerReadsPerRound(uint64_t threads) { return 4 * threads + 10; }

// The most bytes one round of the sampler reads with `threads` threads:
// the stat and status file of each thread, /proc/self/io, statm, /proc/stat,
// meminfo and loadavg, at their sizes here and now (read in this process;
// /proc/stat grows with the CPU count), plus a quarter for the numbers
// that are wider in another process or later on.
uint64_t SamplerBytesPerRound(uint64_t threads) {
  const auto size = [](const char* path) {
    return static_cast<uint64_t>(ReadWholeFile(path).size());
  };
  const uint64_t per_thread =
      size("/proc/thread-self/stat") + size("/proc/thread-self/status");
  const uint64_t bytes = threads * per_thread + size("/proc/self/io") +
                         size("/proc/self/statm") + size("/proc/stat") +
                         size("/proc/meminfo") + size("/proc/loadavg");
  return bytes + bytes / 4;
}

// The counters' growth between two samples of one process.
struct IoDelta {
  uint64_t syscr = 0;
  uint64_t rchar = 0;
  // syscr and rchar less the recorder's own calls: the program's.
  // Signed: a call of the recorder's other threads in flight while the
  // sampler reads the counters is in the kernel's count and not yet in
  // the recorder's, or the other way round, for one round.
  int64_t program_syscr = 0;
  int64_t program_rchar = 0;
  uint64_t read_bytes = 0;
  uint64_t rounds = 0;   // sampler rounds in between
  uint64_t threads = 0;  // most threads any sample in between saw
  uint64_t from_ns = 0;
  uint64_t to_ns = 0;
};

IoDelta Between(const std::vector<IoSample>& s, size_t i, size_t j) {
  IoDelta d;
  d.syscr = s[j].syscr - s[i].syscr;
  d.rchar = s[j].rchar - s[i].rchar;
  d.read_bytes = s[j].read_bytes - s[i].read_bytes;
  d.program_syscr =
      static_cast<int64_t>(d.syscr) -
      static_cast<int64_t>(s[j].profiler_syscr - s[i].profiler_syscr);
  d.program_rchar =
      static_cast<int64_t>(d.rchar) -
      static_cast<int64_t>(s[j].profiler_rchar - s[i].profiler_rchar);
  d.rounds = j - i;
  for (size_t k = i; k <= j; ++k) {
    d.threads = std::max<uint64_t>(d.threads, s[k].num_threads);
  }
  d.from_ns = s[i].ts_ns;
  d.to_ns = s[j].ts_ns;
  return d;
}

// The delta between the last sample at or before `begin_ns` and the first
// at or after `end_ns`; false when there is no such pair.
bool DeltaAround(const ProcessIoTrace& trace, uint64_t begin_ns,
                 uint64_t end_ns, IoDelta* out) {
  const std::vector<IoSample>& s = trace.samples;
  size_t first = s.size();
  size_t last = s.size();
  for (size_t k = 0; k < s.size(); ++k) {
    if (s[k].ts_ns <= begin_ns) first = k;
    if (s[k].ts_ns >= end_ns && last == s.size()) last = k;
  }
  if (first == s.size() || last == s.size()) return false;
  *out = Between(s, first, last);
  return true;
}

// What a program said it read in a stretch of its run, and the most read
// calls and bytes it made there besides (pipe messages of a worker).
struct ProgramReads {
  std::string what;
  uint64_t calls = 0;
  uint64_t bytes = 0;
  uint64_t other_calls_max = 0;
  uint64_t other_bytes_max = 0;
};

// The recorder's calls that may be in flight on its other threads (the
// writer's write and wake-up, a log line) when the sampler reads the
// counters: counted by the kernel and not yet by the recorder, or the
// other way round, at each end of an interval.
constexpr int64_t kInFlightCalls = 2;
constexpr int64_t kInFlightBytes = 64;

// Checks that `d` holds `reads` plus what the sampler read in d.rounds
// rounds, and that the average read size follows; prints the figures.
void ExpectReadCountersMatch(const ProgramReads& reads, const IoDelta& d) {
  SCOPED_TRACE(reads.what);
  const uint64_t syscr_lo = reads.calls + kMinSamplerReadsPerRound * d.rounds;
  const uint64_t syscr_hi = reads.calls + reads.other_calls_max +
                            MaxSamplerReadsPerRound(d.threads) * d.rounds;
  EXPECT_GE(d.syscr, syscr_lo);
  EXPECT_LE(d.syscr, syscr_hi);
  const uint64_t rchar_hi = reads.bytes + reads.other_bytes_max +
                            SamplerBytesPerRound(d.threads) * d.rounds;
  EXPECT_GE(d.rchar, reads.bytes);
  EXPECT_LE(d.rchar, rchar_hi);
  // The average read size seen in the counters, between the program's own
  // with the most sampler reads added and with the fewest.
  ASSERT_GT(d.syscr, 0u);
  const double average = static_cast<double>(d.rchar) / d.syscr;
  if (reads.calls != 0) {
    EXPECT_GE(average, static_cast<double>(reads.bytes) / syscr_hi);
    EXPECT_LE(average, static_cast<double>(rchar_hi) / reads.calls);
  }
  // The recorder counts its own calls: what is left is the program's, to
  // the call but for those in flight at the interval's ends.
  const auto calls = static_cast<int64_t>(reads.calls);
  const auto bytes = static_cast<int64_t>(reads.bytes);
  EXPECT_GE(d.program_syscr, calls - kInFlightCalls);
  EXPECT_LE(
      d.program_syscr,
      calls + static_cast<int64_t>(reads.other_calls_max) + kInFlightCalls);
  EXPECT_GE(d.program_rchar, bytes - kInFlightBytes);
  EXPECT_LE(
      d.program_rchar,
      bytes + static_cast<int64_t>(reads.other_bytes_max) + kInFlightBytes);
  std::printf(
      "%s: %llu reads of %llu bytes by the program; recorded over %llu "
      "sampler rounds (%.1f ms, %llu threads): syscr +%llu (allowed "
      "%llu..%llu), rchar +%llu (allowed %llu..%llu), average read %.0f B "
      "(program's own %.0f B), read_bytes +%llu; less the recorder's own "
      "calls: %lld reads, %lld bytes\n",
      reads.what.c_str(), static_cast<unsigned long long>(reads.calls),
      static_cast<unsigned long long>(reads.bytes),
      static_cast<unsigned long long>(d.rounds), (d.to_ns - d.from_ns) / 1e6,
      static_cast<unsigned long long>(d.threads),
      static_cast<unsigned long long>(d.syscr),
      static_cast<unsigned long long>(syscr_lo),
      static_cast<unsigned long long>(syscr_hi),
      static_cast<unsigned long long>(d.rchar),
      static_cast<unsigned long long>(reads.bytes),
      static_cast<unsigned long long>(rchar_hi), average,
      reads.calls == 0 ? 0.0 : static_cast<double>(reads.bytes) / reads.calls,
      static_cast<unsigned long long>(d.read_bytes),
      static_cast<long long>(d.program_syscr),
      static_cast<long long>(d.program_rchar));
}

// Reads of dropped pages reach storage: at least 80 % of the bytes (a page
// that came back into the cache some other way, such as the kernel's
// readahead of a neighbour, is not read twice), and at most the bytes read
// plus a tenth and 64 KiB: nothing past a file's end is read ahead, and the
// directory and inode blocks, just written, are still cached.
void ExpectStorageReads(const std::string& what, uint64_t read_bytes,
                        uint64_t bytes) {
  SCOPED_TRACE(what);
  EXPECT_GE(read_bytes, bytes * 8 / 10);
  EXPECT_LE(read_bytes, bytes + bytes / 10 + 64 * kKiB);
}

// ------------------------------------------------------------- analysis --

// The `io` section of `feedprof analyze --format json` on `session`, and the
// role `role` in it (nullptr when absent).
struct AnalyzedIo {
  testing::JsonValue report;
  const testing::JsonValue* io = nullptr;
  const testing::JsonValue* Role(const std::string& role) const {
    const testing::JsonValue* roles = io ? io->Find("roles") : nullptr;
    if (roles == nullptr) return nullptr;
    for (const testing::JsonValue& r : roles->items) {
      if (r.Str("role") == role) return &r;
    }
    return nullptr;
  }
};

AnalyzedIo AnalyzeIo(const std::string& session) {
  AnalyzedIo out;
  std::string json;
  FILE* pipe =
      popen((kCliPath + " analyze --format json '" + session + "' 2>/dev/null")
                .c_str(),
            "r");
  if (pipe != nullptr) {
    char chunk[4096];
    while (size_t n = fread(chunk, 1, sizeof chunk, pipe))
      json.append(chunk, n);
    pclose(pipe);
  }
  std::optional<testing::JsonValue> parsed = testing::ParseJson(json);
  EXPECT_TRUE(parsed.has_value()) << json.substr(0, 2000);
  if (!parsed) return out;
  out.report = std::move(*parsed);
  out.io = out.report.Find("io");
  EXPECT_NE(out.io, nullptr);
  return out;
}

// ------------------------------------------------------------- programs --

// "KEY VALUE" lines; the values of "worker" lines go to `workers`.
std::map<std::string, uint64_t> ParseKeyValues(
    const std::string& text, std::vector<uint32_t>* workers = nullptr) {
  std::map<std::string, uint64_t> values;
  std::istringstream in(text);
  std::string key;
  uint64_t value = 0;
  while (in >> key >> value) {
    if (key == "worker" && workers != nullptr) {
      workers->push_back(static_cast<uint32_t>(value));
    } else {
      values[key] = value;
    }
  }
  return values;
}

uint64_t Value(const std::map<std::string, uint64_t>& values,
               const std::string& key) {
  const auto it = values.find(key);
  EXPECT_NE(it, values.end()) << "the program printed no " << key;
  return it == values.end() ? 0 : it->second;
}

class IoPatternE2eTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = MakeTempDir("io_pattern");
    ASSERT_FALSE(dir_.empty());
    std::filesystem::create_directories(data_dir());
  }
  void TearDown() override {
    std::error_code ec;
    if (!HasFailure()) std::filesystem::remove_all(dir_, ec);
  }

  std::string session() const { return dir_ + "/session"; }
  std::string data_dir() const { return dir_ + "/data"; }

  // Whether reads of dropped pages show in read_bytes where the test keeps
  // its files; the reason when not. Runs the probe without the library.
  bool StorageReadsVisible(std::string* why) {
    ProgramRun run;
    RunToEnd({kTarget, "probe", data_dir()}, EnvWithoutLibrary(),
             dir_ + "/probe", &run);
    if (!run.status.exited || run.status.code != 0) {
      *why = "the storage probe failed: " + run.err;
      return false;
    }
    const auto v = ParseKeyValues(run.out);
    char fs[32];
    std::snprintf(fs, sizeof fs, "0x%llx",
                  static_cast<unsigned long long>(Value(v, "fs_type")));
    const std::string where = data_dir() + " (file system type " + fs + ")";
    constexpr uint64_t kTmpfsMagic = 0x01021994;
    if (Value(v, "fs_type") == kTmpfsMagic) {
      *why = where +
             " is tmpfs: no read reaches storage. Set TMPDIR to a "
             "directory on a disk to run these tests.";
      return false;
    }
    if (Value(v, "resident_pages") != 0) {
      *why = "posix_fadvise(POSIX_FADV_DONTNEED) left " +
             std::to_string(Value(v, "resident_pages")) +
             " pages of a written-back file cached on " + where +
             ": its reads would not reach storage";
      return false;
    }
    if (Value(v, "storage_bytes") < Value(v, "file_bytes") * 8 / 10) {
      *why = "reading " + std::to_string(Value(v, "file_bytes")) +
             " bytes of dropped pages on " + where + " grew read_bytes in " +
             "/proc/self/io by " + std::to_string(Value(v, "storage_bytes")) +
             " only: this kernel or file system does not account storage "
             "reads to the process";
      return false;
    }
    return true;
  }

  // Runs the target under the library; its output's values, and its trace.
  void RunTarget(const std::vector<std::string>& args,
                 std::map<std::string, uint64_t>* values,
                 ProcessIoTrace* trace) {
    std::vector<std::string> argv = {kTarget};
    argv.insert(argv.end(), args.begin(), args.end());
    ProgramRun run;
    RunToEnd(argv, RecordingEnv(session()), dir_ + "/target", &run);
    ASSERT_TRUE(run.status.exited);
    ASSERT_EQ(run.status.code, 0) << run.err;
    *values = ParseKeyValues(run.out);
    std::map<uint32_t, ProcessIoTrace> traces = ReadSessionIo(session());
    ASSERT_EQ(traces.count(static_cast<uint32_t>(run.pid)), 1u)
        << "no trace file of the target in " << session();
    *trace = std::move(traces[static_cast<uint32_t>(run.pid)]);
    ASSERT_GE(trace->samples.size(), 2u) << trace->path;
  }

  // The delta around the target's phase `name`, whose quiet margins must
  // hold the samples picked.
  static IoDelta PhaseDelta(const std::map<std::string, uint64_t>& values,
                            const ProcessIoTrace& trace,
                            const std::string& name) {
    IoDelta d;
    EXPECT_TRUE(DeltaAround(trace, Value(values, name + "_begin_ns"),
                            Value(values, name + "_end_ns"), &d))
        << "no samples around the phase " << name << " in " << trace.path;
    // Outside the 60 ms of quiet the program did other things: a sampler
    // that late would have measured them too.
    EXPECT_GE(d.from_ns, Value(values, name + "_quiet_from_ns"))
        << "the sampler skipped the quiet before the phase " << name;
    EXPECT_LE(d.to_ns, Value(values, name + "_quiet_until_ns"))
        << "the sampler skipped the quiet after the phase " << name;
    return d;
  }

  std::string dir_;
};

// The sampler's own reads are in the process's counters: with a program
// that reads nothing, syscr and rchar still grow, by 6 to 4 T + 10 reads a
// round. The figures per round and per second are printed.
TEST_F(IoPatternE2eTest, SamplerReadsAreCountedAndBounded) {
  std::map<std::string, uint64_t> values;
  ProcessIoTrace trace;
  ASSERT_NO_FATAL_FAILURE(RunTarget({"sampler", "500"}, &values, &trace));
  for (const std::string phase : {"idle", "spin"}) {
    SCOPED_TRACE(phase);
    const IoDelta d = PhaseDelta(values, trace, phase);
    ASSERT_GE(d.rounds, 40u);  // 500 ms at 100 Hz, some rounds late at most
    // Round by round, inside the bounds.
    uint64_t min_round = UINT64_MAX;
    uint64_t max_round = 0;
    uint64_t max_bytes = 0;
    for (size_t i = 0; i + 1 < trace.samples.size(); ++i) {
      if (trace.samples[i].ts_ns < d.from_ns ||
          trace.samples[i + 1].ts_ns > d.to_ns) {
        continue;
      }
      const IoDelta r = Between(trace.samples, i, i + 1);
      EXPECT_GE(r.syscr, kMinSamplerReadsPerRound);
      EXPECT_LE(r.syscr, MaxSamplerReadsPerRound(r.threads));
      EXPECT_LE(r.rchar, SamplerBytesPerRound(r.threads));
      EXPECT_EQ(r.read_bytes, 0u);  // /proc is no storage
      // Every read in the round was the recorder's, and it counted them.
      EXPECT_LE(std::abs(r.program_syscr), kInFlightCalls);
      EXPECT_LE(std::abs(r.program_rchar), kInFlightBytes);
      min_round = std::min(min_round, r.syscr);
      max_round = std::max(max_round, r.syscr);
      max_bytes = std::max(max_bytes, r.rchar);
    }
    ExpectReadCountersMatch({"sampler only (" + phase + ")", 0, 0, 0, 0}, d);
    const double seconds = (d.to_ns - d.from_ns) / 1e9;
    std::printf(
        "sampler alone, main thread %s, %llu threads: %.1f read calls and "
        "%.0f bytes a round (%llu..%llu calls, up to %llu bytes), %.0f read "
        "calls/s and %.0f bytes/s over %llu rounds\n",
        phase == "idle" ? "sleeping" : "busy",
        static_cast<unsigned long long>(d.threads),
        static_cast<double>(d.syscr) / d.rounds,
        static_cast<double>(d.rchar) / d.rounds,
        static_cast<unsigned long long>(min_round),
        static_cast<unsigned long long>(max_round),
        static_cast<unsigned long long>(max_bytes), d.syscr / seconds,
        d.rchar / seconds, static_cast<unsigned long long>(d.rounds));
  }
}

// 400 files of 4 KiB, pages dropped, each read whole with one read():
// syscr grows by the 400 reads and the sampler's, the average read is
// about 4 KiB, and (nearly) every byte came from storage.
TEST_F(IoPatternE2eTest, SmallUncachedFilesAreReadFromStorage) {
  std::string why;
  if (!StorageReadsVisible(&why)) GTEST_SKIP() << why;
  constexpr uint64_t kFiles = 400;
  constexpr uint64_t kSize = 4 * kKiB;
  std::map<std::string, uint64_t> values;
  ProcessIoTrace trace;
  ASSERT_NO_FATAL_FAILURE(
      RunTarget({"small-uncached", data_dir(), std::to_string(kFiles),
                 std::to_string(kSize)},
                &values, &trace));
  EXPECT_EQ(Value(values, "read_resident_pages"), 0u);
  EXPECT_EQ(Value(values, "read_read_calls"), kFiles);
  EXPECT_EQ(Value(values, "read_read_bytes"), kFiles * kSize);
  const IoDelta d = PhaseDelta(values, trace, "read");
  ExpectReadCountersMatch({"small-uncached", kFiles, kFiles * kSize}, d);
  ExpectStorageReads("small-uncached", d.read_bytes, kFiles * kSize);

  // What `analyze` makes of the whole run: the program's 400 reads of
  // 4 KiB (the recorder's ~800 a second taken out), from storage.
  const AnalyzedIo a = AnalyzeIo(session());
  ASSERT_NE(a.io, nullptr);
  EXPECT_TRUE(a.io->Find("available")->boolean);
  const testing::JsonValue* main = a.Role("main");
  ASSERT_NE(main, nullptr);
  EXPECT_EQ(main->Uint("processes"), 1u);
  EXPECT_GE(main->Uint("reads"), kFiles);
  EXPECT_LE(main->Uint("reads"), kFiles + 8);
  EXPECT_NEAR(main->Double("mean_read_bytes"), kSize, kSize * 0.05);
  EXPECT_GE(main->Double("storage_share"), 0.8);
  EXPECT_EQ(a.io->Str("pattern"), "small_reads");
  EXPECT_EQ(a.io->Str("reading_role"), "main");
}

// One 64 MiB file, pages dropped, read with 1 MiB reads: 64 reads of
// 1 MiB and the sampler's, 64 MiB from storage.
TEST_F(IoPatternE2eTest, LargeSequentialFileIsReadFromStorage) {
  std::string why;
  if (!StorageReadsVisible(&why)) GTEST_SKIP() << why;
  constexpr uint64_t kSize = 64 * kMiB;
  constexpr uint64_t kChunk = kMiB;
  std::map<std::string, uint64_t> values;
  ProcessIoTrace trace;
  ASSERT_NO_FATAL_FAILURE(
      RunTarget({"large-sequential", data_dir() + "/large.bin",
                 std::to_string(kSize), std::to_string(kChunk)},
                &values, &trace));
  EXPECT_EQ(Value(values, "read_resident_pages"), 0u);
  EXPECT_EQ(Value(values, "read_read_calls"), kSize / kChunk);
  EXPECT_EQ(Value(values, "read_read_bytes"), kSize);
  const IoDelta d = PhaseDelta(values, trace, "read");
  ExpectReadCountersMatch({"large-sequential", kSize / kChunk, kSize}, d);
  ExpectStorageReads("large-sequential", d.read_bytes, kSize);

  const AnalyzedIo a = AnalyzeIo(session());
  const testing::JsonValue* main = a.Role("main");
  ASSERT_NE(main, nullptr);
  EXPECT_GE(main->Uint("reads"), kSize / kChunk);
  EXPECT_LE(main->Uint("reads"), kSize / kChunk + 8);
  EXPECT_NEAR(main->Double("mean_read_bytes"), kChunk, kChunk * 0.15);
  EXPECT_EQ(a.io->Str("pattern"), "large_reads");
  // The disk under the data was sampled and read about the file.
  const testing::JsonValue* disks = a.io->Find("disks");
  ASSERT_NE(disks, nullptr);
  uint64_t disk_bytes = 0;
  for (const testing::JsonValue& disk : disks->items) {
    disk_bytes += disk.Uint("read_bytes");
    EXPECT_GT(disk.Double("utilization"), 0.0);
  }
  EXPECT_GE(disk_bytes, kSize * 8 / 10);
}

// A 32 MiB file read cold once, then 5 times from the page cache: the cold
// read comes from storage, the warm ones do not (read_bytes stays under
// 1 % of rchar: nothing else reads storage meanwhile).
TEST_F(IoPatternE2eTest, CachedRereadsDoNotReachStorage) {
  std::string why;
  if (!StorageReadsVisible(&why)) GTEST_SKIP() << why;
  constexpr uint64_t kSize = 32 * kMiB;
  constexpr uint64_t kChunk = kMiB;
  constexpr uint64_t kPasses = 5;
  std::map<std::string, uint64_t> values;
  ProcessIoTrace trace;
  ASSERT_NO_FATAL_FAILURE(
      RunTarget({"cached", data_dir() + "/cached.bin", std::to_string(kSize),
                 std::to_string(kChunk), std::to_string(kPasses)},
                &values, &trace));
  EXPECT_EQ(Value(values, "cold_resident_pages"), 0u);
  const IoDelta cold = PhaseDelta(values, trace, "cold");
  ExpectReadCountersMatch({"cached, cold read", kSize / kChunk, kSize}, cold);
  ExpectStorageReads("cached, cold read", cold.read_bytes, kSize);
  const IoDelta warm = PhaseDelta(values, trace, "warm");
  ExpectReadCountersMatch(
      {"cached, warm reads", kPasses * kSize / kChunk, kPasses * kSize}, warm);
  // A readahead the cold pass left in flight may land in the warm one (a
  // window of a few MiB): at most a twentieth of the bytes.
  EXPECT_LE(warm.read_bytes, warm.rchar / 20);
}

// ---------------------------------------------------------- Python workers --

// The Python that runs the workers: Debian's (which has torch where it is
// installed), else the first python3 on the PATH.
std::string Python() {
  for (const char* candidate : {"/usr/bin/python3", "/usr/local/bin/python3"}) {
    if (access(candidate, X_OK) == 0) return candidate;
  }
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path != nullptr ? path : "");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    const std::string candidate = dir + "/python3";
    if (!dir.empty() && access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

// A task or index message through a worker's pipe: a read of its 4-byte
// length and one of its body (multiprocessing.connection); a batch of 8
// indices pickles to well under 1 KiB (a pool task of file names is bigger:
// its test says how much).
constexpr uint64_t kReadsPerMessage = 2;
constexpr uint64_t kBytesPerMessage = kKiB;

// Each worker's file against the reads the worker counted; the sums over
// the workers against the total. `whole_file`: the delta between the
// file's first and last samples (a pool worker, quiet at both ends), else
// the samples around the worker's first and last read.
void ExpectWorkerReads(const std::string& what, const std::string& out,
                       const std::map<uint32_t, ProcessIoTrace>& traces,
                       uint32_t parent, bool whole_file,
                       uint64_t expected_total_calls,
                       uint64_t bytes_per_message = kBytesPerMessage) {
  std::vector<uint32_t> workers;
  const auto v = ParseKeyValues(out, &workers);
  ASSERT_EQ(workers.size(), 2u) << out;
  ProgramReads total{what + ", all workers"};
  IoDelta sum;
  for (const uint32_t pid : workers) {
    const std::string key = std::to_string(pid) + "_";
    SCOPED_TRACE(what + ", worker " + std::to_string(pid));
    const auto it = traces.find(pid);
    ASSERT_NE(it, traces.end()) << "no file of worker " << pid;
    const ProcessIoTrace& trace = it->second;
    EXPECT_EQ(trace.origin, "fork");
    EXPECT_NE(pid, parent);
    ASSERT_GE(trace.samples.size(), 2u) << trace.path;
    const uint64_t first_read = Value(v, key + "first_read_ns");
    const uint64_t last_read = Value(v, key + "last_read_ns");
    IoDelta d;
    if (whole_file) {
      // The worker's reads lie inside its file.
      ASSERT_LE(trace.samples.front().ts_ns, first_read) << trace.path;
      ASSERT_GE(trace.samples.back().ts_ns, last_read) << trace.path;
      d = Between(trace.samples, 0, trace.samples.size() - 1);
    } else {
      ASSERT_TRUE(DeltaAround(trace, first_read, last_read, &d)) << trace.path;
      // Outside its quiet the worker read other things (torch's set-up).
      EXPECT_GE(d.from_ns, Value(v, key + "quiet_from_ns"))
          << "the sampler skipped the quiet before the worker's reads";
      EXPECT_LE(d.to_ns, Value(v, key + "quiet_until_ns"))
          << "the sampler skipped the quiet after the worker's reads";
    }
    const uint64_t messages = Value(v, key + "messages");
    const ProgramReads reads{
        what + ", worker " + std::to_string(pid), Value(v, key + "read_calls"),
        Value(v, key + "read_bytes"), kReadsPerMessage * messages,
        bytes_per_message * messages};
    EXPECT_GT(reads.calls, 0u);
    ExpectReadCountersMatch(reads, d);
    ExpectStorageReads(reads.what, d.read_bytes, reads.bytes);
    total.calls += reads.calls;
    total.bytes += reads.bytes;
    total.other_calls_max += reads.other_calls_max;
    total.other_bytes_max += reads.other_bytes_max;
    sum.syscr += d.syscr;
    sum.rchar += d.rchar;
    sum.program_syscr += d.program_syscr;
    sum.program_rchar += d.program_rchar;
    sum.read_bytes += d.read_bytes;
    sum.rounds += d.rounds;
    sum.threads = std::max(sum.threads, d.threads);
    sum.to_ns += d.to_ns - d.from_ns;
  }
  EXPECT_EQ(total.calls, expected_total_calls);
  ExpectReadCountersMatch(total, sum);
  ExpectStorageReads(total.what, sum.read_bytes, total.bytes);
}

// A pool of 2 forked workers, each reading 200 files of 4 KiB (dropped):
// each worker's file shows its own reads, from its first sample to its
// last, and the two together the 400.
// The most reads a pool worker makes besides its files over its life: its
// task and result messages and the pool's handshake.
constexpr uint64_t kPoolSetupReads = 40;

TEST_F(IoPatternE2eTest, PoolWorkersEachRecordTheirOwnReads) {
  const std::string python = Python();
  if (python.empty()) GTEST_SKIP() << "python3 not found";
  std::string why;
  if (!StorageReadsVisible(&why)) GTEST_SKIP() << why;
  constexpr uint64_t kFilesPerWorker = 200;
  ProgramRun run;
  RunToEnd({python, kWorkersScript, "pool", data_dir(),
            std::to_string(kFilesPerWorker), "4096"},
           RecordingEnv(session()), dir_ + "/pool", &run);
  ASSERT_TRUE(run.status.exited);
  ASSERT_EQ(run.status.code, 0) << run.err;
  const auto traces = ReadSessionIo(session());
  EXPECT_EQ(traces.size(), 3u);  // the parent and its 2 workers
  // A task is the list of a worker's file names, pickled: each name and a
  // few bytes of framing.
  const uint64_t task_bytes =
      kFilesPerWorker *
          (data_dir().size() + std::string("/pool-999.bin").size() + 8) +
      kKiB;
  ExpectWorkerReads("pool", run.out, traces, static_cast<uint32_t>(run.pid),
                    /*whole_file=*/true, 2 * kFilesPerWorker, task_bytes);

  // `analyze` puts the two workers' reads under the workers' role: the
  // 400 reads of 4 KiB and their pipe messages, from storage.
  const AnalyzedIo a = AnalyzeIo(session());
  const testing::JsonValue* workers = a.Role("workers");
  ASSERT_NE(workers, nullptr);
  EXPECT_EQ(workers->Uint("processes"), 2u);
  EXPECT_GE(workers->Uint("reads"), 2 * kFilesPerWorker);
  EXPECT_LE(workers->Uint("reads"), 2 * kFilesPerWorker + 2 * kPoolSetupReads);
  EXPECT_GE(workers->Double("storage_share"), 0.5);
  EXPECT_EQ(a.io->Str("reading_role"), "workers");
}

// A torch DataLoader with 2 forked workers over 256 files of 4 KiB, one file
// an item: each worker's reads are in its own file.
TEST_F(IoPatternE2eTest, DataLoaderWorkersEachRecordTheirOwnReads) {
  const std::string python = Python();
  if (python.empty()) GTEST_SKIP() << "python3 not found";
  const std::string probe = python + " -c 'import torch' >/dev/null 2>&1";
  if (std::system(probe.c_str()) != 0) {
    GTEST_SKIP() << "torch is not installed for " << python
                 << ": the DataLoader test needs it";
  }
  std::string why;
  if (!StorageReadsVisible(&why)) GTEST_SKIP() << why;
  constexpr uint64_t kFiles = 256;
  ProgramRun run;
  RunToEnd({python, kWorkersScript, "dataloader", data_dir(),
            std::to_string(kFiles), "4096"},
           RecordingEnv(session()), dir_ + "/dataloader", &run);
  ASSERT_TRUE(run.status.exited);
  ASSERT_EQ(run.status.code, 0) << run.err;
  const auto traces = ReadSessionIo(session());
  ExpectWorkerReads("DataLoader", run.out, traces,
                    static_cast<uint32_t>(run.pid), /*whole_file=*/false,
                    kFiles);
}

}  // namespace
}  // namespace feedprof::e2e
