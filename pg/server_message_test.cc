#include "pg/server_message.h"

#include <gtest/gtest.h>

#include <string>

namespace pglayout {
namespace {

TEST(OneLineServerMessage, EscapesANameThatQuotesControlCharacters) {
  // As libpq prints a server error: the newline, ESC, BEL and U+202E are
  // the table's name, the last newline is libpq's.
  EXPECT_EQ(OneLineServerMessage("ERROR:  relation \"a\nb\x1b[31m\a\u202E"
                                 "c\" does not exist\n"),
            "ERROR:  relation \"a\\u000Ab\\u001B[31m\\u0007\\u202Ec\" does "
            "not exist");
}

TEST(OneLineServerMessage, KeepsTheServersFieldsOnOneLine) {
  EXPECT_EQ(OneLineServerMessage(
                "ERROR:  duplicate key value violates unique constraint "
                "\"t\npkey\"\nDETAIL:  Key (id)=(1) already exists.\n"
                "HINT:  Do\tit.\n"),
            "ERROR:  duplicate key value violates unique constraint "
            "\"t\\u000Apkey\"; DETAIL:  Key (id)=(1) already exists.; HINT:  "
            "Do\\u0009it.");
}

TEST(OneLineServerMessage, DropsTheCaretUnderTheQueryLine) {
  EXPECT_EQ(OneLineServerMessage("ERROR:  syntax error at or near \"x\"\n"
                                 "LINE 1: SELECT x y z\n"
                                 "                 ^\n"),
            "ERROR:  syntax error at or near \"x\"; LINE 1: SELECT x y z");
  // A caret that a name carries, not on a line of its own, stays.
  EXPECT_EQ(OneLineServerMessage("ERROR:  \"^\" here\n"), "ERROR:  \"^\" here");
}

TEST(OneLineServerMessage, JoinsLibpqsConnectionMessages) {
  EXPECT_EQ(OneLineServerMessage(
                "connection to server at \"127.0.0.1\", port 1 failed: "
                "Connection refused\n\tIs the server running on that host "
                "and accepting TCP/IP connections?\n"),
            "connection to server at \"127.0.0.1\", port 1 failed: "
            "Connection refused; Is the server running on that host and "
            "accepting TCP/IP connections?");
  EXPECT_EQ(
      OneLineServerMessage(
          "connection to server at \"h\" (::1), port 5 "
          "failed: FATAL:  database \"x\ny\" does not exist\n"
          "connection to server at \"h\" (127.0.0.1), port 5 "
          "failed: FATAL:  database \"x\ny\" does not exist\n"),
      "connection to server at \"h\" (::1), port 5 failed: FATAL:  database "
      "\"x\\u000Ay\" does not exist; connection to server at \"h\" "
      "(127.0.0.1), port 5 failed: FATAL:  database \"x\\u000Ay\" does not "
      "exist");
}

TEST(OneLineServerMessage, EscapesBytesThatAreNotUtf8) {
  // A server in LATIN1 that names a table "caf\xE9".
  EXPECT_EQ(OneLineServerMessage("ERROR:  relation \"caf\xE9\" does not exist"),
            "ERROR:  relation \"caf\\xE9\" does not exist");
}

TEST(OneLineServerMessage, PlainTextIsUnchanged) {
  EXPECT_EQ(OneLineServerMessage("ERROR:  canceling statement due to "
                                 "statement timeout"),
            "ERROR:  canceling statement due to statement timeout");
  EXPECT_EQ(OneLineServerMessage(""), "");
  EXPECT_EQ(OneLineServerMessage("\n\n"), "");
}

}  // namespace
}  // namespace pglayout
