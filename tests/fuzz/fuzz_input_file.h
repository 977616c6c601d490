// One scratch file per fuzzer process, rewritten with every input.
//
// The trace readers take paths, not bytes: they stream, sniff magic bytes and
// hand SQLite a file name. A harness therefore writes each input to a file
// and reads it back. Creating a fresh file per input would spend the run on
// the file system, so each process keeps one file (a unique name in
// $TMPDIR, or /tmp) and truncates it for the next input; the file is removed
// when the process exits normally.
#ifndef FEEDPROF_TESTS_FUZZ_FUZZ_INPUT_FILE_H_
#define FEEDPROF_TESTS_FUZZ_FUZZ_INPUT_FILE_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace feedprof::fuzz {

class FuzzInputFile {
 public:
  // `suffix` ends the file name (".json", ".sqlite", ""): the loader falls
  // back on the extension when the bytes say nothing.
  explicit FuzzInputFile(std::string_view suffix);
  ~FuzzInputFile();
  FuzzInputFile(const FuzzInputFile&) = delete;
  FuzzInputFile& operator=(const FuzzInputFile&) = delete;

  // Replaces the file's contents with `bytes`; returns the path. Aborts when
  // the file cannot be written (a broken harness, not a finding).
  const std::string& Write(const uint8_t* data, size_t size);
  const std::string& Write(std::string_view bytes) {
    return Write(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  }

  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace feedprof::fuzz

#endif  // FEEDPROF_TESTS_FUZZ_FUZZ_INPUT_FILE_H_
