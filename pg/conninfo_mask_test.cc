#include "pg/conninfo_mask.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

namespace pglayout {
namespace {

TEST(MaskConninfoPassword, KeywordValuePairs) {
  EXPECT_EQ(MaskConninfoPassword("host=db1 password=s3cret dbname=app"),
            "host=db1 password=****** dbname=app");
  EXPECT_EQ(MaskConninfoPassword("password=s3cret"), "password=******");
  // Spaces around '=' and a quoted value: only its contents are masked.
  EXPECT_EQ(MaskConninfoPassword("user=u password = 'a b' port=5"),
            "user=u password = '***' port=5");
  // libpq's backslash escapes, quoted and bare: the escaped quote does not
  // end the value.
  EXPECT_EQ(MaskConninfoPassword(R"(password='it\'s x' host=h)"),
            R"(password='*******' host=h)");
  EXPECT_EQ(MaskConninfoPassword(R"(password=a\ b host=h)"),
            R"(password=**** host=h)");
  // A dbname that is itself a connection string (libpq expands it).
  EXPECT_EQ(MaskConninfoPassword("dbname='host=h password=pw' user=u"),
            "dbname='host=h password=**' user=u");
  // Two passwords: both are hidden (libpq uses the last).
  EXPECT_EQ(MaskConninfoPassword("password=a password=bc"),
            "password=* password=**");
}

TEST(MaskConninfoPassword, Uris) {
  EXPECT_EQ(MaskConninfoPassword("postgresql://u:s3cret@db1:5432/app"),
            "postgresql://u:******@db1:5432/app");
  EXPECT_EQ(MaskConninfoPassword("postgres://u:s3cret@db1"),
            "postgres://u:******@db1");
  // Percent-encoding: the encoded bytes are hidden, '@' inside the
  // password is %40 (a literal '@' would end the user info).
  EXPECT_EQ(MaskConninfoPassword("postgresql://u%3Ax:p%40ss@h/db"),
            "postgresql://u%3Ax:******@h/db");
  EXPECT_EQ(MaskConninfoPassword("postgresql://h/db?user=u&password=s3&x=1"),
            "postgresql://h/db?user=u&password=**&x=1");
  // libpq decodes the query's keywords too.
  EXPECT_EQ(MaskConninfoPassword("postgresql:///db?pass%77ord=s3"),
            "postgresql:///db?pass%77ord=**");
}

TEST(MaskConninfoPassword, NothingToHide) {
  for (const std::string text :
       {"host=db1 user=u dbname=app", "postgresql://u@h/db",
        "postgresql://h/db?user=u", "postgresql://h:5432/db", "app",
        "/var/lib/plan.toml", "", "not a = conninfo 'x", "=x"}) {
    EXPECT_EQ(MaskConninfoPassword(text), text);
  }
  // "passwordx" and "xpassword" are other keywords (libpq refuses them).
  EXPECT_EQ(MaskConninfoPassword("passwordx=1 xpassword=2"),
            "passwordx=1 xpassword=2");
}

TEST(MaskArgumentPassword, OptionWithItsValue) {
  EXPECT_EQ(MaskArgumentPassword("--dsn=postgresql://u:pw@h/db"),
            "--dsn=postgresql://u:**@h/db");
  EXPECT_EQ(MaskArgumentPassword("--journal=host=h password=pw"),
            "--journal=host=h password=**");
  EXPECT_EQ(MaskArgumentPassword("--duration=10s"), "--duration=10s");
}

// libpq's message for a bad percent-encoding echoes the URI: the password
// leaves it in each form it may take.
TEST(RedactPasswords, EveryFormOfThePassword) {
  EXPECT_EQ(RedactPasswords("invalid percent-encoded token: "
                            "\"postgresql://u:p%4_ss@h\"",
                            "postgresql://u:p%4_ss@h"),
            "invalid percent-encoded token: \"postgresql://u:****@h\"");
  EXPECT_EQ(RedactPasswords("bad s3@cret and s3%40cret",
                            "postgresql://u:s3%40cret@h"),
            "bad **** and ****");
  EXPECT_EQ(RedactPasswords("it's", R"(password='it\'s')"), "****");
  EXPECT_EQ(RedactPasswords("nothing to hide", "host=h user=u"),
            "nothing to hide");
  // A '*' of the connection string itself is no password.
  EXPECT_EQ(RedactPasswords("a * b", "host=* password=x"), "a * b");
}

TEST(MaskPasswordsInArgv, OverwritesTheArgumentsInPlace) {
  std::vector<std::string> storage = {"pglayout",
                                      "observe",
                                      "--dsn",
                                      "host=h password=s3cret",
                                      "--out",
                                      "w.toml",
                                      "--journal=postgresql://u:pw@h/db"};
  std::vector<char*> argv;
  for (std::string& s : storage) argv.push_back(s.data());
  MaskPasswordsInArgv(static_cast<int>(argv.size()), argv.data());
  EXPECT_STREQ(argv[3], "host=h password=******");
  EXPECT_STREQ(argv[6], "--journal=postgresql://u:**@h/db");
  EXPECT_STREQ(argv[2], "--dsn");
  EXPECT_STREQ(argv[5], "w.toml");
}

}  // namespace
}  // namespace pglayout
