// Inflates gzip members, with ISA-L's igzip where feedprof was built with
// it and zlib otherwise.
//
// Why two: a `.json.gz` trace is read no faster than it inflates, and on a
// Kineto trace ISA-L's inflate (libisal, Intel's SIMD implementation) is
// about three times faster than zlib's (bench/bigtrace/inflate_bench).
// zlib stays as the fallback: every Debian system has it, a build without
// libisal-dev uses it, and FEEDPROF_INFLATE=zlib selects it at run time (to
// compare the two, or to rule the faster one out). Both check each member's
// CRC and length.
//
// One behaviour differs between them: on a stream cut short, each inflates
// as far as its own buffering allows, so the salvaged prefix of a truncated
// file can end a few bytes apart. Whole files inflate to the same bytes.
#ifndef FEEDPROF_LIB_SRC_KINETO_INFLATER_H_
#define FEEDPROF_LIB_SRC_KINETO_INFLATER_H_

#include <cstddef>
#include <memory>
#include <string>

namespace feedprof::kineto {

class Inflater {
 public:
  enum class Status : unsigned char {
    kOk,         // input or output ran out; call again with more
    kMemberEnd,  // the member's trailer was read and checked
    kCorrupt,    // see error()
  };

  virtual ~Inflater() = default;

  // Prepares for a gzip member: the first, or the next one after
  // kMemberEnd. False when the library could not be initialised.
  virtual bool StartMember() = 0;
  // Inflates from `*in` (`*in_size` bytes) into `*out` (`*out_size`
  // bytes), advancing both past what was consumed and produced. After
  // kMemberEnd, `*in` is the first byte after the member (ISA-L gives back
  // what it had read ahead).
  virtual Status Inflate(const unsigned char** in, size_t* in_size, char** out,
                         size_t* out_size) = 0;
  // What was wrong, after kCorrupt.
  virtual std::string error() const = 0;
  // "zlib" or "ISA-L".
  virtual const char* name() const = 0;
};

// ISA-L when built with it, unless the environment says FEEDPROF_INFLATE=zlib.
std::unique_ptr<Inflater> MakeInflater();
std::unique_ptr<Inflater> MakeZlibInflater();
// nullptr in a build without ISA-L.
std::unique_ptr<Inflater> MakeIsalInflater();

}  // namespace feedprof::kineto

#endif  // FEEDPROF_LIB_SRC_KINETO_INFLATER_H_
