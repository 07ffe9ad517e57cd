#include "common/text.h"

#include <gtest/gtest.h>

#include <sstream>

namespace pglayout {
namespace {

TEST(Text, Utf8Validation) {
  EXPECT_TRUE(IsValidUtf8("caf\xC3\xA9 \xF0\x9F\x98\x80"));
  EXPECT_FALSE(IsValidUtf8("caf\xE9"));           // Latin-1
  EXPECT_FALSE(IsValidUtf8("\xC0\xAF"));          // overlong '/'
  EXPECT_FALSE(IsValidUtf8("\xED\xA0\x80"));      // a surrogate
  EXPECT_FALSE(IsValidUtf8("\xF4\x90\x80\x80"));  // above U+10FFFF
  EXPECT_FALSE(IsValidUtf8("\xE2\x82"));          // cut short
}

TEST(Text, InvalidBytesAreEscapedValidTextKept) {
  EXPECT_EQ(EscapeInvalidUtf8("caf\xE9"), "caf\\xE9");
  EXPECT_EQ(EscapeInvalidUtf8("caf\xC3\xA9"), "caf\xC3\xA9");
  EXPECT_EQ(EscapeInvalidUtf8("\xE2\x82x"), "\\xE2\\x82x");
}

TEST(Text, Latin1BecomesUtf8) {
  EXPECT_EQ(Latin1ToUtf8("caf\xE9"), "caf\xC3\xA9");
  EXPECT_EQ(Latin1ToUtf8("\xFF"), "\xC3\xBF");
  EXPECT_EQ(Latin1ToUtf8("plain"), "plain");
}

TEST(Text, DisplayNameEscapesEveryControl) {
  EXPECT_EQ(DisplayName("orders"), "orders");
  EXPECT_EQ(DisplayName("a\x1B[2Jb"), "a\\u001B[2Jb");
  EXPECT_EQ(DisplayName("bell\x07"), "bell\\u0007");
  EXPECT_EQ(DisplayName("del\x7F"), "del\\u007F");
  EXPECT_EQ(DisplayName("line\nbreak\t"), "line\\u000Abreak\\u0009");
  EXPECT_EQ(DisplayName("c1\xC2\x9B"), "c1\\u009B");
  EXPECT_EQ(DisplayName("rlo\xE2\x80\xAEtxt.exe"), "rlo\\u202Etxt.exe");
  EXPECT_EQ(DisplayName("iso\xE2\x81\xA6x"), "iso\\u2066x");
  EXPECT_EQ(DisplayName("caf\xE9"), "caf\\xE9");
  EXPECT_EQ(DisplayName("caf\xC3\xA9"), "caf\xC3\xA9");
}

TEST(Text, DisplayNameCutsLongNames) {
  EXPECT_EQ(DisplayName(std::string(100, 'k'), 64),
            std::string(64, 'k') + "...");
  EXPECT_EQ(DisplayName("short", 64), "short");
}

TEST(Text, TerminalTextKeepsLinesAndTabs) {
  EXPECT_EQ(TerminalText("a\tb\nc\x1B]0;x\x07"), "a\tb\nc\\u001B]0;x\\u0007");
}

TEST(Text, StreambufEscapesWholeLinesAndTheRestOnSync) {
  std::ostringstream target;
  {
    TerminalTextBuf buf(target.rdbuf());
    std::ostream out(&buf);
    out << "one\x1B"
        << "[31m\n"
        << "tw";
    out << "o\x07";
    EXPECT_EQ(target.str(), "one\\u001B[31m\n");
    out.flush();
    EXPECT_EQ(target.str(), "one\\u001B[31m\ntwo\\u0007");
    out << "\xE2\x80";  // a sequence cut between writes is joined first
    out << "\xAE!\n";
  }
  EXPECT_EQ(target.str(), "one\\u001B[31m\ntwo\\u0007\\u202E!\n");
}

}  // namespace
}  // namespace pglayout
