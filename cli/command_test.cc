#include "cli/command.h"

#include <gtest/gtest.h>

namespace pglayout::cli {
namespace {

TEST(UsageError, HintsAtTheRunningCommandsHelp) {
  SetRunningCommand("pglayout migrate");
  const Status st = UsageError("--abort and --status exclude each other");
  EXPECT_TRUE(st.IsInvalidInput());
  EXPECT_EQ(st.message(), "--abort and --status exclude each other");
  EXPECT_EQ(st.hint(), "Try \"pglayout migrate --help\" for more information.");
  SetRunningCommand("pglayout");
}

// The hint is the error's, not found again by its text: the same words
// from elsewhere carry none.
TEST(UsageError, TheSameMessageFromElsewhereHasNoHint) {
  const std::string text = "--abort and --status exclude each other";
  Status usage = UsageError(text);
  EXPECT_EQ(Status::InvalidInput(text).hint(), "");
  EXPECT_FALSE(usage.hint().empty());
}

TEST(AsBadInput, AMissingFileExitsTwoAndKeepsItsHint) {
  const Status st = AsBadInput(
      Status::NotFound("could not read \"v.toml\": No such file or directory")
          .WithHint("Run \"pglayout probe\" first."));
  EXPECT_TRUE(st.IsInvalidInput());
  EXPECT_EQ(st.message(),
            "could not read \"v.toml\": No such file or directory");
  EXPECT_EQ(st.hint(), "Run \"pglayout probe\" first.");
  EXPECT_EQ(AsBadInput(Status::SqlError("x")).code(), Status::Code::kSqlError);
}

}  // namespace
}  // namespace pglayout::cli
