#include "platform/file_system_kind.h"

namespace feedprof::platform {

FileSystemKind FileSystemKindOf(std::string_view fs_type) {
  for (std::string_view t :
       {"nfs", "nfs4", "cifs", "smb3", "smbfs", "ceph", "glusterfs", "lustre",
        "beegfs", "gpfs", "9p", "afs", "virtiofs"}) {
    if (fs_type == t) return FileSystemKind::kNetwork;
  }
  if (fs_type == "fuse" || fs_type.starts_with("fuse.") ||
      fs_type == "fuseblk") {
    return FileSystemKind::kUserSpace;
  }
  if (fs_type == "overlay") return FileSystemKind::kOverlay;
  if (fs_type == "tmpfs" || fs_type == "ramfs") return FileSystemKind::kMemory;
  return FileSystemKind::kLocal;
}

}  // namespace feedprof::platform
