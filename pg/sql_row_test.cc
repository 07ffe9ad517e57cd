#include "pg/sql_row.h"

#include <gtest/gtest.h>

#include <cmath>

namespace pglayout {
namespace {

SqlResult Result() {
  SqlResult r;
  r.columns = {"oid", "name", "reltuples", "is_partition", "note"};
  r.rows = {{"16384", "orders", "1.5e+06", "t", std::nullopt},
            {"-7", "", "NaN", "off", "x"},
            {"12abc", "b", "1.2.3", "maybe", "y"}};
  return r;
}

TEST(SqlRowReader, ReadsEachTypeAndNullAsItsDefault) {
  SqlResult r = Result();
  SqlRowReader row(r, 0, "pg_class");
  EXPECT_EQ(row.Int(0), 16384);
  EXPECT_EQ(row.Text(1), "orders");
  EXPECT_DOUBLE_EQ(row.Double(2), 1.5e6);
  EXPECT_TRUE(row.Bool(3));
  EXPECT_TRUE(row.IsNull(4));
  EXPECT_EQ(row.Text(4), "");
  EXPECT_EQ(row.Int(4), 0);
  EXPECT_FALSE(row.Bool(4));
  EXPECT_TRUE(row.status().ok()) << row.status().ToString();

  SqlRowReader second(r, 1, "pg_class");
  EXPECT_EQ(second.Int(0), -7);
  EXPECT_TRUE(std::isnan(second.Double(2)));
  EXPECT_FALSE(second.Bool(3));
  EXPECT_TRUE(second.status().ok()) << second.status().ToString();
}

TEST(SqlRowReader, TheFirstBadCellIsNamedAndLaterReadsAreDefaults) {
  SqlResult r = Result();
  SqlRowReader row(r, 2, "pg_class");
  EXPECT_EQ(row.Int(0), 0);
  EXPECT_EQ(row.Text(1), "") << "after an error every read is a default";
  EXPECT_EQ(row.status().message(),
            "pg_class: row 3, oid: \"12abc\" is not an integer");

  SqlRowReader number(r, 2, "pg_class");
  EXPECT_EQ(number.Double(2), 0);
  EXPECT_EQ(number.status().message(),
            "pg_class: row 3, reltuples: \"1.2.3\" is not a number");

  SqlRowReader flag(r, 2, "pg_class");
  EXPECT_FALSE(flag.Bool(3));
  EXPECT_EQ(flag.status().message(),
            "pg_class: row 3, is_partition: \"maybe\" is not a boolean");
}

TEST(SqlRowReader, AMissingColumnOrRowIsAnError) {
  SqlResult r = Result();
  SqlRowReader row(r, 0, "pg_stat_wal");
  EXPECT_EQ(row.Int(5), 0);
  EXPECT_EQ(row.status().message(),
            "pg_stat_wal: row 1 has no column 6 (it has 5)");
  SqlRowReader none(r, 3, "pg_stat_wal");
  EXPECT_TRUE(none.IsNull(0)) << "a missing cell reads as NULL";
  EXPECT_EQ(none.status().message(),
            "pg_stat_wal: row 4 has no column 1 (it has 0)");
}

TEST(ReadRows, StopsAtTheFirstBadRow) {
  SqlResult r = Result();
  std::vector<int64_t> oids;
  Status s = ReadRows(r, "pg_class",
                      [&](SqlRowReader& row) { oids.push_back(row.Int(0)); });
  EXPECT_EQ(oids, (std::vector<int64_t>{16384, -7, 0}));
  EXPECT_EQ(s.message(), "pg_class: row 3, oid: \"12abc\" is not an integer");
}

}  // namespace
}  // namespace pglayout
