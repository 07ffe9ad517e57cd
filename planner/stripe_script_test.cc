#include "planner/stripe_script.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "common/units.h"
#include "planner/file_text.h"

namespace pglayout::planner {
namespace {

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// A plan whose names and paths carry what a shell would run: quotes,
// $(...), backticks, ';' and a space (tests/integration/security_files_test.cc
// runs the uncommented script against stubs).
Plan OddPlan(const std::string& mount) {
  Plan plan;
  plan.stripes.push_back(
      {"s'1$(id)", {"v`id`", "w;id"}, 64 * kKiB, "mdadm", "why $(id)"});
  plan.tablespaces.push_back({"ts", mount + "/pg", "s'1$(id)", {}});
  return plan;
}

TEST(StripeScript, EveryLineIsANoteOrACommentedCommand) {
  const std::string script = StripeScript(OddPlan("/mnt/a b'c"), {}, "");
  for (const std::string& line : Lines(script)) {
    EXPECT_TRUE(line.empty() || line == "#!/bin/sh" || line == "exit 0" ||
                line.starts_with("## ") || line == "##" ||
                line.starts_with("# "))
        << line;
  }
}

TEST(StripeScript, EveryNameAndPathIsOneSingleQuotedWord) {
  const std::string script = StripeScript(OddPlan("/mnt/a b'c"), {}, "");
  EXPECT_NE(script.find("# mdadm --create '/dev/md/s'\\''1$(id)' --level=0 "
                        "--raid-devices=2 --chunk=64K '/dev/DISK_OF_v`id`' "
                        "'/dev/DISK_OF_w;id'\n"),
            std::string::npos)
      << script;
  EXPECT_NE(script.find("# mkdir -p '/mnt/a b'\\''c' && mount -o noatime "
                        "'/dev/md/s'\\''1$(id)' '/mnt/a b'\\''c'\n"),
            std::string::npos)
      << script;
  EXPECT_NE(script.find("# lvcreate --type striped --stripes 2 --stripesize "
                        "64k --extents 100%FREE --name 's'\\''1$(id)' "
                        "'s'\\''1$(id)_vg'\n"),
            std::string::npos)
      << script;
  EXPECT_NE(script.find("# install -d -o postgres -g postgres -m 700 "
                        "'/mnt/a b'\\''c/pg'    ## ts on s'1$(id)\n"),
            std::string::npos)
      << script;
  EXPECT_NE(script.find("## why $(id)\n"), std::string::npos) << script;
}

// fstab(5) reads \040 for a space (and \134 for a backslash); printf writes
// the line as it is, where dash's echo would turn \040 into a space.
TEST(StripeScript, FstabLineEscapesForFstabInsideOneShellWord) {
  const std::string script = StripeScript(OddPlan("/mnt/a b\\c"), {}, "");
  EXPECT_NE(script.find("# printf '%s\\n' '/dev/md/s'\\''1$(id) "
                        "/mnt/a\\040b\\134c xfs noatime,nofail 0 0' >> "
                        "/etc/fstab\n"),
            std::string::npos)
      << script;
  EXPECT_EQ(script.find("echo"), std::string::npos) << script;
}

// A line break in a value cannot sit in a one-line command: the command
// is written as a note, escaped, and no line of the script starts with the
// rest of the value.
TEST(StripeScript, ALineBreakInAValueNeverStartsALine) {
  Plan plan = OddPlan("/mnt/x\ntouch /tmp/pwned");
  plan.stripes[0].reason = "fast\nrm -rf /";
  plan.wal_volume = "wal\nid";
  plan.wal_move = WalMove{"old", "/old/pg_wal\nid", "/new\nid", "/data\nid", 0};
  const std::string script = StripeScript(plan, {}, "/data\nid");
  for (const std::string& line : Lines(script)) {
    EXPECT_FALSE(line.starts_with("touch") || line.starts_with("rm") ||
                 line.starts_with("id") || line.starts_with("# id") ||
                 line.starts_with("# touch") || line.starts_with("# rm"))
        << line;
    if (line.starts_with("# ")) {
      EXPECT_EQ(line.find("/new"), std::string::npos) << line;
    }
  }
  // The commands on that mount point are notes; its fstab line is written,
  // the line break as fstab reads it (\012).
  EXPECT_EQ(script.find("# mkdir -p '/mnt/x"), std::string::npos) << script;
  EXPECT_NE(script.find(" /mnt/x\\012touch\\040/tmp/pwned xfs "),
            std::string::npos)
      << script;
  EXPECT_NE(script.find("## fast\\nrm -rf /\n"), std::string::npos) << script;
  EXPECT_NE(script.find("## not written: a name or path in this command "
                        "holds a control character"),
            std::string::npos)
      << script;
  EXPECT_NE(script.find("'/mnt/x\\ntouch /tmp/pwned'"), std::string::npos)
      << script;
}

TEST(Visible, ControlCharactersAndBackslashes) {
  EXPECT_EQ(Visible("a\nb\rc\td\x01\x7f\\e"), "a\\nb\\rc\\td\\x01\\x7f\\\\e");
  EXPECT_EQ(Visible("plain 'text' $(x)"), "plain 'text' $(x)");
  EXPECT_TRUE(HasControl("a\nb"));
  EXPECT_TRUE(HasControl("a\x1b"));
  EXPECT_FALSE(HasControl("a b\\n"));
}

}  // namespace
}  // namespace pglayout::planner
