// make_big_traces: writes the inputs of the trace-size benchmark.
//
// Users bring Kineto traces of gigabytes; the shared real traces are a few
// MB. This program makes big inputs from the real ones by repetition with
// shifted times and ids (kineto_repeater.h, nsight_repeater.h,
// feedprof_trace_repeater.h), into a directory the user names, at the sizes
// asked for. Nothing it writes belongs in the repository. A file that is
// already there is kept (--force writes it again), so the benchmark script
// can call it before every run.
//
//   make_big_traces --out DIR [--sizes 100M,1G,4G]
//       [--formats kineto,kineto-gz,nsight,feedprof] [--session N]
//       [--ranks N] [--traces DIR] [--force]
//
// --session N also writes, per size, a session directory of N feedprof
// files of that size each (DIR/session<N>-<size>/p<k>.fpt): N processes of
// one job, each with its own pid and start time, their events interleaved.
// --ranks N does the same for Kineto: a directory of N rank files
// (DIR/ranks<N>-<size>/rank<k>.json), each its rank of an N-rank run.
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_split.h"
#include "bench/bigtrace/feedprof_trace_repeater.h"
#include "bench/bigtrace/gzip_file_writer.h"
#include "bench/bigtrace/kineto_repeater.h"
#include "bench/bigtrace/nsight_repeater.h"

namespace feedprof::bench {
namespace {

// The ResNet DDP trace (Kineto, V100): the mix of a real training step.
constexpr std::string_view kKinetoSource =
    "hta_ns_resolution_trace/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz";
// A 2-GPU training job exported by a current nsys.
constexpr std::string_view kNsightSource = "nsys_ai/mfu_2gpu_before.sqlite";

constexpr std::string_view kUsage =
    "usage: make_big_traces --out DIR [--sizes 100M,1G,4G]\n"
    "           [--formats kineto,kineto-gz,nsight,feedprof] [--session N]\n"
    "           [--ranks N] [--traces DIR] [--force]\n"
    "Writes DIR/<format>-<size>.{json,json.gz,sqlite,fpt}, made from the "
    "shared\nreal traces in --traces (default: " FEEDPROF_SHARED_TRACES_DIR
    ")\nby repetition with shifted times and ids. Sizes are decimal "
    "(100M = 10^8 bytes);\nthe .json.gz holds the same JSON as the .json of "
    "its size.\n"
    "--session N also writes DIR/session<N>-<size>/p1.fpt .. pN.fpt: N\n"
    "processes of one session, each file of that size, with their own pids\n"
    "and start times.\n"
    "--ranks N also writes DIR/ranks<N>-<size>/rank0.json .. rank<N-1>.json:\n"
    "the Kineto traces of the N ranks of one run, each file of that size.\n";

struct Options {
  std::string out;
  std::string traces = FEEDPROF_SHARED_TRACES_DIR;
  std::vector<std::string> sizes = {"100M"};
  std::vector<std::string> formats = {"kineto", "kineto-gz", "nsight",
                                      "feedprof"};
  uint32_t session_files = 0;  // --session N; 0: none
  uint32_t rank_files = 0;     // --ranks N; 0: none
  bool force = false;
};

// How far each process of a generated session (or rank of a generated
// run) starts after the one before: not a multiple of anything in the
// source, so that the processes' events interleave instead of lining up.
constexpr int64_t kSessionStaggerNs = 137'000;

bool ParseSize(std::string_view text, uint64_t* bytes) {
  uint64_t scale = 1;
  if (!text.empty()) {
    switch (text.back()) {
      case 'K':
      case 'k':
        scale = 1'000;
        break;
      case 'M':
      case 'm':
        scale = 1'000'000;
        break;
      case 'G':
      case 'g':
        scale = 1'000'000'000;
        break;
      default:
        break;
    }
    if (scale != 1) text.remove_suffix(1);
  }
  uint64_t value = 0;
  const auto [end, error] =
      std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value == 0) {
    return false;
  }
  *bytes = value * scale;
  return true;
}

int Fail(const std::string& message) {
  std::fprintf(stderr, "make_big_traces: %s\n", message.c_str());
  return 1;
}

// Writes `path` through `make` (into a .partial file renamed at the end),
// unless it exists and --force was not given.
int Make(const Options& options, const std::string& path,
         const std::function<absl::StatusOr<RepeatedTrace>(const std::string&)>&
             make) {
  if (!options.force && std::filesystem::exists(path)) {
    std::printf("%s: kept (exists; --force writes it again)\n", path.c_str());
    return 0;
  }
  const std::string partial = path + ".partial";
  const auto start = std::chrono::steady_clock::now();
  absl::StatusOr<RepeatedTrace> made = make(partial);
  if (!made.ok()) {
    std::filesystem::remove(partial);
    return Fail(std::string(made.status().message()));
  }
  std::filesystem::rename(partial, path);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  std::printf("%s: %llu bytes, %llu repetitions, %.1f s\n", path.c_str(),
              static_cast<unsigned long long>(made->bytes),
              static_cast<unsigned long long>(made->repetitions), seconds);
  std::fflush(stdout);
  return 0;
}

// Writes `count` files into `dir`, made first: file k is named `name(k)`
// and written by `make(k, path)` (through Make, so one already there is
// kept).
int MakeFilesIn(const Options& options, const std::string& dir, uint32_t count,
                const std::function<std::string(uint32_t)>& name,
                const std::function<absl::StatusOr<RepeatedTrace>(
                    uint32_t, const std::string&)>& make) {
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) return Fail("cannot create " + dir + ": " + error.message());
  for (uint32_t k = 0; k < count; ++k) {
    if (int rc = Make(options, dir + "/" + name(k),
                      [&](const std::string& out) { return make(k, out); });
        rc != 0) {
      return rc;
    }
  }
  return 0;
}

