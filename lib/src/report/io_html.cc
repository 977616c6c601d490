#include "report/io_html.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/rounded_units.h"
#include "common/units.h"
#include "report/svg_plot.h"

namespace feedprof::report {
namespace {

constexpr const char* kNotAvailable = "not available";

std::string Ms(const std::optional<double>& ms) {
  return ms ? absl::StrFormat("%.2f ms", *ms) : std::string(kNotAvailable);
}

// What the pattern means, in the words the next steps use.
const char* PatternMeaning(IoPattern p) {
  switch (p) {
    case IoPattern::kSmallReads:
      return "small reads served by storage: packing samples into shards "
             "comes first";
    case IoPattern::kLargeReads:
      return "large reads served by storage: faster storage or a local "
             "cache comes first";
    case IoPattern::kNetworkFs:
      return "the data is on a network file system: staging it locally "
             "comes first";
    case IoPattern::kPageCache:
      return "the page cache served the reads: storage is not what the "
             "readers waited for";
    case IoPattern::kUnknown:
      break;
  }
  return "too few reads to tell a pattern";
}

}  // namespace

void AppendIoSection(const IoReport& io, std::string* out) {
  out->append("<h2 id=\"io\">How the input was read</h2>");
  if (!io.available) {
    absl::StrAppend(out, "<p>", kNotAvailable, ": ",
                    Escaped(io.unavailable_reason), ".</p>");
    return;
  }
  absl::StrAppend(out, "<p>Read pattern <b>", IoPatternName(io.pattern),
                  "</b>: ", PatternMeaning(io.pattern),
                  ". Read calls and their bytes from each process's "
                  "<code>/proc/PID/io</code> over the analysed window",
                  io.steps > 0
                      ? absl::StrCat(", per step over ", io.steps, " steps")
                      : std::string(),
                  ".</p>");
  if (io.includes_profiler_io) {
    out->append(
        "<p class=\"note\">Recorded before feedprof counted its own calls: "
        "the figures include its sampler's <code>/proc</code> reads (hundreds "
        "a second) and its trace writes.</p>");
  }
  out->append(
      "<table class=\"num\" id=\"io-roles\"><tr><th>role</th>"
      "<th>processes</th><th>reads</th><th>reads/s</th><th>reads/step</th>"
      "<th>bytes/step</th><th>average read</th><th>from storage</th>"
      "<th>writes</th><th>bytes written</th></tr>");
  for (const RoleIo& r : io.roles) {
    absl::StrAppend(out, "<tr data-role=\"", IoRoleName(r.role), "\"><td>",
                    IoRoleName(r.role), "</td><td>", r.processes, "</td><td>",
                    common::FormatCount(r.reads), "</td><td>",
                    common::FormatRoundedCount(r.reads_per_s), "</td><td>",
                    r.reads_per_step
                        ? common::FormatRoundedCount(*r.reads_per_step)
                        : std::string(kNotAvailable),
                    "</td><td>",
                    r.read_bytes_per_step
                        ? common::FormatRoundedBytes(*r.read_bytes_per_step)
                        : std::string(kNotAvailable),
                    "</td><td>", common::FormatRoundedBytes(r.mean_read_bytes),
                    "</td><td>", common::FormatPercent(r.storage_share),
                    r.mapped_reads ? " + memory maps" : "", "</td><td>",
                    common::FormatCount(r.writes), "</td><td>",
                    common::FormatBytes(r.write_chars), "</td></tr>");
  }
  if (io.roles.empty()) {
    out->append("<tr><td colspan=\"10\">no reads in the window</td></tr>");
  }
  out->append("</table>");
  if (!io.disks.empty()) {
    out->append(
        "<h3>Disks under the data</h3><p class=\"note\">From "
        "<code>/proc/diskstats</code>: the whole disk, every process's I/O "
        "to it counts.</p><table class=\"num\" id=\"io-disks\"><tr>"
        "<th>disk</th><th>holding</th><th>reads/s</th><th>average read</th>"
        "<th>read latency (r_await)</th><th>busy (%util)</th>"
        "<th>most in flight</th><th>bytes read</th><th>bytes written</th>"
        "</tr>");
    for (const DiskIo& d : io.disks) {
      absl::StrAppend(
          out, "<tr><td>", Escaped(d.device), "</td><td class=\"name\">",
          Escaped(d.mount_point), "</td><td>",
          common::FormatRoundedCount(d.reads_per_s), "</td><td>",
          common::FormatRoundedBytes(d.mean_read_bytes), "</td><td>",
          Ms(d.read_await_ms), "</td><td>",
          common::FormatPercent(d.utilization), "</td><td>", d.max_in_flight,
          "</td><td>", common::FormatBytes(d.read_bytes), "</td><td>",
          common::FormatBytes(d.write_bytes), "</td></tr>");
    }
    out->append("</table>");
  } else if (!io.disks_unavailable_reason.empty()) {
    absl::StrAppend(out, "<p class=\"note\">Disks: ", kNotAvailable, " (",
                    Escaped(io.disks_unavailable_reason), ").</p>");
  }
  if (!io.network_fs.empty()) {
    out->append(
        "<h3>Network file systems</h3><p class=\"note\">From "
        "<code>/proc/self/mountstats</code>: the client's RPCs to the "
        "server.</p><table class=\"num\" id=\"io-network-fs\"><tr>"
        "<th>mount</th><th>source</th><th>RPCs</th><th>retransmitted</th>"
        "<th>timed out</th><th>round trip</th><th>READ RPCs</th>"
        "<th>bytes read</th></tr>");
    for (const NetworkFsIo& n : io.network_fs) {
      absl::StrAppend(
          out, "<tr><td class=\"name\">", Escaped(n.mount_point),
          "</td><td class=\"name\">", Escaped(n.fs_type), " ",
          Escaped(n.source), "</td><td>", common::FormatCount(n.ops),
          "</td><td>", common::FormatCount(n.retransmissions), "</td><td>",
          common::FormatCount(n.major_timeouts), "</td><td>", Ms(n.mean_rtt_ms),
          "</td><td>", common::FormatCount(n.read_ops), "</td><td>",
          common::FormatBytes(n.read_bytes), "</td></tr>");
    }
    out->append("</table>");
  }
}

}  // namespace feedprof::report
