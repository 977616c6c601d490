#include "platform/proc_sys_text.h"

#include <algorithm>
#include <charconv>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace feedprof::platform {
namespace {

bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' ||
         c == '\f';
}

std::vector<std::string_view> Tokens(std::string_view line) {
  return Words(line);
}

}  // namespace

std::string UnescapeProcText(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 3 < s.size() && s[i + 1] >= '0' &&
        s[i + 1] <= '3' && s[i + 2] >= '0' && s[i + 2] <= '7' &&
        s[i + 3] >= '0' && s[i + 3] <= '7') {
      out.push_back(static_cast<char>((s[i + 1] - '0') * 64 +
                                      (s[i + 2] - '0') * 8 + (s[i + 3] - '0')));
      i += 3;
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && IsSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsSpace(s.back())) s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> Split(std::string_view s, char separator,
                                    bool skip_empty) {
  std::vector<std::string_view> parts;
  for (;;) {
    const size_t at = s.find(separator);
    const std::string_view part = s.substr(0, at);
    if (!skip_empty || !part.empty()) parts.push_back(part);
    if (at == std::string_view::npos) break;
    s.remove_prefix(at + 1);
  }
  return parts;
}

std::vector<std::string_view> Words(std::string_view s) {
  std::vector<std::string_view> words;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && IsSpace(s[i])) ++i;
    const size_t start = i;
    while (i < s.size() && !IsSpace(s[i])) ++i;
    if (i > start) words.push_back(s.substr(start, i - start));
  }
  return words;
}

bool ConsumePrefix(std::string_view* s, std::string_view prefix) {
  if (!s->starts_with(prefix)) return false;
  s->remove_prefix(prefix.size());
  return true;
}

std::optional<uint64_t> ParseUint(std::string_view s) {
  s = Trim(s);
  uint64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty()) {
    return std::nullopt;
  }
  return v;
}

std::optional<int64_t> ParseInt(std::string_view s) {
  s = Trim(s);
  int64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty()) {
    return std::nullopt;
  }
  return v;
}

std::optional<uint64_t> ParseHex(std::string_view s) {
  s = Trim(s);
  if (!ConsumePrefix(&s, "0x")) ConsumePrefix(&s, "0X");
  uint64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v, 16);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty()) {
    return std::nullopt;
  }
  return v;
}

std::optional<double> ParseDouble(std::string_view s) {
  s = Trim(s);
  double v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end == s.data()) return std::nullopt;
  return v;
}

std::optional<std::vector<int>> ParseCpuList(std::string_view list) {
  std::vector<int> cpus;
  list = Trim(list);
  if (list.empty()) return cpus;
  for (std::string_view part : Split(list, ',')) {
    part = Trim(part);
    const size_t dash = part.find('-');
    const auto first = ParseUint(part.substr(0, dash));
    const auto last = dash == std::string_view::npos
                          ? first
                          : ParseUint(part.substr(dash + 1));
    // 1 << 16 CPUs bounds a damaged list's cost.
    if (!first || !last || *last < *first || *last >= (1u << 16)) {
      return std::nullopt;
    }
    for (uint64_t c = *first; c <= *last; ++c) {
      cpus.push_back(static_cast<int>(c));
    }
  }
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  return cpus;
}

std::string FormatCpuList(const std::vector<int>& cpus) {
  std::string out;
  for (size_t i = 0; i < cpus.size();) {
    size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    if (!out.empty()) out.push_back(',');
    absl::StrAppend(&out, cpus[i]);
    if (j > i) absl::StrAppend(&out, "-", cpus[j]);
    i = j + 1;
  }
  return out;
}

std::optional<double> ParseLinkSpeedGts(std::string_view s) {
  s = Trim(s);
  const std::optional<double> v = ParseDouble(s);
  if (!v || *v <= 0 ||
      !(std::string_view(s).find("GT/s") != std::string_view::npos))
    return std::nullopt;
  return v;
}

int PcieGeneration(double gts) {
  if (gts <= 0) return 0;
  if (gts <= 2.5) return 1;
  if (gts <= 5) return 2;
  if (gts <= 8) return 3;
  if (gts <= 16) return 4;
  if (gts <= 32) return 5;
  return 6;
}

std::optional<std::string> FindKeyValue(std::string_view text,
                                        std::string_view key) {
  for (std::string_view line : Split(text, '\n')) {
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    if (Trim(line.substr(0, colon)) == key) {
      return std::string(Trim(line.substr(colon + 1)));
    }
  }
  return std::nullopt;
}

std::map<std::string, uint64_t> ParseMeminfo(std::string_view text) {
  std::map<std::string, uint64_t> out;
  for (std::string_view line : Split(text, '\n')) {
    // A node's meminfo starts with "Node 0 ".
    if (ConsumePrefix(&line, "Node ")) {
      const size_t space = line.find(' ');
      if (space == std::string_view::npos) continue;
      line.remove_prefix(space + 1);
    }
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    const std::vector<std::string_view> value = Tokens(line.substr(colon + 1));
    if (value.empty()) continue;
    const std::optional<uint64_t> n = ParseUint(value[0]);
    if (!n) continue;
    const bool kb = value.size() > 1 && value[1] == "kB";
    out[std::string(Trim(line.substr(0, colon)))] = kb ? *n * 1024 : *n;
  }
  return out;
}

std::optional<CpuTimes> ParseProcStatCpu(std::string_view text) {
  for (std::string_view line : Split(text, '\n')) {
    if (!std::string_view(line).starts_with("cpu ")) continue;
    const std::vector<std::string_view> t = Tokens(line);
    if (t.size() < 5) return std::nullopt;
    uint64_t v[8] = {};
    for (size_t i = 1; i < t.size() && i <= 8; ++i) {
      const std::optional<uint64_t> n = ParseUint(t[i]);
      if (!n) return std::nullopt;
      v[i - 1] = *n;
    }
    return CpuTimes{v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]};
  }
  return std::nullopt;
}

