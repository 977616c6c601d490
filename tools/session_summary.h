// What `feedprof record` says when the command it ran has ended.
//
// Like `nsys profile` printing its statistics: the session just recorded is
// analysed at once and its one-screen summary (verdict, evidence, next
// steps) printed, so the first answer needs no second command. The summary
// goes to stderr with feedprof's other lines, leaving the program's stdout
// to the program.
#ifndef FEEDPROF_TOOLS_SESSION_SUMMARY_H_
#define FEEDPROF_TOOLS_SESSION_SUMMARY_H_

#include <string>

namespace feedprof::cli {

// Analyses the session in `session_dir`, prints its summary to stderr and
// writes the HTML report to `session_dir`/report.html (never over an
// existing file). Never fails the recording: a session that cannot be
// analysed or a report that cannot be written gets one `feedprof:` line
// saying why.
void PrintSessionSummary(const std::string& session_dir);

}  // namespace feedprof::cli

#endif  // FEEDPROF_TOOLS_SESSION_SUMMARY_H_
