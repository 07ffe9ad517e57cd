// The files for people (docs/security.md#files-for-people-and-secrets):
// stripe.sh and plan.sql written by the real `pglayout plan` from volumes
// and a data directory whose names and paths are full of quotes, $(...),
// backticks, ';', '\' and line breaks. stripe.sh with every command
// uncommented runs in a sandbox against stubs that log their argv (nothing
// real runs); plan.sql runs through psql on a private server. Only the
// intended commands and statements run, each with exactly its arguments.
// And a password given in --dsn does not stay in /proc/PID/cmdline.

#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "common/files.h"
#include "common/model.h"
#include "pg/sql.h"
#include "testing/pg_cluster.h"
#include "testing/pg_test.h"
#include "testing/subprocess.h"
#include "tests/run_pglayout.h"

namespace pglayout {
namespace {

namespace fs = std::filesystem;

std::string ReadWhole(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

void WriteWhole(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

void Replace(std::string* text, const std::string& from,
             const std::string& to) {
  for (size_t at = text->find(from); at != std::string::npos;
       at = text->find(from, at + to.size())) {
    text->replace(at, from.size(), to);
  }
}

// A TOML basic string: every byte that TOML would read as syntax escaped.
std::string TomlString(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else {
      out += c;
    }
  }
  return out + "\"";
}

// What an attacker puts in a name: each way a shell or psql could be made
// to run a command, each creating a file of its own name in the working
// directory if it ever runs (touch is no stub: it is logged as not found).
std::string Payload(const std::string& tag, bool line_break) {
  std::string text = tag + "'q\"$(touch inj_dollar_" + tag +
                     ")`touch inj_tick_" + tag + "`;touch inj_semi_" + tag +
                     ";\\x $HOME";
  if (line_break) text += "\ntouch inj_nl_" + tag + "\n;DROP TABLE canary;";
  return text;
}

// examples/oracle_cloud with every volume's name and path, and the data
// directory, carrying Payload().
struct OddInputs {
  std::string volumes;
  std::string workload;
};

OddInputs WriteOddInputs(const std::string& dir, bool line_break) {
  std::string volumes = ReadWhole("examples/oracle_cloud/volumes.toml");
  std::string workload = ReadWhole("examples/oracle_cloud/workload.toml");
  for (const std::string n :
       {"sdb", "sdc", "sdd", "sde", "sdf", "sdg", "sdh"}) {
    const std::string odd = Payload(n, line_break);
    Replace(&volumes, "name = \"" + n + "\"", "name = " + TomlString(odd));
    Replace(&volumes, "path = \"/mnt/" + n + "\"",
            "path = " + TomlString("/mnt/" + odd));
  }
  Replace(&workload, "data_directory = \"/mnt/sdb/pgdata\"",
          "data_directory = " +
              TomlString("/mnt/" + Payload("sdb", line_break) + "/pgdata"));
  OddInputs out{dir + "/volumes.toml", dir + "/workload.toml"};
  WriteWhole(out.volumes, volumes);
  WriteWhole(out.workload, workload);
  return out;
}

// `pglayout plan` into |out_dir|; the plan it wrote, read back.
void RunPlan(const OddInputs& in, const std::string& prefer,
             const std::string& out_dir, Plan* plan) {
  Completion run =
      RunPglayout({"plan", "--volumes", in.volumes, "--workload", in.workload,
                   "--prefer", prefer, "--out-dir", out_dir});
  ASSERT_EQ(run.exit_code, 0) << run.output;
  PGLAYOUT_ASSERT_OK(ReadPlanFile(out_dir + "/plan.toml", plan));
}

// ------------------------------------------------------------- stripe.sh --

// Every command uncommented ("# " taken off; "## " notes stay notes), the
// "exit 0" guard gone, and the two files under /etc it appends to moved
// into the sandbox.
std::string Uncommented(const std::string& script) {
  std::string out;
  std::istringstream in(script);
  for (std::string line; std::getline(in, line);) {
    if (line == "exit 0") continue;
    out += (line.starts_with("# ") ? line.substr(2) : line) + "\n";
  }
  Replace(&out, " >> /etc/fstab", " >> fstab");
  Replace(&out, " >> /etc/mdadm/mdadm.conf", " >> mdadm.conf");
  return out;
}

// The programs stripe.sh means to run; each is a stub that appends its
// argv to the log, NUL-separated, after the count of its words.
const std::vector<std::string>& IntendedPrograms() {
  static const std::vector<std::string> kPrograms = {
      "mdadm",    "mkfs.xfs", "update-initramfs", "mkdir",  "mount", "pvcreate",
      "vgcreate", "lvcreate", "install",          "pg_ctl", "mv",    "ln"};
  return kPrograms;
}

struct Sandbox {
  std::string dir;
  std::string log;
};

void MakeSandbox(Sandbox* box) {
  PGLAYOUT_ASSERT_OK(MakeTempDirectory(
      ::testing::TempDir() + "/stripe_sandbox_XXXXXX", &box->dir));
  box->log = box->dir + "/argv.log";
  fs::create_directory(box->dir + "/bin");
  for (const std::string& program : IntendedPrograms()) {
    const std::string path = box->dir + "/bin/" + program;
    WriteWhole(path,
               "#!/bin/bash\nprintf '%s\\0' \"$(($# + 1))\" \"${0##*/}\" "
               "\"$@\" >> " +
                   box->log + "\n");
    fs::permissions(path, fs::perms::owner_all);
  }
  // Anything else the script would run (touch, id, ...) is not on PATH:
  // bash calls this instead, and it is logged.
  WriteWhole(box->dir + "/env.sh",
             "command_not_found_handle() { printf '%s\\0' 2 NOT-FOUND "
             "\"$1\" >> " +
                 box->log + "; return 127; }\n");
}

std::vector<std::vector<std::string>> ReadArgvLog(const std::string& path) {
  const std::string text = ReadWhole(path);
  std::vector<std::string> fields;
  size_t start = 0;
  for (size_t end; (end = text.find('\0', start)) != std::string::npos;
       start = end + 1) {
    fields.push_back(text.substr(start, end - start));
  }
  std::vector<std::vector<std::string>> commands;
  for (size_t i = 0; i < fields.size();) {
    const size_t n = std::stoul(fields[i]);
    commands.emplace_back(fields.begin() + i + 1, fields.begin() + i + 1 + n);
    i += 1 + n;
  }
  return commands;
}

Completion RunInSandbox(const Sandbox& box,
                        const std::vector<std::string>& shell_args) {
  Command command;
  command.argv = {"/usr/bin/env",
                  "-i",
                  "PATH=" + box.dir + "/bin",
                  "HOME=/home/nobody",
                  "BASH_ENV=" + box.dir + "/env.sh",
                  "/bin/bash"};
  command.argv.insert(command.argv.end(), shell_args.begin(), shell_args.end());
  command.cwd = box.dir;
  return RunToCompletion(command);
}

std::string Device(const std::string& member) {
  return "/dev/DISK_OF_" + member;
}

// The mount point stripe.sh gives stripe |s|: its tablespace's parent.
std::string MountPointOf(const Plan& plan, const Stripe& s) {
  for (const TablespaceSpec& ts : plan.tablespaces) {
    if (ts.volume == s.name) return ts.path.substr(0, ts.path.rfind('/'));
  }
  return "/mnt/" + s.name;
}

using Argv = std::vector<std::string>;

void ExpectMdadm(const Stripe& s, const std::string& mount,
                 std::vector<Argv>* out) {
  const std::string md = "/dev/md/" + s.name;
  const std::string n = std::to_string(s.members.size());
  const std::string chunk = std::to_string(s.chunk / 1024);
  Argv create = {"mdadm",
                 "--create",
                 md,
                 "--level=0",
                 "--raid-devices=" + n,
                 "--chunk=" + chunk + "K"};
  for (const std::string& m : s.members) create.push_back(Device(m));
  out->push_back(create);
  out->push_back({"mkfs.xfs", "-d", "su=" + chunk + "k,sw=" + n, md});
  out->push_back({"mdadm", "--detail", "--scan"});
  out->push_back({"update-initramfs", "-u"});
  out->push_back({"mkdir", "-p", mount});
  out->push_back({"mount", "-o", "noatime", md, mount});
}

void ExpectLvm(const Stripe& s, const std::string& mount,
               std::vector<Argv>* out) {
  const std::string vg = s.name + "_vg";
  Argv pv = {"pvcreate"}, vgc = {"vgcreate", vg};
  for (const std::string& m : s.members) {
    pv.push_back(Device(m));
    vgc.push_back(Device(m));
  }
  out->push_back(pv);
  out->push_back(vgc);
  out->push_back({"lvcreate", "--type", "striped", "--stripes",
                  std::to_string(s.members.size()), "--stripesize",
                  std::to_string(s.chunk / 1024) + "k", "--extents", "100%FREE",
                  "--name", s.name, vg});
  out->push_back({"mkfs.xfs", "/dev/" + vg + "/" + s.name});
  out->push_back({"mkdir", "-p", mount});
  out->push_back(
      {"mount", "-o", "noatime", "/dev/" + vg + "/" + s.name, mount});
}

// fstab(5)'s \ooo escapes undone.
std::string FstabUnescaped(const std::string& field) {
  std::string out;
  for (size_t i = 0; i < field.size(); ++i) {
    if (field[i] == '\\' && i + 3 < field.size()) {
      out += static_cast<char>(std::stoi(field.substr(i + 1, 3), nullptr, 8));
      i += 3;
    } else {
      out += field[i];
    }
  }
  return out;
}

class StripeScriptSandboxTest : public ::testing::TestWithParam<bool> {};

TEST_P(StripeScriptSandboxTest, UncommentedRunsOnlyItsCommands) {
  const bool line_break = GetParam();
  Sandbox box;
  ASSERT_NO_FATAL_FAILURE(MakeSandbox(&box));
  const OddInputs in = WriteOddInputs(box.dir, line_break);
  // Inputs and outputs live outside the sandbox's working directory.
  const std::string out_dir =
      box.dir + "/../out_" + fs::path(box.dir).filename().string();
  Plan plan;
  ASSERT_NO_FATAL_FAILURE(RunPlan(in, "stripe", out_dir, &plan));
  fs::remove(in.volumes);
  fs::remove(in.workload);
  ASSERT_EQ(plan.stripes.size(), 1u) << ReadWhole(out_dir + "/stripe.sh");

  const std::string script = Uncommented(ReadWhole(out_dir + "/stripe.sh"));
  {
    size_t etc = script.find("/etc/");
    ASSERT_EQ(etc, std::string::npos) << "the sandbox must not reach /etc:\n"
                                      << script.substr(etc, 200);
  }
  WriteWhole(box.dir + "/stripe.sh", script);
  Completion parse = RunInSandbox(box, {"-n", "stripe.sh"});
  ASSERT_EQ(parse.exit_code, 0) << parse.output << "\n" << script;
  Completion run = RunInSandbox(box, {"stripe.sh"});
  EXPECT_EQ(run.exit_code, 0) << run.output << "\n" << script;

  // Exactly the intended commands, with exactly their arguments.
  std::vector<Argv> expected;
  const Stripe& s = plan.stripes[0];
  const std::string mount = MountPointOf(plan, s);
  std::vector<Argv> md, lvm;
  ExpectMdadm(s, mount, &md);
  ExpectLvm(s, mount, &lvm);
  // A command whose words hold a line break is written as a note, not run.
  auto one_line = [](const Argv& c) {
    for (const std::string& word : c) {
      if (word.find('\n') != std::string::npos) return false;
    }
    return true;
  };
  auto add = [&](const std::vector<Argv>& commands) {
    for (const Argv& c : commands) {
      if (one_line(c)) expected.push_back(c);
    }
  };
  if (s.tool == "mdadm") {
    add(md);
    add(lvm);
  } else {
    add(lvm);
    add(md);
  }
  for (const TablespaceSpec& ts : plan.tablespaces) {
    if (ts.path.find('\n') != std::string::npos) continue;
    expected.push_back({"install", "-d", "-o", "postgres", "-g", "postgres",
                        "-m", "700", ts.path});
  }
  const std::vector<Argv> ran = ReadArgvLog(box.log);
  ASSERT_GE(ran.size(), expected.size()) << script;
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(ran[i], expected[i]) << "command " << i << "\n" << script;
  }
  // Then the WAL's move, on the data directory as the workload gave it.
  const std::string data = "/mnt/" + Payload("sdb", line_break) + "/pgdata";
  std::vector<Argv> wal(ran.begin() + expected.size(), ran.end());
  if (!line_break) {
    ASSERT_EQ(wal.size(), 4u) << script;
    EXPECT_EQ(wal[0], (Argv{"pg_ctl", "stop", "-D", data, "-m", "fast"}));
    ASSERT_EQ(wal[1].size(), 3u);
    EXPECT_EQ(wal[1][0], "mv");
    EXPECT_EQ(wal[1][1], data + "/pg_wal");
    EXPECT_TRUE(wal[1][2].ends_with("/pg_wal")) << wal[1][2];
    EXPECT_EQ(wal[2], (Argv{"ln", "-s", wal[1][2], data + "/pg_wal"}));
    EXPECT_EQ(wal[3], (Argv{"pg_ctl", "start", "-D", data}));
  } else {
    EXPECT_TRUE(wal.empty()) << "a data directory with a line break gets no "
                                "command: "
                             << wal.size();
  }
  for (const Argv& c : ran) EXPECT_NE(c[0], "NOT-FOUND") << c[1];

  // The fstab lines name each device and mount point, as fstab reads them.
  std::istringstream fstab(ReadWhole(box.dir + "/fstab"));
  int lines = 0;
  for (std::string line; std::getline(fstab, line); ++lines) {
    std::istringstream fields(line);
    std::string device, where, type;
    fields >> device >> where >> type;
    EXPECT_TRUE(FstabUnescaped(device) == "/dev/md/" + s.name ||
                FstabUnescaped(device) == "/dev/" + s.name + "_vg/" + s.name)
        << line;
    EXPECT_EQ(FstabUnescaped(where), mount) << line;
    EXPECT_EQ(type, "xfs") << line;
  }
  EXPECT_EQ(lines, 2);

  // Nothing but what the stubs and the redirections wrote.
  for (const fs::directory_entry& e : fs::directory_iterator(box.dir)) {
    const std::string name = e.path().filename().string();
    EXPECT_TRUE(name == "bin" || name == "env.sh" || name == "argv.log" ||
                name == "stripe.sh" || name == "fstab" || name == "mdadm.conf")
        << "an injected command made " << name;
  }
  fs::remove_all(box.dir);
  fs::remove_all(out_dir);
}

INSTANTIATE_TEST_SUITE_P(LineBreak, StripeScriptSandboxTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? std::string("WithLineBreaks")
                                             : std::string("Printable");
                         });

// --------------------------------------------------------------- plan.sql --

// What an attacker puts in a name for psql: a line break to end a comment,
// then SQL and a psql meta-command; with |quote|, a backslash-quote that
// ends a literal where standard_conforming_strings is off.
std::string SqlPayload(const std::string& tag, bool quote) {
  return tag + "\"$(touch inj_dollar_" + tag + ")`touch inj_tick_" + tag +
         "`;\\x" + (quote ? "\\';CREATE ROLE pwned_q_" + tag + ";--" : "") +
         "\n;CREATE ROLE pwned_nl_" + tag +
         ";DROP TABLE canary;\n\\! touch "
         "inj_psql_" +
         tag + "\n\r;CREATE ROLE pwned_cr_" + tag + ";";
}

const char* const kVolumes[] = {"sdb", "sdc", "sdd", "sde",
                                "sdf", "sdg", "sdh"};

// examples/oracle_cloud with each volume's name carrying SqlPayload(quote
// = true) and its path, under the server's root (made, for CREATE
// TABLESPACE), carrying SqlPayload(|quote_in_paths|).
OddInputs WriteSqlInputs(PgCluster* cluster, const std::string& dir,
                         bool quote_in_paths, std::vector<std::string>* paths) {
  std::string volumes = ReadWhole("examples/oracle_cloud/volumes.toml");
  std::string workload = ReadWhole("examples/oracle_cloud/workload.toml");
  for (const std::string n : kVolumes) {
    std::string path;
    EXPECT_TRUE(
        cluster->MakeDirectory("v_" + SqlPayload(n, quote_in_paths), &path)
            .ok());
    paths->push_back(path);
    Replace(&volumes, "name = \"" + n + "\"",
            "name = " + TomlString(SqlPayload(n, true)));
    Replace(&volumes, "path = \"/mnt/" + n + "\"",
            "path = " + TomlString(path));
  }
  Replace(&workload, "data_directory = \"/mnt/sdb/pgdata\"",
          "data_directory = " + TomlString((*paths)[0] + "/pgdata"));
  OddInputs out{dir + "/volumes.toml", dir + "/workload.toml"};
  WriteWhole(out.volumes, volumes);
  WriteWhole(out.workload, workload);
  return out;
}

// The "-- [online] " statements uncommented: what a person might run by
// hand.
std::string OnlineUncommented(const std::string& sql) {
  std::string out;
  std::istringstream in(sql);
  for (std::string line; std::getline(in, line);) {
    out += (line.starts_with("-- [online] ") ? line.substr(12) : line) + "\n";
  }
  return out;
}

// Every commented line uncommented, notes too: "-- [online] ", "-- " or
// "--" taken off the start of each line.
std::string EveryLineUncommented(const std::string& sql) {
  std::string out;
  std::istringstream in(OnlineUncommented(sql));
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with("-- ")) {
      line = line.substr(3);
    } else if (line.starts_with("--")) {
      line = line.substr(2);
    }
    out += line + "\n";
  }
  return out;
}

