// Makes a packet with invalid UTF-8 in its string fields parseable again.
//
// proto3 `string` fields must hold valid UTF-8 and libprotobuf rejects the
// whole message when one does not. The recording side copies names from the
// traced program (thread names truncated mid-character, argv in a legacy
// encoding), so a single stray byte would otherwise cost a whole packet —
// possibly the file's header. This re-encodes the packet with every invalid
// byte of every `string` field replaced by U+FFFD, guided by the message
// descriptors, and leaves all other bytes as they were.
#ifndef FEEDPROF_FPT_STRING_FIELD_REPAIR_H_
#define FEEDPROF_FPT_STRING_FIELD_REPAIR_H_

#include <cstddef>
#include <string>
#include <string_view>

#include "google/protobuf/descriptor.h"

namespace feedprof::fpt {

// Re-encodes the wire bytes `in` of a message of type `type` into `out`.
// Returns the number of string fields that needed repair, or -1 when `in`
// is not well-formed wire format (then `out` is unspecified).
int RepairStringFields(const google::protobuf::Descriptor& type,
                       std::string_view in, std::string* out);

}  // namespace feedprof::fpt

#endif  // FEEDPROF_FPT_STRING_FIELD_REPAIR_H_