std::optional<uint64_t> FindProcStatValue(std::string_view text,
                                          std::string_view name) {
  for (std::string_view line : Split(text, '\n')) {
    const std::vector<std::string_view> t = Tokens(line);
    if (t.size() >= 2 && t[0] == name) return ParseUint(t[1]);
  }
  return std::nullopt;
}

std::optional<LoadAverage> ParseLoadavg(std::string_view text) {
  const std::vector<std::string_view> t = Tokens(Trim(text));
  if (t.size() < 4) return std::nullopt;
  LoadAverage l;
  const auto a = ParseDouble(t[0]);
  const auto b = ParseDouble(t[1]);
  const auto c = ParseDouble(t[2]);
  const size_t slash = t[3].find('/');
  if (!a || !b || !c || slash == std::string_view::npos) return std::nullopt;
  const auto running = ParseUint(t[3].substr(0, slash));
  const auto threads = ParseUint(t[3].substr(slash + 1));
  if (!running || !threads) return std::nullopt;
  l.load1 = *a;
  l.load5 = *b;
  l.load15 = *c;
  l.runnable = static_cast<uint32_t>(*running);
  l.threads = static_cast<uint32_t>(*threads);
  return l;
}

std::optional<Pressure> ParsePressure(std::string_view text) {
  for (std::string_view line : Split(text, '\n')) {
    if (!ConsumePrefix(&line, "some ")) continue;
    Pressure p;
    bool have10 = false;
    for (std::string_view field : Tokens(line)) {
      if (ConsumePrefix(&field, "avg10=")) {
        const auto v = ParseDouble(field);
        if (!v) return std::nullopt;
        p.some_avg10 = *v;
        have10 = true;
      } else if (ConsumePrefix(&field, "avg60=")) {
        p.some_avg60 = ParseDouble(field).value_or(0);
      }
    }
    if (have10) return p;
  }
  return std::nullopt;
}

std::optional<std::string> BracketedChoice(std::string_view text) {
  const size_t open = text.find('[');
  const size_t close = text.find(']', open);
  if (open == std::string_view::npos || close == std::string_view::npos) {
    return std::nullopt;
  }
  return std::string(text.substr(open + 1, close - open - 1));
}

std::optional<ResourceLimit> ParseLimit(std::string_view limits_text,
                                        std::string_view name) {
  for (std::string_view line : Split(limits_text, '\n')) {
    if (!ConsumePrefix(&line, name)) continue;
    const std::vector<std::string_view> t = Tokens(line);
    if (t.empty()) return std::nullopt;
    ResourceLimit l;
    if (t[0] == "unlimited") {
      l.unlimited = true;
      return l;
    }
    const std::optional<uint64_t> v = ParseUint(t[0]);
    if (!v) return std::nullopt;
    l.value = *v;
    return l;
  }
  return std::nullopt;
}

std::vector<MountEntry> ParseMountinfo(std::string_view text) {
  std::vector<MountEntry> mounts;
  for (std::string_view line : Split(text, '\n')) {
    // id parent major:minor root mount-point options [optional...] - type
    // source super-options
    const std::vector<std::string_view> t = Tokens(line);
    const auto dash = std::find(t.begin(), t.end(), "-");
    if (t.size() < 7 || dash == t.end() || dash - t.begin() < 6 ||
        t.end() - dash < 3) {
      continue;
    }
    MountEntry m;
    const std::string_view dev = t[2];
    const size_t colon = dev.find(':');
    if (colon == std::string_view::npos) continue;
    const auto major = ParseUint(dev.substr(0, colon));
    const auto minor = ParseUint(dev.substr(colon + 1));
    if (!major || !minor) continue;
    m.major = static_cast<uint32_t>(*major);
    m.minor = static_cast<uint32_t>(*minor);
    m.root = UnescapeProcText(t[3]);
    m.mount_point = UnescapeProcText(t[4]);
    m.mount_options = std::string(t[5]);
    m.fs_type = UnescapeProcText(dash[1]);
    m.source = UnescapeProcText(dash[2]);
    if (t.end() - dash > 3) m.super_options = std::string(dash[3]);
    mounts.push_back(std::move(m));
  }
  return mounts;
}

const MountEntry* MountOf(const std::vector<MountEntry>& mounts,
                          std::string_view path) {
  const MountEntry* best = nullptr;
  for (const MountEntry& m : mounts) {
    const std::string_view point = m.mount_point;
    const bool holds =
        point == "/" || path == point ||
        (std::string_view(path).starts_with(point) &&
         path.size() > point.size() && path[point.size()] == '/');
    // Later entries are mounted over earlier ones at the same point.
    if (holds &&
        (best == nullptr || point.size() >= best->mount_point.size())) {
      best = &m;
    }
  }
  return best;
}

std::string ParseNvidiaDriverVersion(std::string_view text) {
  for (std::string_view token : Words(text)) {
    if (!absl::ascii_isdigit(static_cast<unsigned char>(token[0]))) continue;
    const bool digits_and_dots =
        std::all_of(token.begin(), token.end(), [](char c) {
          return absl::ascii_isdigit(static_cast<unsigned char>(c)) || c == '.';
        });
    if (digits_and_dots &&
        (std::string_view(token).find('.') != std::string_view::npos)) {
      return std::string(token);
    }
  }
  return "";
}

}  // namespace feedprof::platform
