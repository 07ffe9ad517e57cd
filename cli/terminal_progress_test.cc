#include "cli/terminal_progress.h"

#include <gtest/gtest.h>

namespace pglayout::cli {
namespace {

TEST(FormatProgressLine, ShowsBarStepDetailAndEta) {
  ProgressUpdate u{"probe data1", "randread qd=32", 0.5, 12, 11, "48210 IOPS"};
  EXPECT_EQ(FormatProgressLine(u),
            "[##########----------]  50% probe data1: randread qd=32, 48210 "
            "IOPS, 12s, ETA 11s");
}

TEST(FormatProgressLine, OmitsUnknownFractionAndEta) {
  ProgressUpdate u{"copy public.t", "", -1, 75, -1, ""};
  EXPECT_EQ(FormatProgressLine(u), "copy public.t, 1m15s");
}

}  // namespace
}  // namespace pglayout::cli
