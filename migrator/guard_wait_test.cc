#include "migrator/guard_wait.h"

#include <gtest/gtest.h>

#include <vector>

#include "common/units.h"
#include "migrator/guard_restore.h"
#include "testing/fake_clock.h"

namespace pglayout::migrator {
namespace {

// A server whose WAL grows at |rate| bytes per second of the fake clock,
// with a checkpoint (redo moved to the LSN of that moment) at each time in
// |checkpoints|, and the last one |since_start| seconds before the wait.
struct FakeServer {
  FakeClock* clock = nullptr;
  double start = 0;
  double rate = 0;
  double since_start = 0;
  double backlog = 0;  // WAL past the redo point when the wait begins
  std::vector<double> checkpoints;

  Status Read(WalPoint* p) const {
    double t = clock->Now() - start;
    p->lsn = 1e9 + backlog + rate * t;
    p->redo = 1e9;
    p->since_start_s = since_start + t;
    for (double c : checkpoints) {
      if (c <= t) {
        p->redo = 1e9 + backlog + rate * c;
        p->since_start_s = t - c;
      }
    }
    return Status::Ok();
  }
};

// WAL at |rate_mib| MiB/s, |backlog_mib| MiB past the redo point of a
// checkpoint that started 100 s before the wait.
FakeServer Server(FakeClock* clock, double rate_mib, double backlog_mib) {
  FakeServer server;
  server.clock = clock;
  server.rate = rate_mib * kMiB;
  server.backlog = backlog_mib * kMiB;
  server.since_start = 100;
  return server;
}

GuardWaitLimits Limits() {
  GuardWaitLimits l;
  l.original = 1 * kGiB;  // requests at 539 MiB; restores under 485 MiB
  l.completion_target = 0.9;
  l.checkpoint_timeout_s = 300;
  l.max_wait_s = 300 * 1.9 + 60;
  return l;
}

GuardWaitResult Wait(FakeServer* server, const GuardWaitLimits& limits,
                     int* waits) {
  server->start = server->clock->Now();
  GuardWaitResult r;
  Status st = WaitForCheckpointRoom(
      server->clock, limits, [server](WalPoint* p) { return server->Read(p); },
      [waits](double, const RestoreCheck&) { ++*waits; }, &r);
  EXPECT_TRUE(st.ok()) << st.ToString();
  return r;
}

TEST(GuardWait, AWorkloadThatAloneOutgrowsTheOriginalEndsItInFiveSeconds) {
  FakeClock clock(1000);
  FakeServer server = Server(&clock, 2.0, 800.0);
  int waits = 0;
  GuardWaitResult r = Wait(&server, Limits(), &waits);
  EXPECT_EQ(r.end, GuardWaitEnd::kFutile);
  EXPECT_TRUE(r.by_rate);
  EXPECT_DOUBLE_EQ(r.waited_s, kForegroundRateSeconds);
  EXPECT_EQ(waits, 5);
  std::string line = GuardWaitLine(Limits(), "1GB", r);
  EXPECT_NE(line.find("no wait can help, by the WAL rate measured over 5 s"),
            std::string::npos)
      << line;
  EXPECT_NE(line.find("about 600 MiB of WAL per checkpoint cycle (300 s)"),
            std::string::npos)
      << line;
}

TEST(GuardWait, WaitsForTheNextTimedCheckpointWhenThatMakesRoom) {
  FakeClock clock(1000);
  FakeServer server = Server(&clock, 0.5, 800.0);
  server.checkpoints = {200};  // the timed one, due in 200 s
  int waits = 0;
  GuardWaitResult r = Wait(&server, Limits(), &waits);
  EXPECT_EQ(r.end, GuardWaitEnd::kRoom);
  EXPECT_DOUBLE_EQ(r.waited_s, 200);
  EXPECT_NE(GuardWaitLine(Limits(), "1GB", r).find("waited 200 s"),
            std::string::npos);
}

TEST(GuardWait, TheBoundEndsAWaitThatNoCheckpointEnds) {
  FakeClock clock(1000);
  FakeServer server = Server(&clock, 0.5, 800.0);
  GuardWaitLimits limits = Limits();
  limits.max_wait_s = 30;
  int waits = 0;
  GuardWaitResult r = Wait(&server, limits, &waits);
  EXPECT_EQ(r.end, GuardWaitEnd::kTimedOut);
  EXPECT_DOUBLE_EQ(r.waited_s, 30);
  EXPECT_NE(GuardWaitLine(limits, "1GB", r)
                .find("no timed checkpoint made room within 30 s"),
            std::string::npos);
  // --restore-wait 0: one look, no wait.
  limits.max_wait_s = 0;
  waits = 0;
  r = Wait(&server, limits, &waits);
  EXPECT_EQ(r.end, GuardWaitEnd::kTimedOut);
  EXPECT_EQ(waits, 0);
  EXPECT_DOUBLE_EQ(r.waited_s, 0);
}

TEST(GuardWait, RoomAtOnceSaysNothing) {
  FakeClock clock(1000);
  FakeServer server = Server(&clock, 0.1, 10.0);
  int waits = 0;
  GuardWaitResult r = Wait(&server, Limits(), &waits);
  EXPECT_EQ(r.end, GuardWaitEnd::kRoom);
  EXPECT_EQ(waits, 0);
  EXPECT_EQ(GuardWaitLine(Limits(), "1GB", r), "");
}

// The command's default: look for room only while the workload's rate is
// measured, then defer, however far away the next timed checkpoint is (an
// hour here: the old default waited for it, up to 1 h 54 min).
TEST(GuardWait, ByDefaultARunLooksForFiveSecondsThenDefers) {
  RestorePolicy policy = PolicyFor(-1, false, 3600, 0.9);
  EXPECT_TRUE(policy.defer);
  EXPECT_DOUBLE_EQ(policy.max_wait_s, kForegroundRateSeconds);
  FakeClock clock(1000);
  // 0.1 MiB/s: 360 MiB per one-hour cycle, under the 485 MiB of room.
  FakeServer server = Server(&clock, 0.1, 800.0);
  server.checkpoints = {3500};  // the timed one, due in an hour
  GuardWaitLimits limits = Limits();
  limits.checkpoint_timeout_s = 3600;
  limits.max_wait_s = policy.max_wait_s;
  int waits = 0;
  GuardWaitResult r = Wait(&server, limits, &waits);
  EXPECT_EQ(r.end, GuardWaitEnd::kTimedOut);
  EXPECT_DOUBLE_EQ(r.waited_s, kForegroundRateSeconds);
  EXPECT_EQ(waits, 5);
  // A workload that alone outgrows the original is still told within the
  // same 5 s (and restored at once: no checkpoint could make room).
  FakeServer busy = Server(&clock, 2.0, 800.0);
  limits.checkpoint_timeout_s = 300;
  waits = 0;
  r = Wait(&busy, limits, &waits);
  EXPECT_EQ(r.end, GuardWaitEnd::kFutile);
  EXPECT_DOUBLE_EQ(r.waited_s, kForegroundRateSeconds);
}

TEST(GuardWait, FinalizeWaitsForAWholeTimedCheckpointAndAGivenWaitRestores) {
  RestorePolicy finalize = PolicyFor(-1, true, 300, 0.9);
  EXPECT_FALSE(finalize.defer);
  EXPECT_DOUBLE_EQ(finalize.max_wait_s, 300 * 1.9 + 60);
  // --restore-wait N: that long, then restore whatever, in a run too.
  for (bool is_finalize : {false, true}) {
    RestorePolicy given = PolicyFor(30, is_finalize, 300, 0.9);
    EXPECT_FALSE(given.defer);
    EXPECT_DOUBLE_EQ(given.max_wait_s, 30);
  }
  EXPECT_DOUBLE_EQ(PolicyFor(0, false, 300, 0.9).max_wait_s, 0);
}

SettingRecord Raised(std::optional<std::string> original_auto_conf) {
  SettingRecord rec;
  rec.name = "max_wal_size";
  rec.kind = "guard";
  rec.original_setting = "1GB";
  rec.original_auto_conf = std::move(original_auto_conf);
  rec.new_value = "2048MB";
  return rec;
}

TEST(GuardRestore, OnlyTheValueTheRunWroteIsRestored) {
  SettingRecord rec = Raised(std::nullopt);
  EXPECT_EQ(CompareAutoConf(rec, "2048MB"), AutoConfNow::kOurs);
  EXPECT_EQ(CompareAutoConf(rec, "2GB"), AutoConfNow::kOurs);  // same bytes
  // A DBA's ALTER SYSTEM SET or RESET since the run raised it: left alone.
  EXPECT_EQ(CompareAutoConf(rec, "4GB"), AutoConfNow::kChanged);
  EXPECT_EQ(CompareAutoConf(rec, "2048"), AutoConfNow::kChanged);  // unitless
  // No entry: RESET, which is where a run with no original entry goes.
  EXPECT_EQ(CompareAutoConf(rec, std::nullopt), AutoConfNow::kOriginal);
  // With an original entry, RESET is someone else's doing; the original
  // itself means a restore already happened (a kill before the journal
  // said so).
  SettingRecord had = Raised("1GB");
  EXPECT_EQ(CompareAutoConf(had, std::nullopt), AutoConfNow::kChanged);
  EXPECT_EQ(CompareAutoConf(had, "1024MB"), AutoConfNow::kOriginal);
  EXPECT_EQ(CompareAutoConf(had, "2048MB"), AutoConfNow::kOurs);
  // Not sizes: text.
  SettingRecord cost = Raised("4");
  cost.name = "random_page_cost";
  cost.new_value = "1.1";
  EXPECT_EQ(CompareAutoConf(cost, "1.1"), AutoConfNow::kOurs);
  EXPECT_EQ(CompareAutoConf(cost, "1.5"), AutoConfNow::kChanged);
}

}  // namespace
}  // namespace pglayout::migrator
