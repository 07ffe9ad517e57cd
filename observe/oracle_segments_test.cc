#include "observe/oracle_segments.h"

#include <gtest/gtest.h>

#include "common/files.h"
#include "common/units.h"

namespace pglayout {
namespace {

constexpr char kFixture[] = "observe/testdata/oracle_segments.csv";

TEST(OracleSegments, ImportsTheFixture) {
  Workload w;
  SegmentImportReport report;
  Status st = ImportSegmentsFile(kFixture, {}, &w, &report);
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(w.source, "oracle-segments");
  EXPECT_EQ(report.rows, 12);
  EXPECT_EQ(report.snapshots, 2);
  EXPECT_DOUBLE_EQ(w.duration, 7200);
  EXPECT_EQ(report.skipped.at("TABLE in the recycle bin (BIN$)"), 1);
  EXPECT_EQ(report.skipped.at("CLUSTER"), 1);

  ASSERT_EQ(w.relations.size(), 5u);
  const Relation& orders = w.relations[0];
  EXPECT_EQ(orders.name, "sales.orders");
  EXPECT_EQ(orders.kind, RelationKind::kTable);
  EXPECT_EQ(orders.size, kGiB);
  EXPECT_DOUBLE_EQ(orders.read_iops_avg, 150);  // 1,080,000 blocks / 7200 s
  EXPECT_DOUBLE_EQ(orders.read_iops, 195);      // p95 of {100, 200}
  EXPECT_DOUBLE_EQ(orders.write_iops_avg, 15);
  EXPECT_DOUBLE_EQ(orders.write_iops, 19.5);

  const Relation* pk = w.Find("sales.orders_pk");
  ASSERT_NE(pk, nullptr);
  EXPECT_EQ(pk->kind, RelationKind::kIndex);
  EXPECT_EQ(pk->table, "sales.orders");
  EXPECT_DOUBLE_EQ(pk->read_iops, 10);

  const Relation* events = w.Find("sales.events");
  ASSERT_NE(events, nullptr);
  EXPECT_TRUE(events->partitioned);
  EXPECT_EQ(events->size, kGiB) << "two partitions of 512 MiB";
  EXPECT_DOUBLE_EQ(events->write_iops_avg, 20);
  EXPECT_DOUBLE_EQ(events->read_iops_avg, 1);

  const Relation* documents = w.Find("sales.documents");
  ASSERT_NE(documents, nullptr) << "the LOB segment adds up into its table";
  EXPECT_EQ(documents->size, 2 * kGiB + 100 * kMiB);
  EXPECT_DOUBLE_EQ(documents->read_iops_avg, 1.5);

  EXPECT_NE(w.Find("hr.\"employee notes\""), nullptr);

  // The result is a valid workload file.
  Workload back;
  st = ParseWorkload(WorkloadToToml(w), "out.toml", &back);
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(back.relations.size(), 5u);
}

TEST(OracleSegments, SchemaMapAndBlockSize) {
  SegmentImportOptions options;
  ASSERT_TRUE(ParseSchemaMap({"sales=shop", "HR=People"}, &options).ok());
  options.block_size = 16384;
  Workload w;
  SegmentImportReport report;
  ASSERT_TRUE(ImportSegmentsFile(kFixture, options, &w, &report).ok());
  ASSERT_NE(w.Find("shop.orders"), nullptr);
  EXPECT_DOUBLE_EQ(w.Find("shop.orders")->read_iops_avg, 300)
      << "16 KiB Oracle blocks are two 8 KiB blocks";
  EXPECT_EQ(w.Find("shop.orders_pk")->table, "shop.orders");
  EXPECT_NE(w.Find("\"People\".\"employee notes\""), nullptr);

  SegmentImportOptions bad;
  Status st = ParseSchemaMap({"SALES"}, &bad);
  EXPECT_TRUE(st.IsInvalidInput());
  EXPECT_NE(st.message().find("expected OWNER=schema"), std::string::npos);
}

TEST(PgIdentifier, QuotesOnlyWhenNeeded) {
  EXPECT_EQ(PgIdentifier("orders"), "orders");
  EXPECT_EQ(PgIdentifier("sys_lob$$"), "sys_lob$$");
  EXPECT_EQ(PgIdentifier("Orders"), "\"Orders\"");
  EXPECT_EQ(PgIdentifier("1st"), "\"1st\"");
  EXPECT_EQ(PgIdentifier("a\"b"), "\"a\"\"b\"");
}

std::string Error(const std::string& text) {
  Workload w;
  SegmentImportReport report;
  Status st = ParseSegmentsCsv(text, "seg.csv", {}, &w, &report);
  EXPECT_TRUE(st.IsInvalidInput()) << st.ToString();
  return st.message();
}

constexpr char kHeader[] =
    "owner,segment_name,segment_type,physical_reads,physical_writes,bytes,"
    "interval_seconds\n";

TEST(OracleSegments, MalformedCsvNamesLineAndColumn) {
  std::string header = kHeader;
  EXPECT_EQ(Error(header + "S,T,TABLE,12x,0,1,60\n"),
            "seg.csv:2:11: column 'physical_reads' expected a non-negative "
            "number, got '12x'");
  EXPECT_EQ(Error(header + "S,T,TABLE,1,0,1,60\nS,\"T,TABLE,1,0,1,60\n"),
            "seg.csv:3:3: quoted field is never closed");
  EXPECT_EQ(Error(header + "S,T,TABLE,1,-4,1,60\n"),
            "seg.csv:2:13: column 'physical_writes' expected a non-negative "
            "number, got '-4'");
  EXPECT_EQ(Error(header + "S,T,TABLE,1,0,1,0\n"),
            "seg.csv:2:17: column 'interval_seconds' must be more than 0");
  EXPECT_EQ(Error(header + "S,T,TABLE,1\n"),
            "seg.csv:2: 4 field(s), fewer than the header's columns");
  EXPECT_EQ(Error(header + ",T,TABLE,1,0,1,60\n"),
            "seg.csv:2:1: column 'owner' is empty");
  EXPECT_EQ(Error(header + "S,T\"x,TABLE,1,0,1,60\n"),
            "seg.csv:2:4: a quote inside an unquoted field; quote the whole "
            "field and double the quote");
  EXPECT_NE(Error("owner,segment_name,physical_reads\nS,T,1\n")
                .find("seg.csv:1: the header lacks column(s) segment_type, "
                      "physical_writes, bytes, interval_seconds"),
            std::string::npos);
  EXPECT_EQ(Error(""), "seg.csv: empty file, expected a header");
  EXPECT_EQ(Error(header), "seg.csv: no data rows after the header");
}

TEST(OracleSegments, QuotedFieldsAndCrlf) {
  Workload w;
  SegmentImportReport report;
  std::string text =
      "OWNER,SEGMENT_NAME,SEGMENT_TYPE,PHYSICAL_READS,PHYSICAL_WRITES,BYTES,"
      "INTERVAL_SECONDS,EXTRA\r\n"
      "APP,\"A \"\"B\"\"\",TABLE,600,60,8192,60,ignored\r\n";
  Status st = ParseSegmentsCsv(text, "crlf.csv", {}, &w, &report);
  ASSERT_TRUE(st.ok()) << st.ToString();
  ASSERT_EQ(w.relations.size(), 1u);
  EXPECT_EQ(w.relations[0].name, "app.\"a \"\"b\"\"\"");
  EXPECT_DOUBLE_EQ(w.relations[0].read_iops, 10);
}

}  // namespace
}  // namespace pglayout