class PlanSqlPsqlTest : public PgVersionTest {
 protected:
  void SetUp() override {
    PGLAYOUT_ASSERT_OK(StartCluster({}, &cluster_));
    PGLAYOUT_ASSERT_OK(cluster_->Connect(&admin_));
    PGLAYOUT_ASSERT_OK(ExecuteSql(admin_.get(), "CREATE DATABASE victim"));
    // The database owner's trick: literals read the old way.
    PGLAYOUT_ASSERT_OK(ExecuteSql(
        admin_.get(),
        "ALTER DATABASE victim SET standard_conforming_strings = off"));
    PGLAYOUT_ASSERT_OK(cluster_->RunClient(
        {"psql", "-X", "-v", "ON_ERROR_STOP=1", "-d", "victim", "-c",
         "CREATE TABLE canary (x int); CREATE TABLE public.a (id int "
         "PRIMARY KEY); CREATE TABLE public.c (id int PRIMARY KEY)"},
        nullptr));
    roles_ = Value(admin_.get(), "SELECT count(*) FROM pg_catalog.pg_roles");
  }

  // `pglayout plan` of WriteSqlInputs(|quote_in_paths|) into out/ under
  // the server's root; the volumes' paths and the plan, read back.
  void PlanFromSqlInputs(bool quote_in_paths, std::vector<std::string>* paths,
                         Plan* plan) {
    const std::string dir = cluster_->root_dir();
    const OddInputs in =
        WriteSqlInputs(cluster_.get(), dir, quote_in_paths, paths);
    ASSERT_NO_FATAL_FAILURE(RunPlan(in, "auto", dir + "/out", plan));
    ASSERT_FALSE(plan->tablespaces.empty());
  }

