// File helpers for the Kineto reader tests: temporary files, gzip in and
// out, and the location of the shared real-world traces.
#ifndef FEEDPROF_TESTS_KINETO_KINETO_TEST_FILES_H_
#define FEEDPROF_TESTS_KINETO_KINETO_TEST_FILES_H_

#include <string>

namespace feedprof::kineto_test {

// Writes `bytes` to a file in the test's temporary directory; returns its path.
std::string WriteTempFile(const std::string& name, const std::string& bytes);
std::string ReadFileBytes(const std::string& path);
// zlib's deflate of `bytes` with deflateInit2's window bits (-15: a raw
// deflate stream, 15 + 16: a gzip member) and level.
std::string Compress(const std::string& bytes, int window_bits, int level);
std::string Gzip(const std::string& bytes);
std::string Gunzip(const std::string& bytes);
// Path of a file under the shared traces directory, or "" when absent.
std::string SharedTrace(const std::string& relative);

}  // namespace feedprof::kineto_test

#endif  // FEEDPROF_TESTS_KINETO_KINETO_TEST_FILES_H_
