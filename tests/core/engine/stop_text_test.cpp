// StopTextFilter: streamed text never shows a stop text or its start; text that
// only looked like one is released.
#include "core/engine/stop_text.h"

#include <gtest/gtest.h>

namespace tessera {
namespace {

TEST(StopTextFilter, TextWithoutStopsPassesStraightThrough) {
  StopTextFilter f({"END"});
  EXPECT_EQ(f.push("hello "), "hello ");
  EXPECT_EQ(f.push("world"), "world");
  EXPECT_FALSE(f.stopped());
  EXPECT_EQ(f.finish(), "");
}

TEST(StopTextFilter, AStopSplitOverPiecesEndsTheTextBeforeIt) {
  StopTextFilter f({"END"});
  EXPECT_EQ(f.push("abc E"), "abc ");  // "E" might start END
  EXPECT_EQ(f.push("N"), "");
  EXPECT_EQ(f.push("Dxyz"), "");
  EXPECT_TRUE(f.stopped());
  EXPECT_EQ(f.push("more"), "");
  EXPECT_EQ(f.finish(), "");
}

TEST(StopTextFilter, AFalseStartIsReleased) {
  StopTextFilter f({"END"});
  EXPECT_EQ(f.push("EN"), "");
  EXPECT_EQ(f.push("X"), "ENX");
  EXPECT_EQ(f.push("E"), "");
  EXPECT_EQ(f.finish(), "E");
}

TEST(StopTextFilter, TheEarliestOfSeveralStopsWins) {
  StopTextFilter f({"cat", "a"});
  EXPECT_EQ(f.push("the cat"), "the ");  // "cat" starts before "a"
  EXPECT_TRUE(f.stopped());
}

TEST(StopTextFilter, EmptyStopsAreIgnored) {
  StopTextFilter f({""});
  EXPECT_EQ(f.push("abc"), "abc");
  EXPECT_FALSE(f.stopped());
}

}  // namespace
}  // namespace tessera
