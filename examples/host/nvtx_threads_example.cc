// A host program that exercises everything feedprof records without a GPU.
//
// It stands in for the CPU side of a training job: NVTX ranges on several
// threads (nested push/pop, start/end ranges that end on another thread,
// marks, a named domain with registered strings and categories, a wide-string
// name), a forked worker that emits its own ranges and burns CPU, a thread
// that burns a known amount of CPU and a thread that reads a file. The
// end-to-end tests run it with and without libfeedprof.so and compare what
// the trace says with what the program did.
//
// Everything printed on stdout is deterministic, so its output can be
// compared between runs; measured figures (thread ids, CPU time actually
// burned) go to the file named by --report. It exits with code 3 so that a
// test can see the exit code pass through unchanged.
//
// Usage: nvtx_threads_example [--burn-ms N] [--report FILE] [--loop]
//   --loop: after the work, keep emitting "tick" ranges until killed
//           (prints "looping" once on stdout first).
#include <fcntl.h>
#include <nvtx3/nvToolsExt.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <thread>
#include <vector>

namespace {

constexpr int kExitCode = 3;
constexpr int kNestedIterations = 10;
constexpr int kCrossThreadRanges = 5;
constexpr int kDomainRanges = 4;
constexpr int kMarks = 3;
constexpr int kReadChunks = 8;
constexpr size_t kChunkBytes = 1 << 20;
constexpr int kChildRanges = 3;
constexpr int kChildBurnMs = 100;
constexpr int kBurnerLingerMs = 200;
constexpr uint32_t kCategoryIo = 7;
constexpr uint32_t kDomainColor = 0xFF00AA00u;

uint32_t Tid() { return static_cast<uint32_t>(syscall(SYS_gettid)); }

uint64_t ThreadCpuNs() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull +
         static_cast<uint64_t>(ts.tv_nsec);
}

void NameThread(const char* name) {
  pthread_setname_np(pthread_self(), name);
  nvtxNameOsThreadA(Tid(), name);
}

// Spins until this thread has used `ms` of CPU time; returns what it used.
uint64_t BurnCpu(int ms) {
  const uint64_t start = ThreadCpuNs();
  const uint64_t target = start + static_cast<uint64_t>(ms) * 1000000ull;
  volatile uint64_t sink = 0;
  while (ThreadCpuNs() < target) {
    for (int i = 0; i < 10000; ++i) sink = sink * 6364136223846793005ull + 1;
  }
  return ThreadCpuNs() - start;
}

struct Report {
  uint32_t main_tid = 0;
  uint32_t nested_tid = 0;
  uint32_t ender_tid = 0;
  uint32_t burner_tid = 0;
  uint32_t reader_tid = 0;
  uint64_t burner_cpu_ns = 0;
  int child_pid = 0;
  uint64_t bytes_read = 0;
};

// Nested push/pop ranges, three deep, plus one range with a wide name.
void NestedThread(Report* report) {
  NameThread("nested");
  report->nested_tid = Tid();
  for (int i = 0; i < kNestedIterations; ++i) {
    nvtxRangePushA("outer");
    nvtxRangePushA("middle");
    nvtxRangePushA("inner");
    nvtxRangePop();
    nvtxRangePop();
    nvtxRangePop();
  }
  nvtxRangePushW(L"wide-\u540d\u524d");  // "wide-名前"
  nvtxRangePop();
}

// Ranges started on the main thread end here.
void EnderThread(Report* report, std::vector<nvtxRangeId_t>* ids) {
  NameThread("ender");
  report->ender_tid = Tid();
  for (nvtxRangeId_t id : *ids) nvtxRangeEnd(id);
}

void BurnerThread(Report* report, int burn_ms) {
  NameThread("cpu-burner");
  report->burner_tid = Tid();
  nvtxRangePushA("burn");
  report->burner_cpu_ns = BurnCpu(burn_ms);
  nvtxRangePop();
  // Linger without using CPU, so that a sampler running at 100 Hz sees the
  // thread's final CPU time before the thread is gone.
  usleep(kBurnerLingerMs * 1000);
}

// Writes a scratch file, then reads it back chunk by chunk.
void ReaderThread(Report* report) {
  NameThread("reader");
  report->reader_tid = Tid();
  const char* tmp = getenv("TMPDIR");
  std::string path = std::string(tmp != nullptr ? tmp : "/tmp") +
                     "/nvtx_threads_example.XXXXXX";
  std::vector<char> name(path.begin(), path.end());
  name.push_back('\0');
  const int fd = mkstemp(name.data());
  if (fd < 0) return;
  std::vector<char> chunk(kChunkBytes, 'x');
  for (int i = 0; i < kReadChunks; ++i) {
    if (write(fd, chunk.data(), chunk.size()) < 0) break;
  }
  lseek(fd, 0, SEEK_SET);
  for (int i = 0; i < kReadChunks; ++i) {
    nvtxRangePushA("read-chunk");
    const ssize_t n = read(fd, chunk.data(), chunk.size());
    nvtxRangePop();
    if (n > 0) report->bytes_read += static_cast<uint64_t>(n);
  }
  close(fd);
  unlink(name.data());
}

