// The first bytes that identify the file formats feedprof reads.
//
// Format detection and the readers themselves both look at these bytes: the
// loader to pick a reader, the Kineto reader to decide whether to inflate,
// the Nsight reader to refuse a file that is no database. One definition
// keeps them agreeing on what each format starts with.
#ifndef FEEDPROF_COMMON_FILE_MAGIC_H_
#define FEEDPROF_COMMON_FILE_MAGIC_H_

#include <string_view>

namespace feedprof::common {

// The 16-byte header of every SQLite 3 database, NUL included.
inline constexpr std::string_view kSqliteMagic{"SQLite format 3\0", 16};

// Every gzip member starts with these two bytes (RFC 1952).
inline constexpr std::string_view kGzipMagic{"\x1f\x8b", 2};

// Every feedprof rank digest file (`feedprof digest`) starts with these.
inline constexpr std::string_view kRankDigestMagic = "feedprof-digest\n";

inline bool StartsWithSqliteMagic(std::string_view bytes) {
  return bytes.starts_with(kSqliteMagic);
}

inline bool StartsWithGzipMagic(std::string_view bytes) {
  return bytes.starts_with(kGzipMagic);
}

}  // namespace feedprof::common

#endif  // FEEDPROF_COMMON_FILE_MAGIC_H_
