#include "preload/host/data_mounts.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>

#include "preload/host/proc_text.h"

namespace feedprof::preload::host {
namespace {

constexpr size_t kPathBytes = 1024;
constexpr size_t kCmdlineBytes = 1024;
// Files named on the command line count as data from this size (smaller
// ones are scripts and configs).
constexpr off_t kDataFileBytes = 1 << 20;

}  // namespace

size_t FindDataMounts(const DataMountSources& sources, char* scratch,
                      size_t scratch_bytes, DataMountVisitor visit,
                      void* context) {
  const bool live = std::strcmp(sources.root, "/") == 0;
  // Paths under the root: "" + "/proc/..." on this machine.
  const char* root = live ? "" : sources.root;
  char mountinfo[kPathBytes];
  std::snprintf(mountinfo, sizeof mountinfo, "%s/proc/self/mountinfo", root);
  char cwd[kPathBytes] = {};
  if (sources.cwd != nullptr) {
    std::snprintf(cwd, sizeof cwd, "%s", sources.cwd);
  } else if (!live || getcwd(cwd, sizeof cwd) == nullptr) {
    cwd[0] = '\0';
  }
  size_t visited = 0;
  MountFields m;
  if (cwd[0] == '/') {
    struct stat st;
    const uint64_t dev =
        live && stat(cwd, &st) == 0 ? static_cast<uint64_t>(st.st_dev) : 0;
    if (FindMount(mountinfo, cwd, dev, scratch, scratch_bytes, &m)) {
      ReadBlockDevice(root, &m);
      visit(".", true, m, context);
      ++visited;
    }
  }
  char args[kCmdlineBytes];
  char cmdline[kPathBytes];
  std::snprintf(cmdline, sizeof cmdline, "%s/proc/self/cmdline", root);
  const long n = ReadFile(cmdline, args, sizeof args);
  if (n <= 0) return visited;
  uint64_t seen[kMaxDataMounts];  // hashes of the mount points visited
  size_t count = 0;
  bool first = true;
  for (const char* a = args; a < args + n; a += std::strlen(a) + 1) {
    if (first) {  // the program itself
      first = false;
      continue;
    }
    // "--data=/x" names /x.
    const char* eq = std::strchr(a, '=');
    const char* arg = eq != nullptr && a[0] == '-' ? eq + 1 : a;
    if (arg[0] == '\0' || arg[0] == '-') continue;
    char path[kPathBytes];
    if (arg[0] == '/') {
      std::snprintf(path, sizeof path, "%s", arg);
    } else if (cwd[0] == '/' && std::strchr(arg, '/') != nullptr) {
      std::snprintf(path, sizeof path, "%s/%s", cwd, arg);
    } else {
      continue;  // a bare word: a subcommand, a name, a number
    }
    NormalizePath(path);
    char on_disk[kPathBytes];
    std::snprintf(on_disk, sizeof on_disk, "%s%s", root, path);
    struct stat st;
    if (stat(on_disk, &st) != 0 ||
        !(S_ISDIR(st.st_mode) ||
          (S_ISREG(st.st_mode) && st.st_size >= kDataFileBytes))) {
      continue;
    }
    if (!FindMount(mountinfo, path, live ? st.st_dev : 0, scratch,
                   scratch_bytes, &m)) {
      continue;
    }
    uint64_t hash = 14695981039346656037ull;  // FNV-1a
    for (const char* c = m.mount_point; *c != '\0'; ++c) {
      hash = (hash ^ static_cast<unsigned char>(*c)) * 1099511628211ull;
    }
    bool known = false;
    for (size_t i = 0; i < count; ++i) known |= seen[i] == hash;
    if (known) continue;
    seen[count++] = hash;
    ReadBlockDevice(root, &m);
    visit(path, false, m, context);
    ++visited;
    if (count == kMaxDataMounts) break;
  }
  return visited;
}

}  // namespace feedprof::preload::host
