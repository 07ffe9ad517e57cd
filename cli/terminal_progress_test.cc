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

// A table named with ESC (a colour), a newline, BEL and U+202E (right-to-
// left override) shows as escapes on one line: nothing reaches the terminal
// raw.
TEST(FormatProgressLine, EscapesControlCharactersOfNames) {
  ProgressUpdate u{"copy public.\"a\x1b[31m\nb\a\u202Ec\"",
                   "batch 1",
                   -1,
                   1,
                   -1,
                   "\x1b]0;title\a"};
  EXPECT_EQ(FormatProgressLine(u),
            "copy public.\"a\\u001B[31m\\u000Ab\\u0007\\u202Ec\": batch 1, "
            "\\u001B]0;title\\u0007, 1s");
}

}  // namespace
}  // namespace pglayout::cli
