// An icicle graph of a role's folded stacks (RoleCodeProfile::stacks) as
// inline SVG: the stacks merged into one tree, the root on top, each
// frame's children in the row below, every box as wide as the time its
// frame was on the stack.
//
// Its own file because it is a layout of its own: html_report.cc lays out
// the page, code_location_html.cc the sections around the graph, this file
// turns up to kFoldedStacksKept stacks into a drawing of bounded size (at
// most kIcicleRows rows and kIcicleMaxBoxes boxes; narrower boxes are not
// drawn), so that a deep profile keeps the page small.
#ifndef FEEDPROF_REPORT_ICICLE_SVG_H_
#define FEEDPROF_REPORT_ICICLE_SVG_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "feedprof/analysis_report.h"

namespace feedprof::report {

// Geometry and bounds (pixels, boxes).
inline constexpr int kIcicleWidth = 1100;
inline constexpr int kIcicleRowH = 18;     // a box is one pixel less
inline constexpr size_t kIcicleRows = 40;  // the root and 39 frames
// Boxes narrower than this share of the root are not drawn.
inline constexpr double kIcicleMinShare = 0.001;
// At most this many boxes per graph; past it the narrowest are not drawn.
inline constexpr size_t kIcicleMaxBoxes = 2500;

// The colour of an icicle box: what its frame is (CodeFrameKind), or the
// root.
enum class BoxColour : uint8_t {
  kUser,      // a frame in the user's code (Python or native)
  kPython,    // the frameworks' and the standard library's Python, builtins
  kOperator,  // framework operators ("aten::mm")
  kCuda,      // CUDA runtime and driver calls, NCCL
  kNative,    // other native library frames, anything else
  kRoot,      // the role itself, and the lighter stacks not kept
};
inline constexpr int kBoxColours = 6;
const char* BoxColourHex(BoxColour kind);
const char* BoxColourLabel(BoxColour kind);

// The colour of a frame of the kind the analysis gave it.
BoxColour ColourOf(CodeFrameKind kind);

// A code location with its path cut to the file name: "forward
// (modeling_qwen2.py:150)" for "forward
// (transformers/…/modeling_qwen2.py:150)".
std::string ShortLocation(std::string_view label);

// `text` cut to what fits `width_px` in the 11-pixel monospace font of code
// labels (class "code" in an SVG), with an ellipsis when cut; empty when
// fewer than four characters fit.
inline constexpr const char* kCodeLabelCss =
    "svg .code{font:11px ui-monospace,\"DejaVu Sans Mono\",monospace;"
    "fill:#222}";
std::string FitCodeLabel(std::string_view text, double width_px);

// What a drawing left out, for the note under it.
struct IcicleSummary {
  size_t boxes = 0;      // drawn
  size_t narrow = 0;     // frames too narrow to draw
  size_t too_deep = 0;   // stacks deeper than the rows
  bool box_cap = false;  // kIcicleMaxBoxes was reached
  TimeNs min_ns = 0;     // the shortest box drawn
  TimeNs total_ns = 0;   // the root's time
  size_t rows = 0;       // rows drawn
};

// Appends the graph of `role` as <svg class="plot icicle" data-plot=
// `plot_id`>: one <rect> per box (x, width in pixels of kIcicleWidth for
// the root's time; data-ns its time; class "k<BoxColour>"), a <title>
// "location — time (share of the root)" and the label inside when it fits
// (cut with an ellipsis by an estimated character width). Every string is
// escaped.
// `frames` are the stacks' frames (HostCode::frames).
IcicleSummary AppendIcicle(const RoleCodeProfile& role,
                           const std::vector<CodeFrame>& frames,
                           std::string_view plot_id, std::string* out);

}  // namespace feedprof::report

#endif  // FEEDPROF_REPORT_ICICLE_SVG_H_
