// The icicle graph of a role's folded stacks (report/icicle_svg.h).
//
// The stacks are merged into a tree keyed by (parent, frame label); a box's
// time is the sum of the stacks through it, so a frame's box is as wide as
// its time on the stack and its children fit inside it (the gap at their
// right is the frame's own time). Which boxes are drawn is decided on the
// tree before any output, so the page's size is bounded by kIcicleMaxBoxes
// whatever the stacks.
#include "report/icicle_svg.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "common/units.h"
#include "report/svg_plot.h"

namespace feedprof::report {
namespace {

// Light fills, so that dark labels read on every one.
constexpr const char* kKindColors[kBoxColours] = {
    "#f5a25d",  // user code: orange
    "#a6cee3",  // frameworks' Python: light blue
    "#b2df8a",  // operators: light green
    "#cab2d6",  // CUDA calls: lavender
    "#dcdcc6",  // native libraries, other: beige-grey
    "#c8c8c8",  // root, the rest: grey
};
constexpr const char* kKindLabels[kBoxColours] = {
    "the user's code (Python or native)",
    "framework and standard-library Python, built-ins, modules",
    "framework operators (aten::…)",
    "CUDA and NCCL calls",
    "native libraries, other",
    "all threads of the role; stacks not kept",
};

// A monospace label's character width at 11 px (DejaVu Sans Mono's advance
// is 0.602 em; a little more, so that an estimate never overflows).
constexpr double kCharW = 6.8;
constexpr double kLabelPad = 3;

// "function (where)": `where`, or empty when the label has no such part.
std::string_view WherePart(std::string_view label) {
  if (label.size() < 4 || label.back() != ')') return {};
  const size_t open = label.rfind(" (");
  if (open == std::string_view::npos) return {};
  return label.substr(open + 2, label.size() - open - 3);
}

struct Node {
  std::string_view label;
  BoxColour kind = BoxColour::kRoot;
  TimeNs total = 0;
  uint32_t depth = 0;
  std::vector<int32_t> children;
};

}  // namespace

std::string ShortLocation(std::string_view label) {
  const std::string_view where = WherePart(label);
  const size_t slash = where.rfind('/');
  if (where.empty() || slash == std::string_view::npos) {
    return std::string(label);
  }
  const size_t where_at = label.size() - where.size() - 1;
  return absl::StrCat(std::string(label.substr(0, where_at)),
                      std::string(where.substr(slash + 1)), ")");
}

std::string FitCodeLabel(std::string_view text, double width_px) {
  const double room = (width_px - 2 * kLabelPad) / kCharW;
  if (room < 4) return "";
  const auto chars = static_cast<size_t>(room);
  // Byte offsets of the first `chars` characters' ends.
  size_t count = 0;
  size_t keep = 0;  // end of the first chars - 1 characters
  for (size_t i = 0; i <= text.size(); ++i) {
    const bool start = i == text.size() ||
                       (static_cast<unsigned char>(text[i]) & 0xC0) != 0x80;
    if (!start) continue;
    if (count == chars - 1) keep = i;
    if (count == chars) {
      return i == text.size() ? std::string(text)
                              : absl::StrCat(std::string(text.substr(0, keep)),
                                             "\xE2\x80\xA6");
    }
    ++count;
  }
  return std::string(text);
}

const char* BoxColourHex(BoxColour kind) {
  return kKindColors[static_cast<size_t>(kind)];
}
const char* BoxColourLabel(BoxColour kind) {
  return kKindLabels[static_cast<size_t>(kind)];
}

BoxColour ColourOf(CodeFrameKind kind) {
  switch (kind) {
    case CodeFrameKind::kUserCode:
      return BoxColour::kUser;
    case CodeFrameKind::kPython:
      return BoxColour::kPython;
    case CodeFrameKind::kOperator:
      return BoxColour::kOperator;
    case CodeFrameKind::kCudaCall:
      return BoxColour::kCuda;
    case CodeFrameKind::kNative:
      return BoxColour::kNative;
  }
  return BoxColour::kNative;
}

IcicleSummary AppendIcicle(const RoleCodeProfile& role,
                           const std::vector<CodeFrame>& frames,
                           std::string_view plot_id, std::string* out) {
  const std::string root_label =
      absl::StrCat("all ", ThreadRoleName(role.role), " threads");
  const std::string rest_label = absl::StrCat(
      "[stacks lighter than the ", role.stacks.size(), " heaviest, not kept]");
  IcicleSummary summary;
  // The merged tree; node 0 is the root.
  std::vector<Node> nodes(1);
  nodes[0].label = root_label;
  absl::flat_hash_map<std::pair<int32_t, std::string_view>, int32_t> index;
  auto child_of = [&](int32_t parent, std::string_view label, BoxColour kind) {
    const auto [it, added] = index.try_emplace(
        std::pair{parent, label}, static_cast<int32_t>(nodes.size()));
    if (added) {
      Node node;
      node.label = label;
      node.kind = kind;
      node.depth = nodes[static_cast<size_t>(parent)].depth + 1;
      nodes.push_back(std::move(node));
      nodes[static_cast<size_t>(parent)].children.push_back(it->second);
    }
    return it->second;
  };
  for (const FoldedStack& stack : role.stacks) {
    if (stack.self_ns <= 0) continue;
    nodes[0].total += stack.self_ns;
    int32_t at = 0;
    // Rows 1 .. kIcicleRows - 1 hold the outermost frames; the rest of a
    // deeper stack is not drawn.
    const size_t shown = std::min(stack.frames.size(), kIcicleRows - 1);
    if (shown < stack.frames.size()) ++summary.too_deep;
    for (size_t d = 0; d < shown; ++d) {
      const uint32_t f = stack.frames[d];
      at = f < frames.size()
               ? child_of(at, frames[f].label, ColourOf(frames[f].kind))
               : child_of(at, "?", BoxColour::kNative);
      nodes[static_cast<size_t>(at)].total += stack.self_ns;
    }
  }
  if (role.other_ns > 0) {
    nodes[0].total += role.other_ns;
    nodes[static_cast<size_t>(child_of(0, rest_label, BoxColour::kRoot))]
        .total += role.other_ns;
  }

  const TimeNs total = nodes[0].total;
  summary.total_ns = total;
  // Which boxes are drawn: those at least kIcicleMinShare of the root and,
  // past kIcicleMaxBoxes of them, the longest (ties to the one made first,
  // a caller before its callees). A callee is never longer than its
  // caller, so whatever is drawn has its caller drawn.
  const TimeNs min_ns = std::max<TimeNs>(
      1, static_cast<TimeNs>(
             std::ceil(static_cast<double>(total) * kIcicleMinShare)));
  std::vector<int32_t> wide;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const Node& n = nodes[i];
    if (n.total >= min_ns || i == 0) wide.push_back(static_cast<int32_t>(i));
  }
  if (wide.size() > kIcicleMaxBoxes) {
    std::nth_element(wide.begin(), wide.begin() + kIcicleMaxBoxes - 1,
                     wide.end(), [&nodes](int32_t a, int32_t b) {
                       const TimeNs ta = nodes[static_cast<size_t>(a)].total;
                       const TimeNs tb = nodes[static_cast<size_t>(b)].total;
                       return ta != tb ? ta > tb : a < b;
                     });
    wide.resize(kIcicleMaxBoxes);
    summary.box_cap = true;
  }
  std::vector<bool> drawn(nodes.size(), false);
  summary.min_ns = total;
  for (int32_t i : wide) {
    drawn[static_cast<size_t>(i)] = true;
    summary.min_ns =
        std::min(summary.min_ns, nodes[static_cast<size_t>(i)].total);
  }
  summary.narrow = nodes.size() - wide.size();