  std::string VictimConninfo() const {
    return "host=127.0.0.1 port=" + std::to_string(cluster_->port()) +
           " dbname=victim user=postgres";
  }

  std::string Psql(const std::string& file) {
    std::string output;
    EXPECT_TRUE(
        cluster_->RunClient({"psql", "-X", "-d", "victim", "-f", file}, &output)
            .ok())
        << output;
    return output;
  }

  // psql -f |file| in the directory |cwd|, going on after errors.
  std::string PsqlIn(const std::string& cwd, const std::string& file) {
    Command command;
    command.argv = {PgClientBinDir() + "/psql", "-X", "-d",
                    VictimConninfo(),           "-f", file};
    command.cwd = cwd;
    Completion run = RunToCompletion(command);
    EXPECT_EQ(run.exit_code, 0) << run.output;
    return run.output;
  }

  // Each tablespace of |plan| is where its volume is, byte for byte, one of
  // |paths|, and there are no others.
  void ExpectTablespacesAsPlanned(const Plan& plan,
                                  const std::vector<std::string>& paths) {
    for (const TablespaceSpec& ts : plan.tablespaces) {
      EXPECT_EQ(Value(admin_.get(),
                      "SELECT pg_catalog.pg_tablespace_location(oid) FROM "
                      "pg_catalog.pg_tablespace WHERE spcname = $1",
                      {ts.name}),
                ts.path)
          << ts.name;
      EXPECT_NE(std::find(paths.begin(), paths.end(), ts.path), paths.end())
          << ts.path;
    }
    EXPECT_EQ(Value(admin_.get(),
                    "SELECT count(*) FROM pg_catalog.pg_tablespace WHERE "
                    "spcname NOT IN ('pg_default', 'pg_global')"),
              std::to_string(plan.tablespaces.size()));
  }

