#include "symbols/module_cache.h"

#include <map>
#include <mutex>

#include "absl/strings/str_cat.h"

namespace feedprof::symbols {

std::shared_ptr<DwarfModule> CachedModule(
    const std::string& path, const std::string& build_id,
    const std::vector<std::string>& debug_dirs, std::string* problem) {
  static std::mutex mutex;
  static auto* modules =
      new std::map<std::string, std::shared_ptr<DwarfModule>>();
  // The path too: a stripped copy and an unstripped one share a build id.
  const std::string key = absl::StrCat(build_id, "@", path);
  std::lock_guard<std::mutex> lock(mutex);
  if (auto it = modules->find(key); it != modules->end()) return it->second;
  std::shared_ptr<DwarfModule> module =
      DwarfModule::Open(path, debug_dirs, problem);
  if (module != nullptr) modules->emplace(key, module);
  return module;
}

}  // namespace feedprof::symbols
