// Tells when the files of a rank directory are not the ranks of one run
// (see rank_files_one_run_check.h).
#include "ingest/rank_files_one_run_check.h"

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/units.h"

namespace feedprof::ingest {
namespace {

template <typename Events>
void WidenByIntervals(const Events& events, RankFileFacts* f) {
  for (const auto& e : events) {
    f->time_range.Add(e.start, e.end);
  }
}

template <typename Events>
void WidenByInstants(const Events& events, RankFileFacts* f) {
  for (const auto& e : events) {
    f->time_range.Add(e.ts, e.ts);
  }
}

// "--rank 0 or --rank 1" when both files have one rank each and they
// differ: then --rank picks either file out; else empty.
std::string RankChoice(const RankFileFacts& a, const RankFileFacts& b) {
  if (a.ranks.size() != 1 || b.ranks.size() != 1 || a.ranks == b.ranks) {
    return std::string();
  }
  return absl::StrFormat(", or pass --rank %d or --rank %d", a.ranks[0],
                         b.ranks[0]);
}

// One warning per rank that more than one file claims, by rank, naming the
// files in name order ("a and b both say", "a, b and c all say"): eight
// copies of one rank's trace get one line, not seven.
void AddDuplicateRankWarnings(const std::vector<RankFileFacts>& files,
                              std::vector<std::string>* out) {
  std::map<int32_t, std::vector<std::string>> claims;
  for (const RankFileFacts& f : files) {
    for (int32_t rank : f.ranks) claims[rank].push_back(f.file);
  }
  for (const auto& [rank, names] : claims) {
    if (names.size() < 2) continue;
    const std::string who = absl::StrCat(
        ListWithAnd(names), names.size() == 2 ? " both say" : " all say");
    out->push_back(absl::StrFormat(
        "%s rank %d: the ranks of one run are distinct, so these files are "
        "probably not one run (the same rank recorded %s, or traces of "
        "different runs); analyse them one at a time (feedprof analyze "
        "FILE): --rank %d would take %s",
        who, rank, names.size() == 2 ? "twice" : "more than once", rank,
        names.size() == 2 ? "both" : "all of them"));
  }
}

void AddTimeGapWarnings(const std::vector<RankFileFacts>& files,
                        std::vector<std::string>* out) {
  std::vector<size_t> order;
  for (size_t i = 0; i < files.size(); ++i) {
    if (files[i].time_range.any) order.push_back(i);
  }
  // By start, then file-name order: the sweep below is the same each time.
  std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) {
    return files[x].time_range.first < files[y].time_range.first;
  });
  if (order.empty()) return;
  // The file that ends last among those seen: a later-starting file that
  // begins after it is separated from every one seen by a gap.
  const RankFileFacts* last_to_end = &files[order[0]];
  for (size_t k = 1; k < order.size(); ++k) {
    const RankFileFacts& f = files[order[k]];
    if (f.time_range.first > last_to_end->time_range.last) {
      out->push_back(absl::StrFormat(
          "%s ends %s before %s starts: the ranks of one run overlap in "
          "time, so these files are probably not one run (or their clocks "
          "disagree by that much), and the totals across them (the window, "
          "GPU busy shares) are not one run's; analyse them one at a "
          "time%s",
          last_to_end->file,
          common::FormatDuration(f.time_range.first -
                                 last_to_end->time_range.last),
          f.file, RankChoice(*last_to_end, f)));
    }
    if (f.time_range.last > last_to_end->time_range.last) last_to_end = &f;
  }
}

}  // namespace

std::string ListWithAnd(const std::vector<std::string>& items) {
  if (items.size() < 2) return items.empty() ? std::string() : items[0];
  return absl::StrCat(absl::StrJoin(items.begin(), items.end() - 1, ", "),
                      " and ", items.back());
}

RankFileFacts FactsOfRankFile(const Timeline& t, const std::string& file) {
  RankFileFacts f;
  f.file = file;
  for (const Process& p : t.processes) {
    if (p.rank >= 0) f.ranks.push_back(p.rank);
    // A process the reader found no extent for keeps [0, 0]: no time.
    if (p.end > p.start) {
      f.time_range.Add(p.start, p.end);
    }
  }
  std::sort(f.ranks.begin(), f.ranks.end());
  f.ranks.erase(std::unique(f.ranks.begin(), f.ranks.end()), f.ranks.end());
  WidenByIntervals(t.gpu_ops, &f);
  WidenByIntervals(t.api_calls, &f);
  WidenByIntervals(t.syncs, &f);
  WidenByIntervals(t.ranges, &f);
  WidenByInstants(t.marks, &f);
  WidenByInstants(t.counters, &f);
  return f;
}

std::vector<std::string> NotOneRunWarnings(
    const std::vector<RankFileFacts>& files) {
  std::vector<std::string> out;
  AddDuplicateRankWarnings(files, &out);
  AddTimeGapWarnings(files, &out);
  return out;
}

}  // namespace feedprof::ingest