  // The canary stands, no role was made, no injected shell command ran.
  void ExpectNothingInjected(const std::string& output) {
    std::unique_ptr<SqlSession> victim;
    PGLAYOUT_ASSERT_OK(
        OpenPgSessionAsConfigured(VictimConninfo(), "pglayout-test", &victim));
    EXPECT_EQ(Value(victim.get(), "SELECT count(*) FROM canary"), "0")
        << output;
    EXPECT_EQ(Value(admin_.get(), "SELECT count(*) FROM pg_catalog.pg_roles"),
              roles_)
        << output;
    for (const std::string n : kVolumes) {
      for (const std::string kind : {"dollar", "tick", "psql"}) {
        const std::string file = "inj_" + kind + "_" + n;
        EXPECT_FALSE(fs::exists(file)) << file << "\n" << output;
        fs::remove(file);
      }
    }
  }

  std::unique_ptr<PgCluster> cluster_;
  std::unique_ptr<SqlSession> admin_;
  std::string roles_;
};

// Paths without a quote (PostgreSQL refuses one in a tablespace's
// location): every statement of plan.sql succeeds, the tablespaces are
// where the volumes are, byte for byte, and only the plan's settings
// changed; then the [online] statements uncommented run as written.
TEST_P(PlanSqlPsqlTest, RunsOnlyThePlansStatements) {
  std::vector<std::string> paths;
  const std::string dir = cluster_->root_dir();
  Plan plan;
  ASSERT_NO_FATAL_FAILURE(PlanFromSqlInputs(false, &paths, &plan));
  const std::string output = Psql(dir + "/out/plan.sql");
  EXPECT_EQ(output.find("ERROR"), std::string::npos) << output;
  ExpectNothingInjected(output);
  ExpectTablespacesAsPlanned(plan, paths);
  std::vector<std::string> names;
  for (const SettingChange& s : plan.settings) names.push_back(s.name);
  EXPECT_EQ(
      Value(
          admin_.get(),
          "SELECT count(*) FROM pg_catalog.pg_file_settings WHERE "
          "sourcefile LIKE '%auto.conf' AND name <> ALL($1::pg_catalog.text[])",
          {TextArrayLiteral(names)}),
      "0");

  WriteWhole(dir + "/online.sql",
             OnlineUncommented(ReadWhole(dir + "/out/plan.sql")));
  const std::string online = Psql(dir + "/online.sql");
  ExpectNothingInjected(online);
}

