// Reads files in known patterns, for the end-to-end test that the
// /proc/self/io counters recorded in ProcessSample messages match what the
// program did (io_pattern_e2e_test.cc).
//
// Every mode prints "KEY VALUE" lines on stdout. A measured part of the
// run is a phase: "PHASE_begin_ns" and "PHASE_end_ns" (CLOCK_MONOTONIC, the
// clock the trace's timestamps follow) bracket exactly the reads counted in
// "PHASE_read_calls" and "PHASE_read_bytes". Around each phase the program
// sleeps kQuietMs without any system call that reads, so the samples that
// the test picks around a phase hold its reads and the sampler's only;
// "PHASE_quiet_from_ns" and "PHASE_quiet_until_ns" say where that quiet
// begins and ends, so the test can check that its samples lie inside it.
//
// Before a phase the file pages are written back (fsync) and dropped
// (posix_fadvise POSIX_FADV_DONTNEED); "PHASE_resident_pages" is what
// mincore still finds of them in the page cache (0: each read goes to
// storage).
//
// Modes (the files are deleted at the end):
//   probe DIR                          1 MiB written, dropped, read; this
//                                      process's own /proc/self/io deltas
//   sampler MS                         no reads at all: sleeps MS ms (phase
//                                      "idle"), then burns CPU for MS ms
//                                      (phase "spin"); with the library,
//                                      what its sampler alone reads
//   small-uncached DIR N SIZE [CHUNK]  N files of SIZE bytes, each read whole
//                                      with CHUNK-byte reads (phase "read")
//   large-sequential FILE SIZE CHUNK   one file read with CHUNK-byte reads
//                                      (phase "read")
//   cached FILE SIZE CHUNK PASSES      one cold read (phase "cold"), then
//                                      PASSES reads from the page cache
//                                      (phase "warm")
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

// Longer than two sampling intervals (10 ms) with room for a late round.
constexpr int kQuietMs = 60;

uint64_t MonotonicNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull +
         static_cast<uint64_t>(ts.tv_nsec);
}

void SleepMs(int ms) {
  timespec ts{ms / 1000, static_cast<long>(ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

[[noreturn]] void Fail(const char* what, const std::string& path) {
  std::fprintf(stderr, "io_pattern_target: %s %s: %s\n", what, path.c_str(),
               std::strerror(errno));
  std::exit(2);
}

void Print(const std::string& key, uint64_t value) {
  std::printf("%s %" PRIu64 "\n", key.c_str(), value);
}

// A file of `size` bytes of a non-zero pattern, written back to storage
// with fsync, or (`sync` false) with its write-back only started: then
// DropPages' fdatasync waits for it, and the files of a batch share their
// journal commits (400 fsyncs one after the other take seconds).
void WriteFile(const std::string& path, uint64_t size, bool sync = true) {
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) Fail("cannot create", path);
  std::vector<char> block(size < (1 << 20) ? size : (1 << 20));
  for (size_t i = 0; i < block.size(); ++i) {
    block[i] = static_cast<char>('a' + i % 26);
  }
  uint64_t left = size;
  while (left > 0 && !block.empty()) {
    const size_t n = static_cast<size_t>(
        left < block.size() ? left : static_cast<uint64_t>(block.size()));
    const ssize_t w = write(fd, block.data(), n);
    if (w <= 0) Fail("cannot write", path);
    left -= static_cast<uint64_t>(w);
  }
  if (sync ? fsync(fd) != 0
           : sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE) != 0) {
    Fail("cannot write back", path);
  }
  close(fd);
}

// Drops the file's (clean) pages from the page cache; returns how many of
// them mincore still finds resident.
uint64_t DropPages(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY);
  if (fd < 0) Fail("cannot open", path);
  if (fdatasync(fd) != 0) Fail("cannot fdatasync", path);
  errno = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  if (errno != 0) Fail("posix_fadvise(DONTNEED) failed on", path);
  struct stat st;
  if (fstat(fd, &st) != 0) Fail("cannot stat", path);
  uint64_t resident = 0;
  if (st.st_size > 0) {
    const size_t len = static_cast<size_t>(st.st_size);
    void* map = mmap(nullptr, len, PROT_READ, MAP_SHARED, fd, 0);
    if (map == MAP_FAILED) Fail("cannot mmap", path);
    const long page = sysconf(_SC_PAGESIZE);
    std::vector<unsigned char> vec((len + static_cast<size_t>(page) - 1) /
                                   static_cast<size_t>(page));
    if (mincore(map, len, vec.data()) != 0) Fail("mincore failed on", path);
    for (unsigned char v : vec) resident += v & 1u;
    munmap(map, len);
  }
  close(fd);
  return resident;
}

struct ReadCount {
  uint64_t calls = 0;
  uint64_t bytes = 0;
};

// Reads the whole file with `chunk`-byte read() calls, stopping when its
// size is in (no read that returns 0 at the end): every call is counted.
void ReadWhole(const std::string& path, size_t chunk, std::vector<char>* buf,
               ReadCount* count) {
  const int fd = open(path.c_str(), O_RDONLY);
  if (fd < 0) Fail("cannot open", path);
  struct stat st;
  if (fstat(fd, &st) != 0) Fail("cannot stat", path);
  const uint64_t size = static_cast<uint64_t>(st.st_size);
  if (buf->size() < chunk) buf->resize(chunk);
  uint64_t got = 0;
  while (got < size) {
    const ssize_t n = read(fd, buf->data(), chunk);
    ++count->calls;
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) Fail("cannot read", path);
    got += static_cast<uint64_t>(n);
    count->bytes += static_cast<uint64_t>(n);
  }
  close(fd);
}

