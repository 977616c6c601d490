// Implements command_line.h.
#include "tools/command_line.h"

#include <cstdio>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace feedprof::cli {
namespace {

// CLI11's layout with the usage line first and spelled the way the rest of
// feedprof's messages are ("usage: feedprof analyze PATH [options]").
class HelpFormatter : public CLI::Formatter {
 public:
  HelpFormatter(std::string synopsis, std::string description)
      : synopsis_(std::move(synopsis)), description_(std::move(description)) {
    column_width(28);
  }

  std::string make_usage(const CLI::App*, std::string name) const override {
    return "usage: " + name + (synopsis_.empty() ? "" : " " + synopsis_) + "\n";
  }

  std::string make_help(const CLI::App* app, std::string name,
                        CLI::AppFormatMode mode) const override {
    if (mode == CLI::AppFormatMode::Sub) return make_expanded(app);
    std::ostringstream out;
    out << make_usage(app, name) << "\n";
    const std::string description =
        description_.empty() ? app->get_description() : description_;
    if (!description.empty()) out << description << "\n";
    out << make_positionals(app) << make_groups(app, mode)
        << make_subcommands(app, mode);
    const std::string footer = make_footer(app);
    if (!footer.empty()) out << "\n" << footer;
    return out.str();
  }

 private:
  std::string synopsis_;
  std::string description_;  // the command's own paragraph
};

// "feedprof analyze" for an error inside a subcommand, else "feedprof".
std::string CommandName(const CLI::App& root) {
  std::string name = root.get_name();
  for (const CLI::App* sub : root.get_subcommands()) {
    name += " " + sub->get_name();
  }
  return name;
}

// The words the chosen command's parser left over.
std::vector<std::string> Leftovers(const CLI::App& root) {
  const CLI::App* app = &root;
  while (!app->get_subcommands().empty()) app = app->get_subcommands()[0];
  return app->remaining();
}

bool IsOptionWord(const std::string& word) {
  return word.size() > 1 && word[0] == '-';
}

int ReportUsageError(const CLI::App& root, const std::string& problem) {
  const std::string name = CommandName(root);
  std::fprintf(stderr, "%s: %s\nRun '%s --help' for the options.\n",
               name.c_str(), problem.c_str(), name.c_str());
  return kExitUsage;
}

}  // namespace

void ConfigureRootApp(CLI::App& app, const std::string& version) {
  app.formatter(std::make_shared<HelpFormatter>("<command> [options]", ""));
  app.set_version_flag("--version", "feedprof " + version,
                       "Print the version and exit");
  app.set_help_flag("-h,--help", "Print this help and exit");
  app.require_subcommand(1);
  app.footer("Run 'feedprof <command> --help' for the options of one command.");
}

CLI::App* AddCommand(CLI::App& root, const std::string& name,
                     const std::string& synopsis, const std::string& summary,
                     const std::string& description,
                     const std::string& footer) {
  CLI::App* sub = root.add_subcommand(name, summary);
  sub->formatter(std::make_shared<HelpFormatter>(synopsis, description));
  sub->set_help_flag("-h,--help", "Print this help and exit");
  if (!footer.empty()) sub->footer(footer);
  return sub;
}

CLI::Validator Check(std::function<std::string(const std::string&)> check) {
  return CLI::Validator(
      [check = std::move(check)](std::string& value) { return check(value); },
      "");
}

int RunCommandLine(CLI::App& root, int argc, char** argv,
                   const int& command_exit_code) {
  if (argc < 2) {
    std::fputs(root.help().c_str(), stderr);
    return kExitUsage;
  }
  // An unknown word where the command goes is named as such (CLI11 would
  // call it an unexpected argument).
  const std::string first = argv[1];
  if (!first.empty() && first[0] != '-') {
    bool known = false;
    for (const CLI::App* sub : root.get_subcommands({})) {
      known |= sub->check_name(first);
    }
    if (!known) {
      std::fprintf(stderr,
                   "feedprof: unknown command '%s'\n"
                   "Run 'feedprof --help' for the commands.\n",
                   first.c_str());
      return kExitUsage;
    }
  }
  try {
    root.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return root.exit(e, std::cout, std::cerr);
  } catch (const CLI::CallForAllHelp& e) {
    return root.exit(e, std::cout, std::cerr);
  } catch (const CLI::CallForVersion& e) {
    return root.exit(e, std::cout, std::cerr);
  } catch (const CLI::ExtrasError& e) {
    // Words no option or positional took: name the first one.
    const std::vector<std::string> extra = Leftovers(root);
    std::string problem = e.what();
    if (!extra.empty()) {
      problem = (IsOptionWord(extra[0]) ? "unknown option '"
                                        : "unexpected argument '") +
                extra[0] + "'";
    }
    return ReportUsageError(root, problem);
  } catch (const CLI::RequiredError& e) {
    // CLI11 checks required options before leftovers; an unknown option
    // is the first thing to fix (it may be a misspelt required one).
    for (const std::string& word : Leftovers(root)) {
      if (IsOptionWord(word)) {
        return ReportUsageError(root, "unknown option '" + word + "'");
      }
    }
    return ReportUsageError(root, e.what());
  } catch (const CLI::ArgumentMismatch& e) {
    // CLI11 says "--format: 1 required TEXT:{text,json} missing".
    const std::string what = e.what();
    const size_t colon = what.find(':');
    return ReportUsageError(
        root, colon != std::string::npos && what.rfind("-", 0) == 0 &&
                      what.find("missing") != std::string::npos
                  ? what.substr(0, colon) + " needs a value"
                  : what);
  } catch (const CLI::ParseError& e) {
    return ReportUsageError(root, e.what());
  }
  return command_exit_code;
}

}  // namespace feedprof::cli
