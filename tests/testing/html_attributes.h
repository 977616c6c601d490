// Reads back what an HTML page (report or diff) states in its data-*
// attributes, so tests compare it with the JSON of the same model.
#ifndef FEEDPROF_TESTS_TESTING_HTML_ATTRIBUTES_H_
#define FEEDPROF_TESTS_TESTING_HTML_ATTRIBUTES_H_

#include <regex>
#include <string>
#include <vector>

namespace feedprof::testing {

// The value of attribute `name` in every element that has it, in order.
inline std::vector<std::string> Attributes(const std::string& html,
                                           const std::string& name) {
  std::vector<std::string> out;
  const std::regex re(" " + name + "=\"([^\"]*)\"");
  for (auto it = std::sregex_iterator(html.begin(), html.end(), re);
       it != std::sregex_iterator(); ++it) {
    out.push_back((*it)[1]);
  }
  return out;
}

}  // namespace feedprof::testing

#endif  // FEEDPROF_TESTS_TESTING_HTML_ATTRIBUTES_H_