// Quotes in the paths, read by a database with standard_conforming_strings
// off: PostgreSQL refuses each CREATE TABLESPACE (a quote in a location),
// and nothing else runs.
TEST_P(PlanSqlPsqlTest, QuotesInPathsRunNothingElse) {
  std::vector<std::string> paths;
  const std::string dir = cluster_->root_dir();
  Plan plan;
  ASSERT_NO_FATAL_FAILURE(PlanFromSqlInputs(true, &paths, &plan));
  const std::string output = Psql(dir + "/out/plan.sql");
  ExpectNothingInjected(output);
  std::istringstream lines(output);
  for (std::string line; std::getline(lines, line);) {
    if (line.find("ERROR") == std::string::npos) continue;
    EXPECT_TRUE(line.find("cannot contain single quotes") !=
                    std::string::npos ||
                line.find("does not exist") != std::string::npos)
        << line;
  }
}

PGLAYOUT_INSTANTIATE_PG_VERSIONS(PlanSqlPsqlTest);

// The same server, on 12 too, for plan.sql with every commented line
// uncommented (notes as well as the [online] statements) and run by psql,
// going on after each error, in a sandbox directory: what a careless
// person might do. The notes fail as SQL, each on its own; nothing of a
// name or a path runs; the statements do what they say (the tablespaces,
// public.b moved, public.a rebuilt with its hash partitions); no file
// appears in the sandbox or the test's directory. (It fails when a note
// is a "-- " line: docs/security.md, "Files for people".)
class PlanSqlEveryLineTest : public PlanSqlPsqlTest {};

