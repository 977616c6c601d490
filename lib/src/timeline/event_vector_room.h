// Makes room in a large file's event vectors ahead of the reader that
// appends to them.
//
// Why: a reader of a gigabyte file appends tens of millions of events on
// one thread, the thread the whole read waits for. Left to themselves the
// vectors grow by doubling, which copies each several times and touches
// about twice the memory it ends up holding; and every first write to a
// page of fresh memory stops that thread while the system zeroes the page
// (on the development VM a third of a 1 GB `.fpt` file's read). So once a
// sixteenth of the file is read, each vector gets room for the rest at the
// events per byte seen so far (plus 5 %), and a thread of its own
// (common/page_prefaulter.h) faults that room in a little ahead of the
// vector's end (16 MiB, and at most an eighth of what the vector holds),
// never past the size the vector should reach. Room reserved
// and never filled costs address space, not memory; pages faulted in and
// never filled are given back when the read ends.
//
// The Kineto and the feedprof readers both use it, with the same figures;
// the Nsight reader, which knows each table's rows before it reads them,
// reserves the vectors itself and has their room faulted in the same way.
#ifndef FEEDPROF_LIB_SRC_READERS_EVENT_VECTOR_ROOM_H_
#define FEEDPROF_LIB_SRC_READERS_EVENT_VECTOR_ROOM_H_

#include <cstdint>
#include <optional>

#include "common/page_prefaulter.h"
#include "feedprof/timeline.h"

namespace feedprof::timeline {

class EventVectorRoom {
 public:
  // Files from this size on get room reserved and faulted in.
  static constexpr uint64_t kFromFileBytes = uint64_t{64} << 20;

  // `timeline` is the one the reader fills from a file of `file_bytes`.
  EventVectorRoom(Timeline* timeline, uint64_t file_bytes);

  // Update looks at the vectors once per this many bytes of the file: a
  // reader may call it after every event (a Kineto rank file read on one
  // thread beside the others), and looking at nine vectors each time took
  // a tenth of the CPU of a directory of eight rank files.
  static constexpr uint64_t kUpdateEveryBytes = uint64_t{128} << 10;

  // After the reader appended what the first `bytes_read` of the file
  // hold.
  void Update(uint64_t bytes_read);
  // For a reader that reserves the vectors itself, from counts it knows
  // before it reads (an Nsight export's tables), instead of calling
  // Update: faults in each vector's room, up to its capacity, ahead of its
  // end. Call as the reader appends.
  void FaultInReserved();
  // The reader appends no more: stops faulting in and gives back the pages
  // of room faulted in past each vector's end.
  void Finish();

 private:
  Timeline* timeline_;
  uint64_t file_bytes_;
  uint64_t reserve_at_;
  uint64_t next_update_ = 1;  // Update does nothing before this
  std::optional<common::PagePrefaulter> prefaulter_;
};

}  // namespace feedprof::timeline

#endif  // FEEDPROF_LIB_SRC_READERS_EVENT_VECTOR_ROOM_H_
