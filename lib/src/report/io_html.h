// The HTML report's "How the input was read" section (Report::io): a row
// per reading role (read calls, their sizes, the share from storage), a row
// per disk under the data (iostat's figures), a row per network file
// system (its RPCs, retransmissions and round trips), and the read pattern
// that orders the I/O next steps.
//
// Its own file because it is its own reading: the I/O evidence behind an
// io_bound verdict, next to the host threads' D-state.
#ifndef FEEDPROF_REPORT_IO_HTML_H_
#define FEEDPROF_REPORT_IO_HTML_H_

#include <string>

#include "feedprof/analysis_report.h"

namespace feedprof::report {

// Appends the section, heading included; one line with the reason where
// the trace has no I/O counters.
void AppendIoSection(const IoReport& io, std::string* out);

}  // namespace feedprof::report

#endif  // FEEDPROF_REPORT_IO_HTML_H_