TEST_P(PlanSqlEveryLineTest, RunsNothingOfANameOrPath) {
  std::vector<std::string> paths;
  const std::string dir = cluster_->root_dir();
  Plan plan;
  ASSERT_NO_FATAL_FAILURE(PlanFromSqlInputs(false, &paths, &plan));
  const Placement* moved = nullptr;
  const Placement* hashed = nullptr;
  for (const Placement& p : plan.placements) {
    if (p.relation == "public.b") moved = &p;
    if (p.relation == "public.a") hashed = &p;
  }
  ASSERT_TRUE(moved != nullptr && moved->strategy == Strategy::kMove);
  ASSERT_TRUE(hashed != nullptr &&
              hashed->strategy == Strategy::kHashPartition);
  PGLAYOUT_ASSERT_OK(cluster_->RunClient(
      {"psql", "-X", "-v", "ON_ERROR_STOP=1", "-d", "victim", "-c",
       "CREATE TABLE public.b (id int PRIMARY KEY)"},
      nullptr));
  std::string sandbox;
  PGLAYOUT_ASSERT_OK(MakeTempDirectory(
      ::testing::TempDir() + "/plan_sql_sandbox_XXXXXX", &sandbox));
  const std::string file = sandbox + "/every.sql";
  WriteWhole(file, EveryLineUncommented(ReadWhole(dir + "/out/plan.sql")));
  const std::string output = PsqlIn(sandbox, file);
  ExpectNothingInjected(output);
  std::vector<std::string> left;
  for (const fs::directory_entry& e : fs::directory_iterator(sandbox)) {
    left.push_back(e.path().filename().string());
  }
  EXPECT_EQ(left, std::vector<std::string>{"every.sql"}) << output;
  ExpectTablespacesAsPlanned(plan, paths);
  std::unique_ptr<SqlSession> victim;
  PGLAYOUT_ASSERT_OK(
      OpenPgSessionAsConfigured(VictimConninfo(), "pglayout-test", &victim));
  EXPECT_EQ(Value(victim.get(),
                  "SELECT t.spcname FROM pg_catalog.pg_class c JOIN "
                  "pg_catalog.pg_tablespace t ON t.oid = c.reltablespace "
                  "WHERE c.oid = 'public.b'::pg_catalog.regclass"),
            moved->tablespaces.at(0))
      << output;
  EXPECT_EQ(Value(victim.get(),
                  "SELECT pg_catalog.count(*) FROM pg_catalog.pg_inherits "
                  "WHERE inhparent = 'public.a'::pg_catalog.regclass"),
            std::to_string(hashed->partitions))
      << output;
  EXPECT_EQ(Value(victim.get(),
                  "SELECT pg_catalog.count(*) FROM pg_catalog.pg_class "
                  "WHERE oid = 'public.c'::pg_catalog.regclass"),
            "1");
}

