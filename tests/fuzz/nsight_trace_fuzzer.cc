// Fuzzes the Nsight Systems SQLite export reader.
//
// The reader inspects the schema before every query because nsys versions
// add, drop and retype tables and columns; a damaged or hand-made database
// can hold any schema and any values (NULLs, text where integers belong,
// ids that name nothing, rows out of order). Any file must give a timeline
// or a clear error. The mutator edits the schema text in sqlite_master as
// readily as the rows, so the dictionary (nsight.dict) holds table and
// column names the reader looks for.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "feedprof/nsight_reader.h"
#include "tests/fuzz/fuzz_input_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static feedprof::fuzz::FuzzInputFile input(".sqlite");
  const std::string& path = input.Write(data, size);

  const absl::StatusOr<feedprof::Timeline> timeline =
      feedprof::ReadNsightTrace(path);
  if (timeline.ok() && !feedprof::LooksLikeSqliteFile(path)) {
    std::fprintf(stderr, "a file without the SQLite header was read\n");
    std::abort();
  }
  return 0;
}
