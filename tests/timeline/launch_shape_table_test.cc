// LaunchShapeTable: one dense id per distinct shape, the same id every
// time, through growth; id 0 is the all-zero shape; the timeline answers
// an op's shape through it.
#include <cstdint>
#include <vector>

#include "feedprof/timeline.h"
#include "gtest/gtest.h"

namespace feedprof {
namespace {

LaunchShape Shape(uint32_t i) {
  // Shapes that differ in one field only, in each field in turn.
  LaunchShape s{{1, 1, 1}, {256, 1, 1}, 0};
  switch (i % 4) {
    case 0:
      s.grid[0] = i;
      break;
    case 1:
      s.grid[2] = i;
      break;
    case 2:
      s.block[1] = i;
      break;
    default:
      s.graph_id = i;
      break;
  }
  return s;
}

TEST(LaunchShapeTableTest, OneDenseIdPerDistinctShapeThroughGrowth) {
  LaunchShapeTable table;
  EXPECT_EQ(table.Intern(LaunchShape{}), 0u);
  EXPECT_EQ(table.size(), 1u);
  constexpr uint32_t kShapes = 20000;
  for (uint32_t i = 1; i <= kShapes; ++i) {
    ASSERT_EQ(table.Intern(Shape(i)), i) << i;
  }
  EXPECT_EQ(table.size(), kShapes + 1);
  for (uint32_t i = 1; i <= kShapes; ++i) {
    ASSERT_EQ(table.Intern(Shape(i)), i) << i;
    ASSERT_EQ(table.Get(i), Shape(i)) << i;
  }
  EXPECT_EQ(table.size(), kShapes + 1);
  EXPECT_EQ(table.Get(kShapes + 5), LaunchShape{});
}

TEST(LaunchShapeTableTest, GraphIdAloneMakesADistinctShape) {
  LaunchShapeTable table;
  const uint32_t in_graph = table.Intern({{}, {}, 7});
  EXPECT_EQ(in_graph, 1u);
  EXPECT_EQ(table.Intern({{}, {}, 8}), 2u);
  EXPECT_EQ(table.Intern({{}, {}, 7}), in_graph);
  EXPECT_EQ(table.Get(in_graph).graph_id, 7u);
  EXPECT_EQ(table.Get(in_graph).grid[0], 0u);
}

TEST(LaunchShapeTableTest, InternAllMapsEveryIdOfAnotherTable) {
  LaunchShapeTable into;
  into.Intern(Shape(1));
  into.Intern(Shape(2));
  LaunchShapeTable part;
  part.Intern(Shape(2));  // there already: keeps its id
  part.Intern(Shape(3));  // new: the next id
  EXPECT_EQ(into.InternAll(part), (std::vector<uint32_t>{0, 2, 3}));
  EXPECT_EQ(into.size(), 4u);
  EXPECT_EQ(into.Get(3), Shape(3));
}

TEST(LaunchShapeTableTest, TheTimelineAnswersAnOpsShapeFromACopiedTable) {
  Timeline copy;
  {
    Timeline t;
    GpuOp op;
    op.launch = t.launch_shapes.Intern({{80, 2, 1}, {256, 1, 1}, 3});
    t.gpu_ops.push_back(op);
    t.gpu_ops.push_back(GpuOp{});  // a copy outside graphs: shape 0
    copy = t;
  }
  EXPECT_EQ(copy.LaunchOf(copy.gpu_ops[0]).grid[0], 80u);
  EXPECT_EQ(copy.LaunchOf(copy.gpu_ops[0]).block[0], 256u);
  EXPECT_EQ(copy.LaunchOf(copy.gpu_ops[0]).graph_id, 3u);
  EXPECT_EQ(copy.LaunchOf(copy.gpu_ops[1]), LaunchShape{});
  EXPECT_EQ(copy.launch_shapes.Intern({{80, 2, 1}, {256, 1, 1}, 3}), 1u);
}

// The records stay small: the shape moved out of GpuOp saved 24 bytes of
// every op (docs/performance.md: a few tens of bytes per event).
TEST(LaunchShapeTableTest, AGpuOpIsSixtyFourBytes) {
  EXPECT_EQ(sizeof(GpuOp), 64u);
}

}  // namespace
}  // namespace feedprof
