#include "pg/capture_names.h"

#include <gtest/gtest.h>

namespace pglayout {
namespace {

TEST(CaptureNamesTest, SpellsTheSlotAndThePublication) {
  EXPECT_EQ(CaptureSlotName(16384, 42), "pglayout_16384_42");
  EXPECT_EQ(CapturePublicationName(42), "pglayout_capture_42");
}

TEST(CaptureNamesTest, ReadsBackOnlyItsOwnSpelling) {
  uint32_t oid = 0;
  EXPECT_TRUE(ParseCaptureSlotName("pglayout_16384_42", 16384, &oid));
  EXPECT_EQ(oid, 42u);
  EXPECT_TRUE(ParseCapturePublicationName("pglayout_capture_4294967295", &oid));
  EXPECT_EQ(oid, 4294967295u);
  for (const char* other :
       {"pglayout_16384_", "pglayout_16384_42x", "pglayout_16384_042",
        "pglayout_16384_42_mine", "pglayout_16385_42", "pglayout_16384_-1",
        "xpglayout_16384_42", "pglayout_16384_4294967296"}) {
    EXPECT_FALSE(ParseCaptureSlotName(other, 16384, nullptr)) << other;
  }
  for (const char* other :
       {"pglayout_capture_", "pglayout_capture_7a", "pglayout_capture_07",
        "pglayout_capture_7_copy", "pglayout_captures_7", "pglayout_capture"}) {
    EXPECT_FALSE(ParseCapturePublicationName(other, nullptr)) << other;
  }
}

}  // namespace
}  // namespace pglayout