PGLAYOUT_INSTANTIATE_PG_VERSIONS_FROM_12(PlanSqlEveryLineTest);

// ------------------------------------------------------------- settings --

// A plan edited to set archive_command (a shell command the server runs as
// its OS user) or a library to preload: migrate refuses it with exit 2,
// naming the line and the setting, before it connects (nothing listens on
// port 1: a connection attempt would exit 1).
TEST(PlanSettings, MigrateRefusesWhatThePlannerNeverWrites) {
  for (const std::string name :
       {"archive_command", "shared_preload_libraries", "made_up_key"}) {
    const std::string plan = WriteTempFile(
        "edited_plan.toml", "[settings]\nmax_wal_size = \"2GB\"\n" + name +
                                " = \"touch /tmp/pglayout_pwned\"\n");
    Completion run = RunPglayout(
        {"migrate", plan, "--apply", "--dsn",
         "host=127.0.0.1 port=1 dbname=x user=postgres connect_timeout=1"});
    EXPECT_EQ(run.exit_code, 2) << run.output;
    EXPECT_NE(run.output.find("edited_plan.toml:3:"), std::string::npos)
        << run.output;
    EXPECT_NE(run.output.find("setting '" + name + "'"), std::string::npos)
        << run.output;
    EXPECT_EQ(run.output.find("127.0.0.1"), std::string::npos)
        << "refused before connecting: " << run.output;
  }
}

