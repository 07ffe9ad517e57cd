#include "pg/conninfo.h"

#include <gtest/gtest.h>

namespace pglayout {
namespace {

std::string Compose(const ConnectionOptions& options) {
  std::string out;
  Status st = ComposeConninfo(options, &out);
  return st.ok() ? out : "<" + st.message() + ">";
}

TEST(ComposeConninfo, NothingGivenLeavesItToTheEnvironment) {
  EXPECT_EQ(Compose({}), "");
}

TEST(ComposeConninfo, ADatabaseNameIsQuoted) {
  EXPECT_EQ(Compose({"my db", "", "", ""}), "dbname='my db'");
  EXPECT_EQ(Compose({"it's\\", "", "", ""}), "dbname='it\\'s\\\\'");
}

TEST(ComposeConninfo, HostPortAndUserAreAdded) {
  EXPECT_EQ(Compose({"app", "db1", "5433", "dba"}),
            "dbname='app' host='db1' port='5433' user='dba'");
  EXPECT_EQ(Compose({"", "/run/postgresql", "", ""}), "host='/run/postgresql'");
}

TEST(ComposeConninfo, TheyOverrideAConnectionString) {
  EXPECT_EQ(Compose({"host=db1 port=5432 dbname=app", "", "5433", "dba"}),
            "dbname='app' host='db1' port='5433' user='dba'");
}

TEST(ComposeConninfo, AUriBecomesKeywords) {
  EXPECT_EQ(
      Compose({"postgresql://u@db1:5432/app?sslmode=disable", "db2", "", ""}),
      "user='u' dbname='app' host='db2' port='5432' sslmode='disable'");
}

TEST(ComposeConninfo, AMalformedStringNamesTheOptionAndHidesThePassword) {
  const std::string out = Compose({"password=s3cret host", "", "", ""});
  EXPECT_EQ(out.rfind("<--dbname: invalid connection string: ", 0), 0u) << out;
  EXPECT_EQ(out.find("s3cret"), std::string::npos) << out;
}

}  // namespace
}  // namespace pglayout