// A phase: quiet, then the reads `body` makes between two timestamps, then
// quiet again.
template <typename Body>
void Phase(const std::string& name, Body body) {
  Print(name + "_quiet_from_ns", MonotonicNs());
  SleepMs(kQuietMs);
  ReadCount count;
  const uint64_t begin = MonotonicNs();
  body(&count);
  const uint64_t end = MonotonicNs();
  SleepMs(kQuietMs);
  Print(name + "_quiet_until_ns", MonotonicNs());
  Print(name + "_begin_ns", begin);
  Print(name + "_end_ns", end);
  Print(name + "_read_calls", count.calls);
  Print(name + "_read_bytes", count.bytes);
}

// This process's /proc/self/io counters (with a stdio-free read, so that
// the numbers are not disturbed by buffering).
struct ProcIo {
  uint64_t rchar = 0;
  uint64_t syscr = 0;
  uint64_t read_bytes = 0;
};

ProcIo ReadProcIo() {
  ProcIo io;
  char text[1024];
  const int fd = open("/proc/self/io", O_RDONLY);
  if (fd < 0) return io;
  const ssize_t n = read(fd, text, sizeof text - 1);
  close(fd);
  if (n <= 0) return io;
  text[n] = '\0';
  const auto field = [&](const char* key) -> uint64_t {
    const char* p = std::strstr(text, key);
    return p == nullptr ? 0 : std::strtoull(p + std::strlen(key), nullptr, 10);
  };
  io.rchar = field("rchar: ");
  io.syscr = field("syscr: ");
  io.read_bytes = field("\nread_bytes: ");
  return io;
}

uint64_t ArgU64(const char* text) { return std::strtoull(text, nullptr, 10); }

int Probe(const std::string& dir) {
  struct statfs fs;
  if (statfs(dir.c_str(), &fs) != 0) Fail("cannot statfs", dir);
  Print("fs_type", static_cast<uint64_t>(fs.f_type));
  const std::string path = dir + "/probe.bin";
  constexpr uint64_t kSize = 1 << 20;
  WriteFile(path, kSize);
  Print("resident_pages", DropPages(path));
  std::vector<char> buf;
  ReadCount count;
  const ProcIo before = ReadProcIo();
  ReadWhole(path, 1 << 16, &buf, &count);
  const ProcIo after = ReadProcIo();
  unlink(path.c_str());
  Print("file_bytes", kSize);
  Print("read_calls", count.calls);
  // The second ReadProcIo's own read is counted in `after`.
  Print("syscr_delta", after.syscr - before.syscr);
  Print("storage_bytes", after.read_bytes - before.read_bytes);
  return 0;
}

int SamplerOnly(uint64_t ms) {
  Phase("idle", [ms](ReadCount*) { SleepMs(static_cast<int>(ms)); });
  Phase("spin", [ms](ReadCount*) {
    volatile uint64_t sink = 0;
    const uint64_t end = MonotonicNs() + ms * 1000000ull;
    while (MonotonicNs() < end) {
      for (int i = 0; i < 10000; ++i) sink = sink + static_cast<uint64_t>(i);
    }
  });
  return 0;
}

int SmallUncached(const std::string& dir, uint64_t n, uint64_t size,
                  size_t chunk) {
  std::vector<std::string> paths;
  for (uint64_t i = 0; i < n; ++i) {
    paths.push_back(dir + "/small-" + std::to_string(i) + ".bin");
    WriteFile(paths.back(), size, /*sync=*/false);
  }
  uint64_t resident = 0;
  for (const std::string& path : paths) resident += DropPages(path);
  Print("read_resident_pages", resident);
  std::vector<char> buf;
  Phase("read", [&](ReadCount* count) {
    for (const std::string& path : paths) ReadWhole(path, chunk, &buf, count);
  });
  for (const std::string& path : paths) unlink(path.c_str());
  return 0;
}

int LargeSequential(const std::string& path, uint64_t size, size_t chunk) {
  WriteFile(path, size);
  Print("read_resident_pages", DropPages(path));
  std::vector<char> buf;
  Phase("read", [&](ReadCount* count) { ReadWhole(path, chunk, &buf, count); });
  unlink(path.c_str());
  return 0;
}

int Cached(const std::string& path, uint64_t size, size_t chunk,
           uint64_t passes) {
  WriteFile(path, size);
  Print("cold_resident_pages", DropPages(path));
  std::vector<char> buf;
  Phase("cold", [&](ReadCount* count) { ReadWhole(path, chunk, &buf, count); });
  Phase("warm", [&](ReadCount* count) {
    for (uint64_t i = 0; i < passes; ++i) ReadWhole(path, chunk, &buf, count);
  });
  unlink(path.c_str());
  return 0;
}

int Usage() {
  std::fprintf(stderr,
               "usage: io_pattern_target probe DIR | sampler MS |\n"
               "       small-uncached DIR N SIZE [CHUNK] |\n"
               "       large-sequential FILE SIZE CHUNK |\n"
               "       cached FILE SIZE CHUNK PASSES\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return Usage();
  const std::string mode = argv[1];
  if (mode == "probe" && argc == 3) return Probe(argv[2]);
  if (mode == "sampler" && argc == 3) return SamplerOnly(ArgU64(argv[2]));
  if (mode == "small-uncached" && (argc == 5 || argc == 6)) {
    return SmallUncached(argv[2], ArgU64(argv[3]), ArgU64(argv[4]),
                         argc == 6 ? ArgU64(argv[5]) : 4096);
  }
  if (mode == "large-sequential" && argc == 5) {
    return LargeSequential(argv[2], ArgU64(argv[3]), ArgU64(argv[4]));
  }
  if (mode == "cached" && argc == 6) {
    return Cached(argv[2], ArgU64(argv[3]), ArgU64(argv[4]), ArgU64(argv[5]));
  }
  return Usage();
}