// ---------------------------------------------------------------- secrets --

std::string CmdlineOf(pid_t pid) {
  std::string text = ReadWhole("/proc/" + std::to_string(pid) + "/cmdline");
  std::replace(text.begin(), text.end(), '\0', ' ');
  return text;
}

// A password in --dsn is hidden from ps once the options are parsed: read
// /proc/PID/cmdline while observe's session is open (its application_name
// in pg_stat_activity says the parse is long done). The trust-auth test
// server ignores the password; observe still connects with it.
TEST(DsnPassword, NotInProcCmdlineWhileObserveRuns) {
  PgCluster* cluster = nullptr;
  PGLAYOUT_ASSERT_OK(SharedPgCluster(PgVersion::k15, &cluster));
  std::unique_ptr<SqlSession> admin;
  PGLAYOUT_ASSERT_OK(cluster->Connect(&admin));
  Command command;
  command.argv = {PGLAYOUT_BINARY,
                  "observe",
                  "--dsn",
                  "host=127.0.0.1 port=" + std::to_string(cluster->port()) +
                      " dbname=postgres user=postgres password=s3cret",
                  "--duration",
                  "10min",
                  "--interval",
                  "1s",
                  "-o",
                  ::testing::TempDir() + "/dsn_workload.toml"};
  pid_t pid = -1;
  PGLAYOUT_ASSERT_OK(
      SpawnCommand(command, ::testing::TempDir() + "/dsn_observe.out", &pid));
  bool connected = false;
  int wait_status = 0;
  bool exited = false;
  // Up to 60 s for observe to connect: a bound for a broken build, not a
  // measurement.
  for (int i = 0; i < 600 && !connected && !exited; ++i) {
    connected = Value(admin.get(),
                      "SELECT count(*) > 0 FROM pg_catalog.pg_stat_activity "
                      "WHERE application_name = 'pglayout observe'") == "t";
    if (!connected) exited = WaitForChildFor(pid, 100, &wait_status);
  }
  const std::string during = exited ? "" : CmdlineOf(pid);
  if (!exited) {
    kill(pid, SIGKILL);
    PGLAYOUT_EXPECT_OK(WaitForChild(pid, &wait_status));
  }
  ASSERT_TRUE(connected) << TailOfFile(
      ::testing::TempDir() + "/dsn_observe.out", 20);
  EXPECT_EQ(during.find("s3cret"), std::string::npos) << during;
  EXPECT_NE(during.find("password=****** "), std::string::npos) << during;
  EXPECT_NE(during.find(" observe --dsn host=127.0.0.1 "), std::string::npos)
      << during;
}

}  // namespace
}  // namespace pglayout
