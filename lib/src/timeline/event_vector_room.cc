#include "timeline/event_vector_room.h"

#include <algorithm>
#include <cstddef>
#include <type_traits>
#include <vector>

#include "common/release_pages.h"

namespace feedprof::timeline {
namespace {

// The event vectors a reader appends to in bulk, one prefaulter slot each.
constexpr size_t kBulkVectors = 11;

// Calls `visit(vector)` on each of them, in slot order.
template <typename Visit>
void ForEachBulkVector(Timeline& t, Visit visit) {
  visit(t.gpu_ops);
  visit(t.api_calls);
  visit(t.syncs);
  visit(t.ranges);
  visit(t.marks);
  visit(t.thread_samples);
  visit(t.process_samples);
  visit(t.system_samples);
  visit(t.disk_samples);
  visit(t.nfs_samples);
  visit(t.counters);
}

template <typename T>
using ValueOf = typename std::decay_t<T>::value_type;

// Asks `prefaulter` to fault in the room of `events` (in `slot`) up to
// `room` events, and never more than an eighth of what it holds past its
// end: where the events are not spread evenly through the file (a Kineto
// trace lists a step's CPU ops before its kernels), the size a vector
// should reach runs ahead of the truth for a while, and pages faulted in
// past its final end would count in the peak until the read ends.
template <typename Vector>
void FaultInAhead(common::PagePrefaulter& prefaulter, size_t slot,
                  const Vector& events, size_t room) {
  using T = ValueOf<Vector>;
  const size_t used = events.size();
  prefaulter.Ahead(slot, events.data(), used * sizeof(T),
                   std::min(room, used + used / 8) * sizeof(T));
}

}  // namespace

EventVectorRoom::EventVectorRoom(Timeline* timeline, uint64_t file_bytes)
    : timeline_(timeline),
      file_bytes_(file_bytes),
      reserve_at_(file_bytes >= kFromFileBytes ? file_bytes / 16 : UINT64_MAX) {
}

void EventVectorRoom::Update(uint64_t bytes_read) {
  if (bytes_read < next_update_ || bytes_read >= file_bytes_) return;
  next_update_ = bytes_read + kUpdateEveryBytes;
  const double scale =
      static_cast<double>(file_bytes_) / static_cast<double>(bytes_read);
  if (bytes_read >= reserve_at_) {
    reserve_at_ = UINT64_MAX;
    ForEachBulkVector(*timeline_, [scale](auto& events) {
      const double wanted = static_cast<double>(events.size()) * scale * 1.05;
      if (wanted > static_cast<double>(events.capacity())) {
        events.reserve(static_cast<size_t>(wanted));
      }
    });
    prefaulter_.emplace(kBulkVectors);
  }
  if (!prefaulter_) return;
  size_t slot = 0;
  ForEachBulkVector(*timeline_, [&](auto& events) {
    // Up to the size the vector should end at, not into the 5 % margin,
    // so that nearly every page faulted in gets filled.
    const auto expected =
        static_cast<size_t>(static_cast<double>(events.size()) * scale);
    FaultInAhead(*prefaulter_, slot++, events,
                 std::min(events.capacity(), expected));
  });
}

void EventVectorRoom::FaultInReserved() {
  if (file_bytes_ < kFromFileBytes) return;
  if (!prefaulter_) prefaulter_.emplace(kBulkVectors);
  size_t slot = 0;
  ForEachBulkVector(*timeline_, [&](auto& events) {
    FaultInAhead(*prefaulter_, slot++, events, events.capacity());
  });
}

void EventVectorRoom::Finish() {
  reserve_at_ = UINT64_MAX;
  if (!prefaulter_) return;
  prefaulter_.reset();
  ForEachBulkVector(*timeline_, [](auto& events) {
    common::ReleaseWholePages(events.data() + events.size(),
                              events.data() + events.capacity());
  });
}

}  // namespace feedprof::timeline
