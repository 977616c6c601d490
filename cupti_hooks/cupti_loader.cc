#include "cupti_hooks/cupti_loader.h"

#include <dlfcn.h>
#include <link.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#ifndef FEEDPROF_CUPTI_SONAME
#define FEEDPROF_CUPTI_SONAME "libcupti.so"
#endif
// Semicolon-separated list of toolkit files, set by the build.
#ifndef FEEDPROF_CUPTI_TOOLKIT_PATHS
#define FEEDPROF_CUPTI_TOOLKIT_PATHS ""
#endif

namespace feedprof::cupti {

const char* CuptiApi::ResultName(CUptiResult result) const {
  const char* name = nullptr;
  if (GetResultString != nullptr &&
      GetResultString(result, &name) == CUPTI_SUCCESS && name != nullptr) {
    return name;
  }
  return "unknown CUPTI result";
}

namespace {

struct PathList {
  char (*paths)[kPathCapacity];
  size_t max;
  size_t count;

  void Add(const char* path) {
    if (path == nullptr || path[0] == '\0' || count >= max) return;
    const size_t length = std::strlen(path);
    if (length >= kPathCapacity) return;  // cannot be a usable path here
    for (size_t i = 0; i < count; ++i) {
      if (std::strcmp(paths[i], path) == 0) return;
    }
    std::memcpy(paths[count], path, length + 1);
    ++count;
  }
};

// Finds the file of the first mapped object whose path contains `needle`.
struct FindMapped {
  const char* needle;
  char found[kPathCapacity];
};

int FindMappedCallback(dl_phdr_info* info, size_t, void* data) {
  auto* find = static_cast<FindMapped*>(data);
  if (info->dlpi_name == nullptr || info->dlpi_name[0] == '\0') return 0;
  const char* base = std::strrchr(info->dlpi_name, '/');
  base = base == nullptr ? info->dlpi_name : base + 1;
  if (std::strstr(base, find->needle) != base) return 0;
  std::snprintf(find->found, sizeof find->found, "%s", info->dlpi_name);
  return 1;
}

bool FindMappedObject(const char* needle, char* out, size_t out_size) {
  FindMapped find{needle, {}};
  if (dl_iterate_phdr(FindMappedCallback, &find) == 0) return false;
  std::snprintf(out, out_size, "%s", find.found);
  return true;
}

// Directory part of `path` (without the trailing slash) into `out`.
void DirName(const char* path, char* out, size_t out_size) {
  std::snprintf(out, out_size, "%s", path);
  char* slash = std::strrchr(out, '/');
  if (slash != nullptr) {
    *slash = '\0';
  } else {
    std::snprintf(out, out_size, ".");
  }
}

#if defined(__aarch64__)
#define FEEDPROF_CUDA_TARGET_DIR "targets/sbsa-linux/lib"
#else
#define FEEDPROF_CUDA_TARGET_DIR "targets/x86_64-linux/lib"
#endif

// The directories a CUDA toolkit rooted at `root` keeps libcupti in.
void AddToolkitLayouts(PathList* list, const char* root) {
  if (root == nullptr || root[0] != '/') return;
  static constexpr const char* kLayouts[] = {"lib64", "extras/CUPTI/lib64",
                                             FEEDPROF_CUDA_TARGET_DIR, "lib"};
  char candidate[2 * kPathCapacity];
  for (const char* layout : kLayouts) {
    std::snprintf(candidate, sizeof candidate, "%s/%s/%s", root, layout,
                  FEEDPROF_CUPTI_SONAME);
    list->Add(candidate);
  }
}

template <typename Fn>
bool Resolve(void* handle, const char* name, Fn* slot) {
  void* symbol = dlsym(handle, name);
  *slot = reinterpret_cast<Fn>(symbol);
  return symbol != nullptr;
}

// Fills the table; returns the first missing required symbol or null.
const char* ResolveAll(CuptiApi* api) {
  void* h = api->handle;
#define FEEDPROF_REQUIRED(field, name) \
  if (!Resolve(h, name, &api->field)) return name;
  FEEDPROF_REQUIRED(GetVersion, "cuptiGetVersion")
  FEEDPROF_REQUIRED(GetResultString, "cuptiGetResultString")
  FEEDPROF_REQUIRED(GetCallbackName, "cuptiGetCallbackName")
  FEEDPROF_REQUIRED(ActivityRegisterCallbacks, "cuptiActivityRegisterCallbacks")
  FEEDPROF_REQUIRED(ActivityEnable, "cuptiActivityEnable")
  FEEDPROF_REQUIRED(ActivityDisable, "cuptiActivityDisable")
  FEEDPROF_REQUIRED(ActivityFlushAll, "cuptiActivityFlushAll")
  FEEDPROF_REQUIRED(ActivityGetNextRecord, "cuptiActivityGetNextRecord")
  FEEDPROF_REQUIRED(ActivityGetNumDroppedRecords,
                    "cuptiActivityGetNumDroppedRecords")
  FEEDPROF_REQUIRED(Subscribe, "cuptiSubscribe")
  FEEDPROF_REQUIRED(Unsubscribe, "cuptiUnsubscribe")
  FEEDPROF_REQUIRED(EnableCallback, "cuptiEnableCallback")
  FEEDPROF_REQUIRED(GetTimestamp, "cuptiGetTimestamp")
#undef FEEDPROF_REQUIRED
  Resolve(h, "cuptiSetThreadIdType", &api->SetThreadIdType);
  Resolve(h, "cuptiActivityRegisterTimestampCallback",
          &api->ActivityRegisterTimestampCallback);
  Resolve(h, "cuptiActivityEnableRuntimeApi", &api->ActivityEnableRuntimeApi);
  Resolve(h, "cuptiActivityEnableDriverApi", &api->ActivityEnableDriverApi);
  Resolve(h, "cuptiGetDeviceId", &api->GetDeviceId);
  Resolve(h, "cuptiActivityEnableAndDump", &api->ActivityEnableAndDump);
  return nullptr;
}

LoadStatus Finish(CuptiApi* api, void* handle, const char* path, char* message,
                  size_t message_size) {
  api->handle = handle;
  std::snprintf(api->path, sizeof api->path, "%s", path);
  if (const char* missing = ResolveAll(api)) {
    std::snprintf(message, message_size,
                  "%s lacks %s; GPU activity is not recorded. Point "
                  "FEEDPROF_CUPTI_PATH at the libcupti of CUDA %d.",
                  path, missing, CUPTI_API_VERSION / 10000);
    dlclose(handle);
    *api = CuptiApi{};
    return LoadStatus::kMissingSymbol;
  }
  uint32_t version = 0;
  if (api->GetVersion(&version) != CUPTI_SUCCESS ||
      !CuptiVersionCompatible(version, CUPTI_API_VERSION)) {
    std::snprintf(message, message_size,
                  "%s has CUPTI API version %u, this build needs %u (CUDA "
                  "%d); GPU activity is not recorded. Point "
                  "FEEDPROF_CUPTI_PATH at a matching libcupti.",
                  path, version, static_cast<unsigned>(CUPTI_API_VERSION),
                  CUPTI_API_VERSION / 10000);
    dlclose(handle);
    *api = CuptiApi{};
    return LoadStatus::kVersionMismatch;
  }
  api->version = version;
  return LoadStatus::kLoaded;
}

}  // namespace

bool CuptiVersionCompatible(uint32_t loaded, uint32_t built) {
  // From CUDA 13 on the version is xxyyzz with xx the CUDA major.
  if (loaded < 130000 || built < 130000) return loaded == built;
  return loaded / 10000 == built / 10000;
}

size_t CuptiCandidatePaths(char (*out)[kPathCapacity], size_t max) {
  PathList list{out, max, 0};
  char found[kPathCapacity];
  // 1. A copy some framework already mapped.
  if (FindMappedObject("libcupti.so", found, sizeof found)) list.Add(found);
  // 2. The toolkit's, as configured at build time.
  char toolkit[4 * kPathCapacity];
  std::snprintf(toolkit, sizeof toolkit, "%s", FEEDPROF_CUPTI_TOOLKIT_PATHS);
  for (char *save = nullptr, *item = strtok_r(toolkit, ";", &save);
       item != nullptr; item = strtok_r(nullptr, ";", &save)) {
    list.Add(item);
  }
  // 3. Next to the CUDA runtime a Python wheel installed: nvidia/cu13/lib
  // keeps both in one directory; older wheels use sibling packages
  // nvidia/cuda_runtime/lib and nvidia/cuda_cupti/lib.
  if (FindMappedObject("libcudart.so", found, sizeof found)) {
    char dir[kPathCapacity];
    char candidate[2 * kPathCapacity];
    DirName(found, dir, sizeof dir);
    std::snprintf(candidate, sizeof candidate, "%s/%s", dir,
                  FEEDPROF_CUPTI_SONAME);
    list.Add(candidate);
    std::snprintf(candidate, sizeof candidate, "%s/../../cuda_cupti/lib/%s",
                  dir, FEEDPROF_CUPTI_SONAME);
    list.Add(candidate);
  }
  // 4. The usual toolkit layouts on this machine, which may differ from the
  // build machine's: $CUDA_HOME, $CUDA_PATH, then /usr/local/cuda.
  AddToolkitLayouts(&list, std::getenv("CUDA_HOME"));
  AddToolkitLayouts(&list, std::getenv("CUDA_PATH"));
  AddToolkitLayouts(&list, "/usr/local/cuda");
  // 5. Whatever the dynamic linker finds (LD_LIBRARY_PATH, ld.so.cache).
  list.Add(FEEDPROF_CUPTI_SONAME);
  return list.count;
}

LoadStatus LoadCupti(CuptiApi* api, char* message, size_t message_size) {
  *api = CuptiApi{};
  message[0] = '\0';
  const char* explicit_path = std::getenv("FEEDPROF_CUPTI_PATH");
  if (explicit_path != nullptr && explicit_path[0] != '\0') {
    void* handle = dlopen(explicit_path, RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      const char* error = dlerror();
      std::snprintf(message, message_size,
                    "cannot load FEEDPROF_CUPTI_PATH=%s (%s); GPU activity "
                    "is not recorded. Point it at an existing %s or unset "
                    "it.",
                    explicit_path, error != nullptr ? error : "unknown error",
                    FEEDPROF_CUPTI_SONAME);
      return LoadStatus::kNotFound;
    }
    return Finish(api, handle, explicit_path, message, message_size);
  }
  char paths[kMaxCandidatePaths][kPathCapacity];
  const size_t count = CuptiCandidatePaths(paths, kMaxCandidatePaths);
  for (size_t i = 0; i < count; ++i) {
    void* handle = dlopen(paths[i], RTLD_NOW | RTLD_LOCAL);
    if (handle != nullptr) {
      return Finish(api, handle, paths[i], message, message_size);
    }
  }
  std::snprintf(message, message_size,
                "no %s found (looked in the process, the CUDA toolkit, the "
                "Python CUDA wheels, $CUDA_HOME, $CUDA_PATH, /usr/local/cuda "
                "and the library path); GPU activity is "
                "not recorded. Set FEEDPROF_CUPTI_PATH to its location.",
                FEEDPROF_CUPTI_SONAME);
  return LoadStatus::kNotFound;
}

void UnloadCupti(CuptiApi* api) {
  if (api->handle != nullptr) dlclose(api->handle);
  *api = CuptiApi{};
}

}  // namespace feedprof::cupti
