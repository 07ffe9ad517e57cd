// What --status says of the checkpoint guard's raise (guard_restore.h).

#include "migrator/guard_restore.h"

#include <gtest/gtest.h>

#include <string>

namespace pglayout::migrator {
namespace {

// What --status says of a raise whose run has not finished: the run, where
// it stopped and both ways back; a DBA's own value since, named as such.
TEST(Guard, AnUnfinishedRunsRaiseNamesTheWayBackOrWhoChangedIt) {
  SettingRecord rec;
  rec.name = "max_wal_size";
  rec.kind = "guard";
  rec.original_setting = "1GB";
  rec.new_value = "2730MB";
  rec.state = "applied";
  RaisedContext stopped;
  stopped.stopped_at = "move:public.t (copy)";
  EXPECT_EQ(RaisedLine(rec, 3, stopped),
            "max_wal_size raised to 2730MB by run 3, which stopped at "
            "move:public.t (copy): `pglayout migrate --apply` with its plan "
            "resumes it and restores max_wal_size to 1GB at its end, "
            "`pglayout migrate --abort` restores it now");
  RaisedContext live = stopped;
  live.going_on = true;
  EXPECT_EQ(RaisedLine(rec, 3, live),
            "max_wal_size raised to 2730MB by run 3, which is running now: "
            "it restores it to 1GB at its end");
  RaisedContext dba = stopped;
  dba.auto_conf = "3GB";
  dba.now = CompareAutoConf(rec, dba.auto_conf);
  EXPECT_EQ(dba.now, AutoConfNow::kChanged);
  EXPECT_EQ(RaisedLine(rec, 3, dba),
            "max_wal_size raised to 2730MB by run 3, then changed by someone "
            "else: postgresql.auto.conf now has '3GB', neither pglayout's "
            "2730MB nor the original 1GB; pglayout leaves that value as it is "
            "(set it back yourself if it was not meant to stay)");
  RaisedContext other = dba;
  other.taken_over_by = "run 1 in database b";
  EXPECT_EQ(RaisedLine(rec, 3, other),
            "max_wal_size raised to 2730MB by run 3, then raised again by run "
            "1 in database b (postgresql.auto.conf now has '3GB'), which "
            "restores it to the cluster's original 1GB");
  RaisedContext same = stopped;
  same.auto_conf = "2730MB";
  EXPECT_EQ(CompareAutoConf(rec, same.auto_conf), AutoConfNow::kOurs);
}

}  // namespace
}  // namespace pglayout::migrator