  // Lay out depth first, the longest child leftmost; x in ns from the
  // root's start.
  for (Node& n : nodes) {
    std::sort(n.children.begin(), n.children.end(),
              [&nodes](int32_t a, int32_t b) {
                const Node& na = nodes[static_cast<size_t>(a)];
                const Node& nb = nodes[static_cast<size_t>(b)];
                return na.total != nb.total ? na.total > nb.total
                                            : na.label < nb.label;
              });
  }
  const double scale =
      total > 0 ? kIcicleWidth / static_cast<double>(total) : 0;
  size_t deepest = 0;
  std::string body;
  std::vector<std::pair<int32_t, TimeNs>> todo = {{0, 0}};
  while (!todo.empty()) {
    const auto [id, x_ns] = todo.back();
    todo.pop_back();
    const Node& n = nodes[static_cast<size_t>(id)];
    if (!drawn[static_cast<size_t>(id)] || total <= 0) continue;
    ++summary.boxes;
    deepest = std::max<size_t>(deepest, n.depth);
    const double x = static_cast<double>(x_ns) * scale;
    const double w = static_cast<double>(n.total) * scale;
    const int y = static_cast<int>(n.depth) * kIcicleRowH;
    const BoxColour kind = id == 0 ? BoxColour::kRoot : n.kind;
    absl::StrAppend(&body, "<rect x=\"", Num(x, 2), "\" y=\"", y, "\" width=\"",
                    Num(w, 2), "\" height=\"", kIcicleRowH - 1, "\" class=\"k",
                    static_cast<int>(kind), "\" data-ns=\"", n.total,
                    "\"><title>");
    AppendEscaped(
        absl::StrCat(std::string(n.label), " \xE2\x80\x94 ",
                     common::FormatDuration(n.total), " (",
                     common::FormatPercent(static_cast<double>(n.total) /
                                           static_cast<double>(total)),
                     ")"),
        &body);
    body.append("</title></rect>");
    const std::string text = FitCodeLabel(
        id == 0 ? absl::StrCat(std::string(n.label), " \xE2\x80\x94 ",
                               common::FormatDuration(n.total))
                : ShortLocation(n.label),
        w);
    if (!text.empty()) {
      absl::StrAppend(&body, "<text x=\"", Num(x + kLabelPad), "\" y=\"",
                      y + kIcicleRowH - 5, "\">");
      AppendEscaped(text, &body);
      body.append("</text>");
    }
    // Children pushed right to left, so the leftmost is drawn first.
    TimeNs child_x = x_ns;
    std::vector<std::pair<int32_t, TimeNs>> placed;
    for (int32_t c : n.children) {
      placed.emplace_back(c, child_x);
      child_x += nodes[static_cast<size_t>(c)].total;
    }
    for (auto it = placed.rbegin(); it != placed.rend(); ++it) {
      todo.push_back(*it);
    }
  }
  summary.rows = total > 0 ? deepest + 1 : 0;
  const int height =
      std::max<int>(1, static_cast<int>(summary.rows)) * kIcicleRowH;
  absl::StrAppend(out, "<svg class=\"plot icicle\" data-plot=\"");
  AppendEscaped(plot_id, out);
  absl::StrAppend(out, "\" data-total-ns=\"", total, "\" data-boxes=\"",
                  summary.boxes, "\" width=\"", kIcicleWidth, "\" height=\"",
                  height, "\" viewBox=\"0 0 ", kIcicleWidth, " ", height,
                  "\"><style>svg.icicle text{font:11px ui-monospace,"
                  "\"DejaVu Sans Mono\",monospace;fill:#222;"
                  "pointer-events:none}svg.icicle rect{stroke:#fff;"
                  "stroke-width:.5}",
                  kCodeLabelCss);
  for (int k = 0; k < kBoxColours; ++k) {
    absl::StrAppend(out, "svg.icicle .k", k, "{fill:", kKindColors[k], "}");
  }
  out->append("</style>");
  out->append(body);
  out->append("</svg>");
  return summary;
}

}  // namespace feedprof::report