int Run(const Options& options) {
  std::error_code error;
  std::filesystem::create_directories(options.out, error);
  if (error) {
    return Fail("cannot create " + options.out + ": " + error.message());
  }
  const std::string kineto = options.traces + "/" + std::string(kKinetoSource);
  const std::string nsight = options.traces + "/" + std::string(kNsightSource);
  for (const std::string& source : {kineto, nsight}) {
    if (!std::filesystem::exists(source)) {
      return Fail(source +
                  " is missing: point --traces at the shared real traces "
                  "(../shared/traces next to the source tree)");
    }
  }
  auto wants = [&](std::string_view format) {
    for (const std::string& f : options.formats) {
      if (f == format) return true;
    }
    return false;
  };
  for (const std::string& size : options.sizes) {
    uint64_t target = 0;
    if (!ParseSize(size, &target)) {
      return Fail("--sizes: '" + size +
                  "' is not a size; write 100M, 1G or a byte count");
    }
    const std::string base = options.out + "/";
    const std::string json = base + "kineto-" + size + ".json";
    if (wants("kineto") || wants("kineto-gz")) {
      if (int rc = Make(options, json,
                        [&](const std::string& out) {
                          return WriteRepeatedKinetoTrace(kineto, target, out);
                        });
          rc != 0) {
        return rc;
      }
    }
    if (wants("kineto-gz")) {
      if (int rc = Make(
              options, json + ".gz",
              [&](const std::string& out) -> absl::StatusOr<RepeatedTrace> {
                absl::StatusOr<uint64_t> bytes = GzipFile(json, out);
                if (!bytes.ok()) return bytes.status();
                return RepeatedTrace{*bytes, 0};
              });
          rc != 0) {
        return rc;
      }
      if (!wants("kineto")) std::filesystem::remove(json);
    }
    if (wants("nsight")) {
      if (int rc = Make(options, base + "nsight-" + size + ".sqlite",
                        [&](const std::string& out) {
                          return WriteRepeatedNsightExport(nsight, target, out);
                        });
          rc != 0) {
        return rc;
      }
    }
    if (wants("feedprof")) {
      if (int rc = Make(options, base + "feedprof-" + size + ".fpt",
                        [&](const std::string& out) {
                          return WriteRepeatedFeedprofTrace(kineto, target,
                                                            out);
                        });
          rc != 0) {
        return rc;
      }
    }
    if (options.rank_files > 0) {
      if (int rc = MakeFilesIn(
              options,
              base + "ranks" + std::to_string(options.rank_files) + "-" + size,
              options.rank_files,
              [](uint32_t k) { return "rank" + std::to_string(k) + ".json"; },
              [&](uint32_t k, const std::string& out) {
                const KinetoRank rank{
                    static_cast<int32_t>(k),
                    static_cast<int32_t>(options.rank_files),
                    static_cast<int64_t>(k) * kSessionStaggerNs / 1000};
                return WriteRepeatedKinetoTrace(kineto, target, out, &rank);
              });
          rc != 0) {
        return rc;
      }
    }
    if (options.session_files > 0) {
      if (int rc = MakeFilesIn(
              options,
              base + "session" + std::to_string(options.session_files) + "-" +
                  size,
              options.session_files,
              [](uint32_t k) { return "p" + std::to_string(k + 1) + ".fpt"; },
              [&](uint32_t k, const std::string& out) {
                const SessionProcess process{
                    static_cast<int32_t>(k),
                    static_cast<int64_t>(k) * kSessionStaggerNs};
                return WriteRepeatedFeedprofTrace(kineto, target, out, process);
              });
          rc != 0) {
        return rc;
      }
    }
  }
  return 0;
}

}  // namespace
}  // namespace feedprof::bench

