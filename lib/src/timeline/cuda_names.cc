// CUDA API and copy naming shared by the readers (see cuda_names.h).
#include "timeline/cuda_names.h"

#include <array>
#include <cstddef>

namespace feedprof::timeline {
namespace {

// Indexed by CopyKind.
constexpr std::array<std::string_view, 11> kCopyOpNames = {
    "Memcpy",      "Memcpy HtoD", "Memcpy DtoH", "Memcpy HtoA",
    "Memcpy AtoH", "Memcpy AtoA", "Memcpy AtoD", "Memcpy DtoA",
    "Memcpy DtoD", "Memcpy HtoH", "Memcpy PtoP"};
constexpr std::string_view kCopyPrefix = "Memcpy ";

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

std::string_view StripVersionSuffix(std::string_view name) {
  size_t i = name.size();
  while (i > 0 && IsDigit(name[i - 1])) --i;
  if (i == name.size() || i < 3) return name;  // no digits, or nothing left
  if (name[i - 1] != 'v' || name[i - 2] != '_') return name;
  return name.substr(0, i - 2);
}

bool HasVersionSuffix(std::string_view name) {
  return StripVersionSuffix(name).size() != name.size();
}

std::string_view CopyOpName(CopyKind kind) {
  const auto i = static_cast<size_t>(kind);
  return i < kCopyOpNames.size() ? kCopyOpNames[i] : kCopyOpNames[0];
}

std::string_view CopyKindLabel(CopyKind kind) {
  const std::string_view name = CopyOpName(kind);
  return name.size() > kCopyPrefix.size() ? name.substr(kCopyPrefix.size())
                                          : std::string_view();
}

CopyKind FindCopyKind(std::string_view text) {
  for (size_t i = 1; i < kCopyOpNames.size(); ++i) {
    const auto kind = static_cast<CopyKind>(i);
    if (text.find(CopyKindLabel(kind)) != std::string_view::npos) return kind;
  }
  return CopyKind::kUnknown;
}

}  // namespace feedprof::timeline
