// Layouts of the CPython versions the recorder reads, and its decoding of
// both line-table formats on hand-made tables (real tables of every
// installed interpreter are checked by python_reader_test.cc).
#include "preload/python/python_layout.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "preload/python/line_table.h"

namespace feedprof::preload::python {
namespace {

TEST(PythonLayoutTest, BuiltInLayoutsCover310To312AnyPatchLevel) {
  const PythonLayout* l310 = BuiltInLayout(0x030A0DF0);  // 3.10.13
  ASSERT_NE(l310, nullptr);
  EXPECT_EQ(l310->frame_model, FrameModel::kFrameObjects);
  EXPECT_EQ(l310->line_table, LineTableFormat::kLineTable310);
  EXPECT_EQ(l310->tstate_native_thread_id, 0u);  // 3.10 keeps pthread_t only
  const PythonLayout* l311 = BuiltInLayout(0x030B02F0);
  ASSERT_NE(l311, nullptr);
  EXPECT_EQ(l311->frame_model, FrameModel::kInterpreterFrames);
  EXPECT_EQ(l311->tstate_cframe, 56u);
  const PythonLayout* l312 = BuiltInLayout(0x030C01F0);
  ASSERT_NE(l312, nullptr);
  EXPECT_EQ(l312->owner_cstack, 3);
  EXPECT_EQ(BuiltInLayout(0x030907F0), nullptr);  // 3.9: too old
  EXPECT_EQ(BuiltInLayout(0x030D00F0), nullptr);  // 3.13: from the runtime
}

// A 3.13 _Py_DebugOffsets block with the values CPython 3.13.0 has.
std::vector<uint8_t> DebugOffsets313(uint64_t version, uint64_t free_threaded) {
  std::vector<uint8_t> bytes(kDebugOffsetsBytes, 0);
  std::memcpy(bytes.data(), "xdebugpy", 8);
  const auto put = [&bytes](size_t at, uint64_t value) {
    std::memcpy(bytes.data() + at, &value, sizeof value);
  };
  put(8, version);
  put(16, free_threaded);
  put(32, 608);   // runtime_state.finalizing
  put(40, 632);   // runtime_state.interpreters_head
  put(64, 7264);  // interpreter_state.next
  put(72, 7344);  // interpreter_state.threads_head
  put(152, 304);  // thread_state.size
  put(168, 8);    // thread_state.next
  put(184, 72);   // thread_state.current_frame
  put(192, 152);  // thread_state.thread_id
  put(200, 160);  // thread_state.native_thread_id
  put(208, 232);  // thread_state.datastack_chunk
  put(232, 8);    // interpreter_frame.previous
  put(240, 0);    // interpreter_frame.executable
  put(248, 56);   // interpreter_frame.instr_ptr
  put(264, 70);   // interpreter_frame.owner
  put(280, 112);  // code_object.filename
  put(288, 120);  // code_object.name
  put(296, 128);  // code_object.qualname
  put(304, 136);  // code_object.linetable
  put(312, 68);   // code_object.firstlineno
  put(344, 200);  // code_object.co_code_adaptive
  put(520, 16);   // bytes_object.ob_size
  put(528, 32);   // bytes_object.ob_sval
  put(544, 32);   // unicode_object.state
  put(552, 16);   // unicode_object.length
  put(560, 40);   // unicode_object.asciiobject_size
  return bytes;
}

TEST(PythonLayoutTest, Python313LayoutComesFromItsDebugOffsets) {
  const auto bytes = DebugOffsets313(0x030D00F0, 0);
  PythonLayout l;
  const char* why = "";
  ASSERT_TRUE(LayoutFromDebugOffsets(bytes.data(), bytes.size(), &l, &why))
      << why;
  EXPECT_EQ(l.version_hex, 0x030D00F0u);
  EXPECT_EQ(l.interp_threads_head, 7344u);
  EXPECT_EQ(l.tstate_frame, 72u);
  EXPECT_EQ(l.tstate_cframe, 0u);
  EXPECT_EQ(l.tstate_native_thread_id, 160u);
  EXPECT_EQ(l.tstate_read_size, 240u);
  EXPECT_EQ(l.frame_code, 0u);
  EXPECT_EQ(l.frame_instruction, 56u);
  EXPECT_EQ(l.frame_read_size, 72u);
  EXPECT_EQ(l.code_adaptive, 200u);
  EXPECT_EQ(l.code_qualname, 128u);
  EXPECT_EQ(l.unicode_ascii_data, 40u);
  EXPECT_EQ(l.unicode_compact_data, 56u);
}

TEST(PythonLayoutTest, UnknownDebugOffsetsLeaveStacksOffWithAReason) {
  PythonLayout l;
  const char* why = "";
  auto bytes = DebugOffsets313(0x030E00F0, 0);  // 3.14: another structure
  EXPECT_FALSE(LayoutFromDebugOffsets(bytes.data(), bytes.size(), &l, &why));
  EXPECT_NE(std::strstr(why, "version feedprof does not know"), nullptr) << why;
  bytes = DebugOffsets313(0x030D00F0, 1);
  EXPECT_FALSE(LayoutFromDebugOffsets(bytes.data(), bytes.size(), &l, &why));
  EXPECT_NE(std::strstr(why, "free-threaded"), nullptr) << why;
  bytes = DebugOffsets313(0x030D00F0, 0);
  bytes[0] = 'y';
  EXPECT_FALSE(LayoutFromDebugOffsets(bytes.data(), bytes.size(), &l, &why));
  EXPECT_NE(std::strstr(why, "cookie"), nullptr) << why;
  bytes = DebugOffsets313(0x030D00F0, 0);
  const uint64_t huge = uint64_t{1} << 40;
  std::memcpy(bytes.data() + 184, &huge, sizeof huge);
  EXPECT_FALSE(LayoutFromDebugOffsets(bytes.data(), bytes.size(), &l, &why));
  EXPECT_FALSE(
      LayoutFromDebugOffsets(bytes.data(), 100, &l, &why));  // cut short
}

TEST(LineTableTest, Python310PairsWithLinelessRanges) {
  // (byte delta, line delta): 6 bytes at +0, 8 at +1, 4 without a line,
  // 2 at +2 from the last line.
  const uint8_t table[] = {6, 0, 8, 1, 4, 0x80, 2, 2};
  const auto line = [&table](uint32_t offset) {
    return LineOfOffset(LineTableFormat::kLineTable310, table, sizeof table, 10,
                        offset);
  };
  EXPECT_EQ(line(0), 10u);
  EXPECT_EQ(line(5), 10u);
  EXPECT_EQ(line(6), 11u);
  EXPECT_EQ(line(13), 11u);
  EXPECT_EQ(line(14), 0u);
  EXPECT_EQ(line(17), 0u);
  EXPECT_EQ(line(18), 13u);
  EXPECT_EQ(line(20), 0u);  // past the table
}

TEST(LineTableTest, LocationTableEveryEntryForm) {
  const uint8_t table[] = {
      0xE9, 0x02,                    // no-column form, 2 units, line +1
      0xD8, 0x01, 0x05,              // one-line form (code 11), 1 unit, line +1
      0xF8,                          // no location, 1 unit
      0xF0, 0x07, 0x00, 0x01, 0x03,  // long form, 1 unit, line -3
      0x80, 0x11,                    // short form (code 0), 1 unit, same line
  };
  const auto line = [&table](uint32_t offset, size_t size = sizeof table) {
    return LineOfOffset(LineTableFormat::kLocations311, table, size, 20,
                        offset);
  };
  EXPECT_EQ(line(0), 21u);
  EXPECT_EQ(line(3), 21u);
  EXPECT_EQ(line(4), 22u);
  EXPECT_EQ(line(6), 0u);
  EXPECT_EQ(line(8), 19u);
  EXPECT_EQ(line(10), 19u);
  EXPECT_EQ(line(12), 0u);    // past the table
  EXPECT_EQ(line(8, 7), 0u);  // the long entry cut short
  const uint8_t not_an_entry[] = {0x12, 0x80};
  EXPECT_EQ(LineOfOffset(LineTableFormat::kLocations311, not_an_entry,
                         sizeof not_an_entry, 20, 0),
            0u);
}

}  // namespace
}  // namespace feedprof::preload::python
