// The replay pass (see replay_engine.h).
#include "replay/replay_engine.h"

#include <algorithm>
#include <limits>

namespace feedprof::replay {
namespace {

constexpr TimeNs kUnset = std::numeric_limits<TimeNs>::min();

TimeNs Edited(const std::vector<TimeNs>& v, size_t i, TimeNs recorded) {
  return !v.empty() && v[i] != ReplayEdits::kKeep ? v[i] : recorded;
}

// The moment a launching call submitted its op, in the replay: a point
// inside a non-blocking call moves with the call's length (a cheaper launch
// submits sooner); past the call's end, or in a blocking call, it keeps its
// distance from the call's start or end. `offset` is from the start of the
// call's recorded frame, `recorded` its length: a queue-held call's frame
// begins when its slot freed (ReplayModel::HeldStart).
TimeNs SubmittedAt(TimeNs recorded, TimeNs start, TimeNs end, TimeNs offset,
                   bool blocking) {
  if (blocking || offset < 0) return start + offset;
  if (offset <= recorded) {
    if (recorded <= 0) return start;
    const double f =
        static_cast<double>(offset) / static_cast<double>(recorded);
    return start + static_cast<TimeNs>(f * static_cast<double>(end - start));
  }
  return end + (offset - recorded);
}

// A non-blocking call's length in the replay: its edited length, or its
// recorded one; a queue-held call's time after its slot freed (no more
// with an edit).
TimeNs CallLength(const ReplayModel& model, const ReplayEdits& edits,
                  size_t i) {
  const ReplayCall& c = model.calls()[i];
  if (c.queue_held) {
    const TimeNs after_hold = model.waits()[c.wait].wake_ns;
    return std::min(after_hold, Edited(edits.call_ns, i, after_hold));
  }
  return Edited(edits.call_ns, i, c.end - c.start);
}

// A non-blocking call's end, or an op's: its replayed start (kUnset while
// the replay has not reached it) plus its edited length.
TimeNs CallEndAfter(const ReplayModel& model, const ReplayEdits& edits,
                    size_t i, TimeNs start) {
  return start == kUnset ? kUnset : start + CallLength(model, edits, i);
}
TimeNs OpEndAfter(const ReplayOp& op, const ReplayEdits& edits, size_t i,
                  TimeNs start) {
  return start == kUnset ? kUnset
                         : start + Edited(edits.op_ns, i, op.end - op.start);
}

// Call `i`'s replayed end; kUnset while the replay has not reached it.
TimeNs CallEndOrUnset(const ReplayModel& model, const ReplayEdits& edits,
                      const ReplayTimes& t, size_t i) {
  const ReplayCall& c = model.calls()[i];
  if (Blocking(c)) return t.wait_end[c.wait];
  return CallEndAfter(model, edits, i, t.call_start[i]);
}

}  // namespace

TimeNs ReplayedCallEnd(const ReplayModel& model, const ReplayEdits& edits,
                       const ReplayTimes& times, size_t i) {
  return CallEndOrUnset(model, edits, times, i);
}

TimeNs ReplayedOpEnd(const ReplayModel& model, const ReplayEdits& edits,
                     const ReplayTimes& times, size_t i) {
  return OpEndAfter(model.ops()[i], edits, i, times.op_start[i]);
}

void Replay(const ReplayModel& model, const ReplayEdits& edits,
            ReplayTimes* times) {
  const auto& calls = model.calls();
  const auto& ops = model.ops();
  ReplayTimes& t = *times;
  t.out_of_order = 0;
  t.call_start.assign(calls.size(), kUnset);
  t.wait_end.assign(model.waits().size(), kUnset);
  t.op_start.assign(ops.size(), kUnset);
  // A value a constraint needs, or the recorded one when the replay has
  // not reached it yet.
  auto op_end = [&](size_t k) {
    const TimeNs end = OpEndAfter(ops[k], edits, k, t.op_start[k]);
    if (end != kUnset) return end;
    ++t.out_of_order;
    return ops[k].end;
  };
  auto call_start = [&](size_t k) {
    if (t.call_start[k] != kUnset) return t.call_start[k];
    ++t.out_of_order;
    return calls[k].start;
  };
  auto call_end = [&](size_t k) {
    const TimeNs end = CallEndOrUnset(model, edits, t, k);
    if (end != kUnset) return end;
    ++t.out_of_order;
    return calls[k].end;
  };
  // A blocking call's end: after the last op it waits for, or after its
  // own cost when an edit lets it stop waiting.
  auto end_blocking = [&](size_t i) {
    const ReplayCall& c = calls[i];
    const ReplayWait& w = model.waits()[c.wait];
    const TimeNs start = t.call_start[i];
    const TimeNs no_wait = Edited(edits.no_wait_ns, c.wait, ReplayEdits::kKeep);
    if (no_wait != ReplayEdits::kKeep) return start + no_wait;
    TimeNs awaited = kUnset;
    for (uint32_t a = w.awaited_begin; a < w.awaited_end; ++a) {
      awaited = std::max(awaited, op_end(model.awaited()[a]));
    }
    if (c.blocked) return std::max(start, awaited) + w.wake_ns;
    return std::max(start + (c.end - c.start), awaited);
  };

  const std::vector<ReplayEvent>& order = model.order();
  for (const ReplayEvent& e : order) {
    // The events come in time order, so their calls and ops lie anywhere
    // in the model: each asks for the record of an event further on.
    if (const ReplayEvent* next = analysis::ElementAhead(order, e)) {
      if (next->kind() == ReplayEvent::Kind::kOpStart) {
        analysis::PrefetchRecord(&ops[next->index()]);
      } else {
        analysis::PrefetchRecord(&calls[next->index()]);
      }
    }
    const size_t i = e.index();
    switch (e.kind()) {
      case ReplayEvent::Kind::kCallStart: {
        const ReplayCall& c = calls[i];
        // A thread's first call moves by the host time cut before it
        // (scenarios.cc), the others by the cut from the gap before them.
        const TimeNs cut = Edited(edits.gap_cut_ns, i, 0);
        TimeNs start = c.start - cut;
        if (!c.first_of_thread) {
          start = call_end(i - 1) +
                  std::max<TimeNs>(0, c.start - calls[i - 1].end - cut);
        }
        // A call the full launch queue held starts once its slot frees.
        if (c.queue_held) {
          const ReplayWait& w = model.waits()[c.wait];
          start = std::max(start, op_end(model.awaited()[w.awaited_begin]));
        }
        t.call_start[i] = start;
        // A non-blocking call's end is its start plus its length
        // (CallEndOrUnset).
        if (Blocking(c) && c.end <= c.start) {
          t.wait_end[c.wait] = end_blocking(i);  // no end event of its own
        }
        break;
      }
      case ReplayEvent::Kind::kCallEnd: {
        if (t.call_start[i] == kUnset) {
          ++t.out_of_order;
          t.call_start[i] = calls[i].start;
        }
        t.wait_end[calls[i].wait] = end_blocking(i);
        break;
      }
      case ReplayEvent::Kind::kOpStart: {
        const ReplayOp& op = ops[i];
        TimeNs start = kUnset;
        if (op.fixed) {
          start = op.start;
        } else {
          if (op.call >= 0) {
            const auto k = static_cast<size_t>(op.call);
            const ReplayCall& c = calls[k];
            const bool blocks = Blocking(c);
            // A non-blocking call's end is known once it started.
            const TimeNs s = call_start(k);
            const TimeNs end = blocks ? s : call_end(k);
            const TimeNs frame = model.HeldStart(c);
            const TimeNs offset =
                c.queue_held
                    ? std::max<TimeNs>(0, op.launch_offset - (frame - c.start))
                    : op.launch_offset;
            start = std::max(
                start, SubmittedAt(c.end - frame, s, end, offset, blocks));
          }
          if (op.previous >= 0) {
            start = std::max(start, op_end(static_cast<size_t>(op.previous)) +
                                        op.previous_offset);
          }
          if (op.dependency >= 0) {
            start = std::max(start, op_end(static_cast<size_t>(op.dependency)) +
                                        op.dependency_offset);
          }
        }
        t.op_start[i] = start;  // its end: OpEndAfter
        break;
      }
    }
  }
}

TimeNs MapHostTime(const ReplayModel& model, const ReplayEdits& edits,
                   const ReplayTimes& times, uint32_t thread, TimeNs t) {
  const ReplayThread& th = model.threads()[thread];
  const auto& calls = model.calls();
  if (th.call_begin == th.call_end) return t;
  const auto first = calls.begin() + th.call_begin;
  const auto last = calls.begin() + th.call_end;
  // The first call ending after t.
  const auto it = std::upper_bound(
      first, last, t, [](TimeNs v, const ReplayCall& c) { return v < c.end; });
  if (it == last) {
    const auto k = static_cast<size_t>(th.call_end - 1);
    return ReplayedCallEnd(model, edits, times, k) + (t - calls[k].end);
  }
  const auto k = static_cast<size_t>(it - calls.begin());
  const TimeNs held = model.HeldStart(calls[k]);
  if (t >= held) {
    return times.call_start[k] +
           std::min(t - held, ReplayedCallEnd(model, edits, times, k) -
                                  times.call_start[k]);
  }
  if (t >= calls[k].start) {
    // Held by the launch queue: the hold ends where the replay starts it.
    const TimeNs mapped = times.call_start[k] - (held - t);
    return k == th.call_begin
               ? mapped
               : std::max(mapped, ReplayedCallEnd(model, edits, times, k - 1));
  }
  const TimeNs cut = Edited(edits.gap_cut_ns, k, 0);
  if (k == th.call_begin) return t - cut;  // moves with the first call
  const TimeNs kept = std::max<TimeNs>(0, model.GapBefore(k) - cut);
  return ReplayedCallEnd(model, edits, times, k - 1) +
         std::min(t - calls[k - 1].end, kept);
}

}  // namespace feedprof::replay