// The forked worker: its own ranges and some CPU, then a normal exit so the
// profiler's exit handlers run as they would in a real worker.
[[noreturn]] void ChildMain() {
  NameThread("child");
  for (int i = 0; i < kChildRanges; ++i) {
    nvtxRangePushA("child-work");
    BurnCpu(kChildBurnMs / kChildRanges);
    nvtxRangePop();
  }
  exit(0);
}

nvtxEventAttributes_t Attributes(nvtxStringHandle_t name, uint32_t category,
                                 uint32_t color, uint64_t payload) {
  nvtxEventAttributes_t a;
  memset(&a, 0, sizeof a);
  a.version = NVTX_VERSION;
  a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  a.category = category;
  a.colorType = NVTX_COLOR_ARGB;
  a.color = color;
  a.payloadType = NVTX_PAYLOAD_TYPE_UNSIGNED_INT64;
  a.payload.ullValue = payload;
  a.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
  a.message.registered = name;
  return a;
}

void WriteReport(const char* path, const Report& r) {
  FILE* f = fopen(path, "w");
  if (f == nullptr) return;
  fprintf(f, "pid %d\n", static_cast<int>(getpid()));
  fprintf(f, "main_tid %u\n", r.main_tid);
  fprintf(f, "nested_tid %u\n", r.nested_tid);
  fprintf(f, "ender_tid %u\n", r.ender_tid);
  fprintf(f, "burner_tid %u\n", r.burner_tid);
  fprintf(f, "reader_tid %u\n", r.reader_tid);
  fprintf(f, "burner_cpu_ns %llu\n",
          static_cast<unsigned long long>(r.burner_cpu_ns));
  fprintf(f, "child_pid %d\n", r.child_pid);
  fclose(f);
}

[[noreturn]] void Loop() {
  printf("looping\n");
  fflush(stdout);
  for (;;) {
    nvtxRangePushA("tick");
    usleep(1000);
    nvtxRangePop();
  }
}

}  // namespace

int main(int argc, char** argv) {
  int burn_ms = 300;
  const char* report_path = nullptr;
  bool loop = false;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--burn-ms") == 0 && i + 1 < argc) {
      burn_ms = atoi(argv[++i]);
    } else if (strcmp(argv[i], "--report") == 0 && i + 1 < argc) {
      report_path = argv[++i];
    } else if (strcmp(argv[i], "--loop") == 0) {
      loop = true;
    } else {
      fprintf(stderr, "usage: %s [--burn-ms N] [--report FILE] [--loop]\n",
              argv[0]);
      return 2;
    }
  }

  Report report;
  report.main_tid = Tid();
  NameThread("main");
  nvtxDomainHandle_t domain = nvtxDomainCreateA("example.domain");
  nvtxStringHandle_t step = nvtxDomainRegisterStringA(domain, "domain-step");
  nvtxDomainNameCategoryA(domain, kCategoryIo, "io");
  nvtxNameCategoryA(kCategoryIo, "io-default");

  // The worker process is forked before any thread exists, as fork() in a
  // multi-threaded process is best avoided.
  fflush(stdout);
  fflush(stderr);
  report.child_pid = fork();
  if (report.child_pid == 0) ChildMain();

  std::thread burner(BurnerThread, &report, burn_ms);
  std::thread reader(ReaderThread, &report);
  std::thread nested(NestedThread, &report);

  std::vector<nvtxRangeId_t> cross_ids;
  for (int i = 0; i < kCrossThreadRanges; ++i) {
    cross_ids.push_back(nvtxRangeStartA("cross-thread"));
  }
  std::thread ender(EnderThread, &report, &cross_ids);

  for (int i = 0; i < kDomainRanges; ++i) {
    nvtxEventAttributes_t a =
        Attributes(step, kCategoryIo, kDomainColor, static_cast<uint64_t>(i));
    nvtxDomainRangePushEx(domain, &a);
    nvtxDomainRangePop(domain);
  }
  for (int i = 0; i < kMarks; ++i) nvtxMarkA("mark-a");
  nvtxEventAttributes_t mark = Attributes(step, kCategoryIo, kDomainColor, 7);
  nvtxDomainMarkEx(domain, &mark);

  ender.join();
  nested.join();
  reader.join();
  burner.join();

  int status = 0;
  int child_exit = -1;
  if (report.child_pid > 0 && waitpid(report.child_pid, &status, 0) > 0 &&
      WIFEXITED(status)) {
    child_exit = WEXITSTATUS(status);
  }

  printf("nested ranges: %d x outer/middle/inner, 1 wide\n", kNestedIterations);
  printf("cross-thread ranges: %d\n", kCrossThreadRanges);
  printf("domain ranges: %d, marks: %d + 1 domain mark\n", kDomainRanges,
         kMarks);
  printf("bytes read: %llu\n",
         static_cast<unsigned long long>(report.bytes_read));
  printf("cpu burned: at least %d ms\n", burn_ms);
  printf("child exit: %d\n", child_exit);
  fprintf(stderr, "nvtx_threads_example: done, exiting with %d\n", kExitCode);
  if (report_path != nullptr) WriteReport(report_path, report);
  if (loop) Loop();
  return kExitCode;
}