int main(int argc, char** argv) {
  using feedprof::bench::Fail;
  feedprof::bench::Options options;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    auto value = [&]() -> const char* {
      return i + 1 < argc ? argv[++i] : nullptr;
    };
    if (arg == "--help" || arg == "-h") {
      std::fputs(feedprof::bench::kUsage.data(), stdout);
      return 0;
    }
    if (arg == "--force") {
      options.force = true;
      continue;
    }
    const char* v = value();
    if (v == nullptr) {
      return Fail(std::string(arg) + " needs a value\n" +
                  std::string(feedprof::bench::kUsage));
    }
    if (arg == "--out") {
      options.out = v;
    } else if (arg == "--session" || arg == "--ranks") {
      uint32_t& files =
          arg == "--session" ? options.session_files : options.rank_files;
      const std::string_view text = v;
      const auto [end, error] =
          std::from_chars(text.data(), text.data() + text.size(), files);
      if (error != std::errc() || end != text.data() + text.size() ||
          files < 2 || files > 256) {
        return Fail(std::string(arg) + ": '" + std::string(text) +
                    "' is not a file count; write 2 to 256");
      }
    } else if (arg == "--traces") {
      options.traces = v;
    } else if (arg == "--sizes") {
      options.sizes = absl::StrSplit(v, ',', absl::SkipEmpty());
    } else if (arg == "--formats") {
      options.formats = absl::StrSplit(v, ',', absl::SkipEmpty());
      for (const std::string& f : options.formats) {
        if (f != "kineto" && f != "kineto-gz" && f != "nsight" &&
            f != "feedprof") {
          return Fail("--formats: unknown format '" + f +
                      "'; use kineto, kineto-gz, nsight or feedprof");
        }
      }
    } else {
      return Fail("unknown option " + std::string(arg) + "\n" +
                  std::string(feedprof::bench::kUsage));
    }
  }
  if (options.out.empty()) {
    return Fail("--out DIR is required\n" +
                std::string(feedprof::bench::kUsage));
  }
  return feedprof::bench::Run(options);
}
