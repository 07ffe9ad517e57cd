#include "common/status.h"

#include <gtest/gtest.h>

namespace pglayout {
namespace {

TEST(Status, AFailureHasNoHintUntilOneIsGiven) {
  const Status st = Status::NotFound("could not open \"x\"");
  EXPECT_EQ(st.hint(), "");
  const Status hinted = st.WithHint("Run \"pglayout probe\" first.");
  EXPECT_EQ(hinted.hint(), "Run \"pglayout probe\" first.");
  EXPECT_EQ(hinted.code(), Status::Code::kNotFound);
  EXPECT_EQ(hinted.message(), "could not open \"x\"");
  EXPECT_EQ(st.hint(), "");  // the original is unchanged
}

TEST(Status, ContextKeepsTheHint) {
  const Status st =
      Status::InvalidInput("bad").WithHint("Fix it.").WithContext("plan.toml");
  EXPECT_EQ(st.message(), "plan.toml: bad");
  EXPECT_EQ(st.hint(), "Fix it.");
  EXPECT_TRUE(st.IsInvalidInput());
}

TEST(Status, OkTakesNoHint) {
  const Status st = Status::Ok().WithHint("never shown");
  EXPECT_TRUE(st.ok());
  EXPECT_EQ(st.hint(), "");
}

TEST(Status, AHintSurvivesReturnIfError) {
  auto inner = [] { return Status::Aborted("stopped").WithHint("Resume."); };
  auto outer = [&]() -> Status {
    PGLAYOUT_RETURN_IF_ERROR(inner());
    return Status::Ok();
  };
  EXPECT_EQ(outer().hint(), "Resume.");
}

}  // namespace
}  // namespace pglayout
