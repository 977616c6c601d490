// Where the program most likely reads its data: the mount of its working
// directory and those of the paths its command line names.
//
// Two parts of the recorder need these mounts: the platform snapshot
// writes them into the trace header (Platform.working_directory_mount and
// data_mounts), and the host sampler reads the I/O counters of their disks
// and NFS mounts (sample_collector.h). Both ask this one search, so the
// disks sampled are the ones the header describes. It runs inside the
// profiled process, the snapshot possibly on the small stack of a fork
// child: it allocates nothing, keeps about 7 KiB on the stack, and hands
// each mount to a callback instead of returning an array of them.
#ifndef FEEDPROF_PRELOAD_HOST_DATA_MOUNTS_H_
#define FEEDPROF_PRELOAD_HOST_DATA_MOUNTS_H_

#include <cstddef>

#include "preload/host/mount_lookup.h"

namespace feedprof::preload::host {

// Mounts of the command line's paths kept at most (the working directory's
// comes on top).
inline constexpr size_t kMaxDataMounts = 4;

struct DataMountSources {
  // Directory holding proc/ and sys/ ("/": this machine; a fixture tree in
  // tests).
  const char* root = "/";
  // The working directory (an absolute path as the root names it); null:
  // getcwd() on this machine, none under another root.
  const char* cwd = nullptr;
};

// Receives one mount: `path` is "." for the working directory's, else the
// command-line path it was found for (absolute, normalized).
using DataMountVisitor = void (*)(const char* path, bool working_directory,
                                  const MountFields& mount, void* context);

// Finds the mount of the working directory, then those of the directories
// (and files of 1 MiB or more) the command line names ("--data=/x" names
// /x; relative paths with a slash are taken from the working directory),
// each mount once and at most kMaxDataMounts of them, and calls `visit`
// with each, its block device filled in (ReadBlockDevice). Under a root
// other than "/", nothing comes from system calls: paths are looked up
// under the root and no device numbers are compared. `scratch` (at least
// 1 KiB) holds the mountinfo chunks being scanned. Returns how many mounts
// were visited.
size_t FindDataMounts(const DataMountSources& sources, char* scratch,
                      size_t scratch_bytes, DataMountVisitor visit,
                      void* context);

}  // namespace feedprof::preload::host

#endif  // FEEDPROF_PRELOAD_HOST_DATA_MOUNTS_H_
