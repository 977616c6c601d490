// A strict JSON checker for the report tests: it parses a writer's output
// (failing on anything JSON does not allow) and records the path of every
// member, with array elements as "[]" ("devices[].gaps.histogram.le_10us"),
// and the last scalar seen at each path.
#ifndef FEEDPROF_TESTS_REPORT_JSON_PATHS_H_
#define FEEDPROF_TESTS_REPORT_JSON_PATHS_H_

#include <cctype>
#include <cstdlib>
#include <map>
#include <set>
#include <string>

namespace feedprof::testing {

class JsonPaths {
 public:
  bool Parse(const std::string& text) {
    s_ = text;
    i_ = 0;
    if (!Value("")) return false;
    Space();
    return i_ == s_.size();
  }
  const std::set<std::string>& paths() const { return paths_; }
  const std::map<std::string, std::string>& scalars() const { return scalars_; }

 private:
  void Space() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) {
      ++i_;
    }
  }
  bool String(std::string* out) {
    if (s_[i_] != '"') return false;
    ++i_;
    while (i_ < s_.size() && s_[i_] != '"') {
      if (s_[i_] == '\\') {
        ++i_;
        if (i_ >= s_.size()) return false;
        if (s_[i_] == 'u') {
          i_ += 4;
        } else if (std::string("\"\\/bfnrt").find(s_[i_]) ==
                   std::string::npos) {
          return false;
        }
      } else if (static_cast<unsigned char>(s_[i_]) < 0x20) {
        return false;
      }
      out->push_back(s_[i_]);
      ++i_;
    }
    if (i_ >= s_.size()) return false;
    ++i_;
    return true;
  }
  bool Value(const std::string& path) {
    Space();
    if (i_ >= s_.size()) return false;
    const char c = s_[i_];
    if (c == '{') {
      ++i_;
      Space();
      if (s_[i_] == '}') {
        ++i_;
        return true;
      }
      while (true) {
        Space();
        std::string key;
        if (!String(&key)) return false;
        Space();
        if (s_[i_++] != ':') return false;
        const std::string child = path.empty() ? key : path + "." + key;
        paths_.insert(child);
        if (!Value(child)) return false;
        Space();
        if (s_[i_] == ',') {
          ++i_;
          continue;
        }
        if (s_[i_] == '}') {
          ++i_;
          return true;
        }
        return false;
      }
    }
    if (c == '[') {
      ++i_;
      Space();
      if (s_[i_] == ']') {
        ++i_;
        return true;
      }
      while (true) {
        if (!Value(path + "[]")) return false;
        Space();
        if (s_[i_] == ',') {
          ++i_;
          continue;
        }
        if (s_[i_] == ']') {
          ++i_;
          return true;
        }
        return false;
      }
    }
    const size_t start = i_;
    if (c == '"') {
      std::string v;
      if (!String(&v)) return false;
      scalars_[path] = v;
      return true;
    }
    while (i_ < s_.size() &&
           (std::isalnum(static_cast<unsigned char>(s_[i_])) || s_[i_] == '-' ||
            s_[i_] == '+' || s_[i_] == '.')) {
      ++i_;
    }
    const std::string token = s_.substr(start, i_ - start);
    if (token.empty()) return false;
    if (token != "true" && token != "false" && token != "null") {
      char* end = nullptr;
      std::strtod(token.c_str(), &end);
      if (end != token.c_str() + token.size()) return false;
    }
    scalars_[path] = token;
    return true;
  }
  std::string s_;
  size_t i_ = 0;
  std::set<std::string> paths_;
  std::map<std::string, std::string> scalars_;
};

}  // namespace feedprof::testing

#endif  // FEEDPROF_TESTS_REPORT_JSON_PATHS_H_
