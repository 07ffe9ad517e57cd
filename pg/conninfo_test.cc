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
            "host='db1' port='5433' user='dba' dbname='app'");
  EXPECT_EQ(Compose({"", "/run/postgresql", "", ""}), "host='/run/postgresql'");
}

// As in psql: what the connection string says wins, -h/-p/-U fill in
// what it leaves out.
TEST(ComposeConninfo, AConnectionStringWinsOverHostPortAndUser) {
  EXPECT_EQ(Compose({"host=db1 port=5432 dbname=app", "db2", "5433", "dba"}),
            "host='db1' port='5432' user='dba' dbname='app'");
}

TEST(ComposeConninfo, AUriWinsToo) {
  EXPECT_EQ(
      Compose({"postgresql://u@db1:5432/app?sslmode=disable", "db2", "", ""}),
      "host='db1' user='u' dbname='app' port='5432' sslmode='disable'");
  EXPECT_EQ(Compose({"postgresql://db1/app", "", "5433", "dba"}),
            "port='5433' user='dba' dbname='app' host='db1'");
}

// libpq lets an empty value in the string replace an option's too.
TEST(ComposeConninfo, AnEmptyValueInTheStringStillWins) {
  EXPECT_EQ(Compose({"host='' dbname=app", "db2", "", ""}),
            "host='' dbname='app'");
}

TEST(ComposeConninfo, AMalformedStringNamesTheOptionAndHidesThePassword) {
  const std::string out = Compose({"password=s3cret host", "", "", ""});
  EXPECT_EQ(out.rfind("<--dbname: invalid connection string: ", 0), 0u) << out;
  EXPECT_EQ(out.find("s3cret"), std::string::npos) << out;
}

}  // namespace
}  // namespace pglayout
