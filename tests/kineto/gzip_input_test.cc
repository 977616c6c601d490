// GzipFileInput with each inflater the build has (zlib, and ISA-L where
// libisal-dev was found): every gzip header field, concatenated members
// (also one that ends at each byte around the border of the file reads),
// zero padding, reads of one byte (output the inflater holds back at the
// end of the input), cut-off and corrupt streams; and the two inflaters
// give the same bytes for a shared trace.
#include "kineto/gzip_input.h"

#include <zlib.h>

#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/kineto/kineto_test_files.h"

namespace feedprof::kineto {
namespace {

using kineto_test::WriteTempFile;

// GzipFileInput reads the file in blocks of this size.
constexpr size_t kFileReadBytes = 256 * 1024;

// Selects an inflater for the inflaters made while it lives.
class InflaterChoice {
 public:
  explicit InflaterChoice(const char* name) {
    setenv("FEEDPROF_INFLATE", name, 1);
  }
  ~InflaterChoice() { unsetenv("FEEDPROF_INFLATE"); }
};

struct Inflated {
  std::string bytes;
  GzipFileInput::End end = GzipFileInput::End::kNotYet;
  std::string detail;
  std::string inflater;
};

Inflated InflateFile(const std::string& path, size_t read_size = 1 << 16) {
  Inflated out;
  auto input = GzipFileInput::Open(path);
  EXPECT_TRUE(input.ok()) << input.status();
  if (!input.ok()) return out;
  std::vector<char> buffer(read_size);
  for (;;) {
    const size_t n = (*input)->Read(buffer.data(), buffer.size());
    if (n == 0) break;
    out.bytes.append(buffer.data(), n);
  }
  out.end = (*input)->end();
  out.detail = (*input)->detail();
  out.inflater = (*input)->inflater_name();
  return out;
}

// The inflaters of this build, by FEEDPROF_INFLATE value and name.
std::vector<std::pair<const char*, std::string>> Inflaters() {
  std::vector<std::pair<const char*, std::string>> all = {{"zlib", "zlib"}};
  InflaterChoice isal("isal");
  const Inflated probe =
      InflateFile(WriteTempFile("probe.gz", kineto_test::Gzip("x")));
  if (probe.inflater == "ISA-L") all.emplace_back("isal", "ISA-L");
  return all;
}

void AppendLittleEndian32(uint32_t v, std::string* out) {
  for (int i = 0; i < 4; ++i) out->push_back(static_cast<char>(v >> (8 * i)));
}

enum HeaderFlags : uint8_t {
  kText = 1,
  kHeaderCrc = 2,
  kExtra = 4,
  kName = 8,
  kComment = 16,
};

// One gzip member (RFC 1952) with the header fields `flags` asks for.
std::string GzipMember(const std::string& data, uint8_t flags = 0,
                       int level = Z_DEFAULT_COMPRESSION) {
  std::string m = {'\x1f', '\x8b', 8, static_cast<char>(flags), 0, 0, 0,
                   0,      0,      3};
  if (flags & kExtra) {
    m += std::string("\x06\x00", 2);
    m += "AB\x02\x00xy";
  }
  if (flags & kName) m += std::string("trace.json") + '\0';
  if (flags & kComment) m += std::string("from a test") + '\0';
  if (flags & kHeaderCrc) {
    const uLong crc = crc32(0, reinterpret_cast<const Bytef*>(m.data()),
                            static_cast<uInt>(m.size()));
    m.push_back(static_cast<char>(crc & 0xFF));
    m.push_back(static_cast<char>((crc >> 8) & 0xFF));
  }
  m += kineto_test::Compress(data, -15, level);  // raw deflate
  AppendLittleEndian32(static_cast<uint32_t>(
                           crc32(0, reinterpret_cast<const Bytef*>(data.data()),
                                 static_cast<uInt>(data.size()))),
                       &m);
  AppendLittleEndian32(static_cast<uint32_t>(data.size()), &m);
  return m;
}

std::string Text(size_t n, uint32_t seed) {
  std::mt19937 random(seed);
  std::string s;
  while (s.size() < n) {
    s += "{\"ph\": \"X\", \"ts\": " + std::to_string(random() % 100000) +
         ", \"name\": \"k" + std::to_string(random() % 50) + "\"},\n";
  }
  s.resize(n);
  return s;
}

std::string RandomBytes(size_t n, uint32_t seed) {
  std::mt19937 random(seed);
  std::string s(n, '\0');
  for (char& c : s) c = static_cast<char>(random());
  return s;
}

TEST(KinetoGzipInputTest, EveryHeaderFieldAndReadSize) {
  const std::string data = Text(300000, 1);
  for (const auto& [choice, name] : Inflaters()) {
    InflaterChoice use(choice);
    for (uint8_t flags : {0, kText | kName, kExtra | kComment | kHeaderCrc,
                          kText | kHeaderCrc | kExtra | kName | kComment}) {
      const std::string path =
          WriteTempFile("flags.gz", GzipMember(data, flags));
      for (size_t read_size : {size_t{1} << 20, size_t{4093}, size_t{1}}) {
        const Inflated out = InflateFile(path, read_size);
        EXPECT_EQ(out.inflater, name);
        EXPECT_EQ(out.end, GzipFileInput::End::kClean)
            << name << " flags " << int{flags} << ": " << out.detail;
        EXPECT_TRUE(out.bytes == data) << name << " flags " << int{flags};
      }
    }
  }
}

TEST(KinetoGzipInputTest, ConcatenatedMembersAndPadding) {
  const std::string a = Text(100000, 2);
  const std::string b = Text(7, 3);
  const std::string c = Text(500000, 4);
  const std::string file = GzipMember(a, kName) + GzipMember("") +
                           GzipMember(b) + GzipMember(c, kComment) +
                           std::string(512, '\0');
  const std::string path = WriteTempFile("members.gz", file);
  for (const auto& [choice, name] : Inflaters()) {
    InflaterChoice use(choice);
    const Inflated out = InflateFile(path);
    EXPECT_EQ(out.end, GzipFileInput::End::kClean) << name << out.detail;
    EXPECT_TRUE(out.bytes == a + b + c) << name;
  }
}

TEST(KinetoGzipInputTest, MemberEndingAtEveryOffsetAroundAFileReadBorder) {
  // Stored (level 0) members of incompressible bytes have a size that is
  // easy to steer: make the first member end at each of the 24 bytes
  // around the end of the first file read, the next member after it.
  const std::string second = Text(20000, 5);
  const std::string second_member = GzipMember(second);
  const size_t overhead = GzipMember("", 0, Z_NO_COMPRESSION).size();
  for (const auto& [choice, name] : Inflaters()) {
    InflaterChoice use(choice);
    for (size_t end = kFileReadBytes - 12; end <= kFileReadBytes + 12; ++end) {
      // Each stored block of up to 65535 bytes costs 5 bytes of framing.
      size_t size = end - overhead;
      std::string first_member;
      std::string first;
      for (int tries = 0; tries < 8; ++tries) {
        first = RandomBytes(size, static_cast<uint32_t>(end));
        first_member = GzipMember(first, 0, Z_NO_COMPRESSION);
        if (first_member.size() == end) break;
        size += end - first_member.size();
      }
      ASSERT_EQ(first_member.size(), end);
      const Inflated out =
          InflateFile(WriteTempFile("border.gz", first_member + second_member));
      ASSERT_EQ(out.end, GzipFileInput::End::kClean)
          << name << " member ends at " << end << ": " << out.detail;
      ASSERT_TRUE(out.bytes == first + second)
          << name << " member ends at " << end;
    }
  }
}

TEST(KinetoGzipInputTest, CutStreamsGiveAPrefixAndSaySo) {
  const std::string data = Text(400000, 6);
  const std::string gz = GzipMember(data, kName);
  for (const auto& [choice, name] : Inflaters()) {
    InflaterChoice use(choice);
    for (size_t cut : {size_t{5}, size_t{30}, gz.size() / 3, gz.size() / 2,
                       gz.size() - 9, gz.size() - 1}) {
      const Inflated out =
          InflateFile(WriteTempFile("cut.gz", gz.substr(0, cut)));
      EXPECT_EQ(out.end, GzipFileInput::End::kTruncated)
          << name << " cut at " << cut << ": " << out.detail;
      EXPECT_EQ(out.detail, "the gzip stream ends early at byte " +
                                std::to_string(cut) + " of the file");
      EXPECT_TRUE(data.compare(0, out.bytes.size(), out.bytes) == 0)
          << name << " cut at " << cut;
      if (cut >= gz.size() / 2) {
        EXPECT_GT(out.bytes.size(), data.size() / 4) << name;
      }
    }
  }
}

TEST(KinetoGzipInputTest, CorruptDataAndChecksumAreReported) {
  const std::string data = Text(400000, 7);
  std::string flipped = GzipMember(data);
  flipped[flipped.size() / 2] ^= 0x5A;
  flipped[flipped.size() / 2 + 7] ^= 0xA5;
  std::string bad_crc = GzipMember(data);
  bad_crc[bad_crc.size() - 6] ^= 0x01;  // in the CRC-32 of the trailer
  for (const auto& [choice, name] : Inflaters()) {
    InflaterChoice use(choice);
    for (const std::string& gz : {flipped, bad_crc}) {
      const Inflated out = InflateFile(WriteTempFile("corrupt.gz", gz));
      EXPECT_EQ(out.end, GzipFileInput::End::kCorrupt) << name;
      EXPECT_EQ(out.detail.rfind("the gzip data is corrupt near byte ", 0), 0u)
          << name << ": " << out.detail;
    }
    // A bad checksum is found after all the data came out.
    EXPECT_TRUE(InflateFile(WriteTempFile("crc.gz", bad_crc)).bytes == data)
        << name;
  }
}

TEST(KinetoGzipInputTest, InflatersAgreeOnASharedTrace) {
  const std::string path =
      kineto_test::SharedTrace("hta_cuda_graphs/rank0.json.gz");
  if (path.empty()) {
    GTEST_SKIP() << "shared traces not found (../shared/traces)";
  }
  const std::string expected =
      kineto_test::Gunzip(kineto_test::ReadFileBytes(path));
  ASSERT_EQ(expected.size(), 25762803u);
  for (const auto& [choice, name] : Inflaters()) {
    InflaterChoice use(choice);
    const Inflated out = InflateFile(path);
    EXPECT_EQ(out.end, GzipFileInput::End::kClean) << name;
    EXPECT_TRUE(out.bytes == expected) << name;
  }
}

TEST(KinetoGzipInputTest, PlainFilesPassThroughWithoutAnInflater) {
  const std::string data = Text(1000, 8);
  const Inflated out = InflateFile(WriteTempFile("plain.json", data));
  EXPECT_EQ(out.end, GzipFileInput::End::kClean);
  EXPECT_EQ(out.bytes, data);
  EXPECT_EQ(out.inflater, "");
}

// FileBytesOfText: the file bytes behind a text offset, for sizing what
// was read so far; not how far ahead the file itself has been read.
TEST(KinetoGzipInputTest, TextOffsetsMapToTheFileBytesThatHoldThem) {
  const std::string data = Text(4 << 20, 9);
  {
    auto plain = GzipFileInput::Open(WriteTempFile("offsets.json", data));
    ASSERT_TRUE(plain.ok());
    std::vector<char> buffer(100'000);
    size_t text = 0;
    while (text < 1'000'000) {
      text += (*plain)->Read(buffer.data(), buffer.size());
    }
    // A plain file: the offset itself, up to what Read returned.
    EXPECT_EQ((*plain)->FileBytesOfText(12'345), 12'345u);
    EXPECT_EQ((*plain)->FileBytesOfText(text), text);
  }
  const std::string gz = kineto_test::Gzip(data);
  auto input = GzipFileInput::Open(WriteTempFile("offsets.json.gz", gz));
  ASSERT_TRUE(input.ok());
  std::vector<char> buffer(100'000);
  size_t text = 0;
  while (text < 2'000'000) text += (*input)->Read(buffer.data(), buffer.size());
  // The inflater read the file ahead of the text returned, by up to its
  // input buffer; the half of the text returned stands for about half of
  // the compressed bytes behind it, not half of those read.
  const double ratio = static_cast<double>(gz.size()) / data.size();
  const double half = static_cast<double>((*input)->FileBytesOfText(text / 2));
  EXPECT_NEAR(half, ratio * static_cast<double>(text / 2),
              0.1 * ratio * static_cast<double>(text / 2));
  EXPECT_LE((*input)->FileBytesOfText(text), (*input)->file_bytes_read());
  // Past what was returned: all that was used.
  EXPECT_EQ((*input)->FileBytesOfText(text + 1),
            (*input)->FileBytesOfText(text));
}

}  // namespace
}  // namespace feedprof::kineto
