#include "observe/oracle_segments.h"

#include <gtest/gtest.h>

#include "common/files.h"
#include "common/units.h"

namespace pglayout {
namespace {

constexpr char kFixture[] = "observe/testdata/oracle_segments.csv";

TEST(OracleSegments, ImportsTheFixture) {
  Workload w;
  SegmentImportSummary report;
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
  SegmentImportSummary report;
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
  SegmentImportSummary report;
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
  SegmentImportSummary report;
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

// ------------------------------------------ Oracle's own exports (item 7) --

Workload Import(const std::string& path, SegmentImportSummary* report,
                const SegmentImportOptions& options = {}) {
  Workload w;
  Status st = ImportSegmentsFile(path, options, &w, report);
  EXPECT_TRUE(st.ok()) << st.ToString();
  return w;
}

Workload Parse(const std::string& text, SegmentImportSummary* report,
               const SegmentImportOptions& options = {}) {
  Workload w;
  Status st = ParseSegmentsCsv(text, "seg.csv", options, &w, report);
  EXPECT_TRUE(st.ok()) << st.ToString();
  return w;
}

TEST(OracleSegments, ImportsSqlPlusExportOfDbaHistViews) {
  // SET MARKUP CSV ON: quoted upper-case DBA_HIST_SEG_STAT[_OBJ] and
  // DBA_HIST_SNAPSHOT names, default TIMESTAMP format, no interval_seconds.
  SegmentImportSummary report;
  Workload w = Import("observe/testdata/awr_sqlplus.csv", &report);
  EXPECT_EQ(report.rows, 15);
  EXPECT_EQ(report.snapshots, 3);
  EXPECT_DOUBLE_EQ(w.duration, 9000) << "two hours and a half hour, from the "
                                        "begin and end times (12 PM is noon)";
  EXPECT_EQ(report.lobs_without_table, 2) << "no TABLE_NAME column";

  ASSERT_EQ(w.relations.size(), 3u);
  const Relation& orders = w.relations[0];
  EXPECT_EQ(orders.name, "shop.orders");
  EXPECT_EQ(orders.kind, RelationKind::kTable);
  EXPECT_EQ(orders.size, 2 * kGiB + 32 * kMiB) << "the largest snapshot";
  EXPECT_DOUBLE_EQ(orders.read_iops_avg, 180)
      << "1,620,000 blocks / 9000 s; both RAC instances of snapshot 2001";
  EXPECT_DOUBLE_EQ(orders.read_iops, 290) << "p95 of {200, 100, 300}";
  EXPECT_DOUBLE_EQ(orders.write_iops_avg, 10);
  EXPECT_DOUBLE_EQ(orders.write_iops, 10);

  EXPECT_EQ(w.relations[1].name, "shop.events");
  EXPECT_TRUE(w.relations[1].partitioned);
  EXPECT_EQ(w.relations[1].size, kGiB + 512 * kMiB + 64 * kMiB);
  EXPECT_DOUBLE_EQ(w.relations[1].write_iops_avg, 20);
  EXPECT_DOUBLE_EQ(w.relations[1].read_iops_avg, 1)
      << "empty PHYSICAL_WRITES_DELTA is 0, reads still count";

  EXPECT_EQ(w.relations[2].name, "shop.orders_pk");
  EXPECT_EQ(w.relations[2].kind, RelationKind::kIndex);
  EXPECT_EQ(w.relations[2].size, 256 * kMiB);
  EXPECT_DOUBLE_EQ(w.relations[2].read_iops, 10);
  EXPECT_DOUBLE_EQ(w.relations[2].write_iops, 1);
}

TEST(OracleSegments, ImportsExcelFileWithBomSemicolonsAndCrlf) {
  SegmentImportSummary report;
  Workload w = Import("observe/testdata/awr_excel_semicolon.csv", &report);
  EXPECT_EQ(report.rows, 6) << "the trailing row of empty cells is blank";
  EXPECT_EQ(report.snapshots, 2);
  EXPECT_DOUBLE_EQ(w.duration, 7200) << "from 14.03.2024 08:00 to 10:00";

  ASSERT_EQ(w.relations.size(), 3u);
  const Relation& artikel = w.relations[0];
  EXPECT_EQ(artikel.name, "lager.artikel") << "no BOM in the owner's name";
  EXPECT_EQ(artikel.size, 5 * kGiB) << "4 GiB + its 1 GiB LOB segment";
  EXPECT_DOUBLE_EQ(artikel.read_iops_avg, 305);
  EXPECT_DOUBLE_EQ(artikel.read_iops, 390.5) << "p95 of {400, 210}";
  EXPECT_DOUBLE_EQ(artikel.write_iops_avg, 15.5);

  const Relation* pk = w.Find("lager.artikel_pk");
  ASSERT_NE(pk, nullptr);
  EXPECT_EQ(pk->table, "lager.artikel");
  EXPECT_DOUBLE_EQ(pk->read_iops, 20);
  EXPECT_DOUBLE_EQ(pk->write_iops, 2);

  const Relation* old = w.Find("lager.\"bestand;alt\"");
  ASSERT_NE(old, nullptr) << "a quoted field holds the separator";
  EXPECT_EQ(old->size, 64 * kKiB);
  EXPECT_DOUBLE_EQ(old->read_iops_avg, 0.5) << "idle in snapshot 502";
}

TEST(OracleSegments, PivotsVSegmentStatisticsLongForm) {
  SegmentImportSummary report;
  Workload w = Import("observe/testdata/vsegstat_long.csv", &report);
  EXPECT_EQ(report.rows, 14);
  EXPECT_EQ(report.snapshots, 1);
  EXPECT_DOUBLE_EQ(w.duration, 864000);

  ASSERT_EQ(w.relations.size(), 3u);
  const Relation& customers = w.relations[0];
  EXPECT_EQ(customers.name, "crm.customers");
  EXPECT_DOUBLE_EQ(customers.read_iops, 100)
      << "'physical reads' only, not 'physical read requests' or 'logical "
         "reads'";
  EXPECT_DOUBLE_EQ(customers.read_iops_avg, 100) << "one interval";
  EXPECT_DOUBLE_EQ(customers.write_iops, 10);
  EXPECT_EQ(customers.size, 3 * kGiB) << "'space allocated', not 'space used'";

  const Relation* contacts = w.Find("crm.contacts");
  ASSERT_NE(contacts, nullptr);
  EXPECT_TRUE(contacts->partitioned);
  EXPECT_EQ(contacts->size, 2 * kGiB);
  EXPECT_DOUBLE_EQ(contacts->read_iops, 2);
  EXPECT_DOUBLE_EQ(contacts->write_iops, 0);

  const Relation* pk = w.Find("crm.customers_pk");
  ASSERT_NE(pk, nullptr);
  EXPECT_EQ(pk->kind, RelationKind::kIndex);
  EXPECT_EQ(pk->size, 256 * kMiB);
  EXPECT_DOUBLE_EQ(pk->read_iops, 10);
}

TEST(OracleSegments, LongFormTakesSizesFromABytesColumnAndAddsInstances) {
  SegmentImportSummary report;
  Workload w = Parse(
      "owner,object_name,object_type,statistic_name,value,bytes,"
      "interval_seconds\n"
      "S,T,TABLE,physical reads,3600,8192,60\n"
      "S,T,TABLE,physical reads,2400,8192,60\n"  // a second GV$ instance
      "S,T,TABLE,space allocated,999999,8192,60\n",
      &report);
  ASSERT_EQ(w.relations.size(), 1u);
  EXPECT_DOUBLE_EQ(w.relations[0].read_iops, 100);
  EXPECT_EQ(w.relations[0].size, 8192u) << "the bytes column wins";
}

TEST(OracleSegments, DetectsTabAndPipeSeparators) {
  SegmentImportSummary report;
  Workload tab = Parse(
      "OWNER\tSEGMENT_NAME\tSEGMENT_TYPE\tPHYSICAL_READS\tPHYSICAL_WRITES\t"
      "BYTES\tINTERVAL_SECONDS\nS\tA,B\tTABLE\t600\t60\t8192\t60\n",
      &report);
  ASSERT_EQ(tab.relations.size(), 1u);
  EXPECT_EQ(tab.relations[0].name, "s.\"a,b\"") << "a comma is plain text";
  EXPECT_DOUBLE_EQ(tab.relations[0].read_iops, 10);

  Workload pipe = Parse(
      "owner|segment_name|segment_type|physical_reads|physical_writes|bytes|"
      "interval_seconds\nS|T|TABLE|60|600|8192|60\n",
      &report);
  ASSERT_EQ(pipe.relations.size(), 1u);
  EXPECT_DOUBLE_EQ(pipe.relations[0].write_iops, 10);
}

TEST(OracleSegments, ForcedSeparatorOverridesDetection) {
  std::string text =
      "owner;segment_name;segment_type;physical_reads;physical_writes;bytes;"
      "interval_seconds\nS;T;TABLE;60;0;8192;60\n";
  SegmentImportOptions semicolon;
  ASSERT_TRUE(ParseSeparator(";", &semicolon.separator).ok());
  SegmentImportSummary report;
  EXPECT_EQ(Parse(text, &report, semicolon).relations.size(), 1u);

  SegmentImportOptions comma;
  ASSERT_TRUE(ParseSeparator(",", &comma.separator).ok());
  Workload w;
  Status st = ParseSegmentsCsv(text, "seg.csv", comma, &w, &report);
  ASSERT_TRUE(st.IsInvalidInput());
  EXPECT_NE(st.message().find("seg.csv:1: the header lacks column(s) owner"),
            std::string::npos)
      << st.message();
  EXPECT_NE(st.message().find("the header is a single column: are fields "
                              "separated by ';'? (--separator)"),
            std::string::npos)
      << st.message();
}

TEST(OracleSegments, ParseSeparatorNames) {
  char c = 0;
  ASSERT_TRUE(ParseSeparator("tab", &c).ok());
  EXPECT_EQ(c, '\t');
  ASSERT_TRUE(ParseSeparator("\t", &c).ok());
  EXPECT_EQ(c, '\t');
  ASSERT_TRUE(ParseSeparator("|", &c).ok());
  EXPECT_EQ(c, '|');
  Status st = ParseSeparator(":", &c);
  EXPECT_TRUE(st.IsInvalidInput());
  EXPECT_EQ(st.message(), "--separator ':': expected one of , ; | tab");
}

TEST(OracleSegments, BomIsSkippedAndColumnsCountWithoutIt) {
  std::string bom = "\xEF\xBB\xBF";
  EXPECT_EQ(Error(bom + kHeader + "S,T,TABLE,12x,0,1,60\n"),
            "seg.csv:2:11: column 'physical_reads' expected a non-negative "
            "number, got '12x'");
  EXPECT_EQ(Error(bom + "\"owner\"x,segment_name\n"),
            "seg.csv:1:8: text after a closing quote; fields are separated "
            "by ',' (--separator)");
  EXPECT_EQ(Error("\xFF\xFEo\0"),
            "seg.csv: the file is UTF-16 text (Excel's \"Unicode Text\"); "
            "save it as \"CSV UTF-8\" or export it again from Oracle");
}

TEST(OracleSegments, CrlfErrorsKeepLineAndColumn) {
  std::string header =
      "owner;segment_name;segment_type;physical_reads;physical_writes;bytes;"
      "interval_seconds\r\n";
  EXPECT_EQ(Error(header + "S;T;TABLE;1;0;1;60\r\nS;T;TABLE;1;0;1x;60\r\n"),
            "seg.csv:3:15: column 'bytes' expected a non-negative number, "
            "got '1x'");
}

TEST(OracleSegments, TwoNamesForOneColumnAreAnError) {
  EXPECT_EQ(Error("owner,segment_name,segment_type,physical_reads,"
                  "physical_writes,bytes,interval_seconds,"
                  "PHYSICAL_READS_DELTA\nS,T,TABLE,1,1,1,60,1\n"),
            "seg.csv:1:87: columns 'physical_reads' and "
            "'PHYSICAL_READS_DELTA' both give physical_reads; keep one of "
            "them");
  EXPECT_EQ(Error("OWNER,OBJECT_NAME,OBJECT_TYPE,PHYSICAL_READS_DELTA,"
                  "PHYSICAL_WRITES_DELTA,SPACE_USED_TOTAL,"
                  "SPACE_ALLOCATED_TOTAL,INTERVAL_SECONDS\n"),
            "seg.csv:1:91: columns 'SPACE_USED_TOTAL' and "
            "'SPACE_ALLOCATED_TOTAL' both give bytes; keep one of them");
  EXPECT_EQ(Error("owner,segment_name,object_name\n").substr(0, 13),
            "seg.csv:1:20:");
}

TEST(OracleSegments, MissingColumnsNameOracleAlternatives) {
  std::string msg = Error(
      "OWNER,OBJECT_NAME,OBJECT_TYPE,PHYSICAL_READS_DELTA,"
      "PHYSICAL_WRITES_DELTA,BEGIN_INTERVAL_TIME\nS,T,TABLE,1,1,x\n");
  EXPECT_NE(msg.find("seg.csv:1: the header lacks column(s) bytes, "
                     "interval_seconds;"),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find("space_allocated_total or space_used_total for bytes, "
                     "begin_interval_time with end_interval_time for "
                     "interval_seconds"),
            std::string::npos)
      << msg;

  msg = Error("SNAP_ID,OBJ#,DATAOBJ#,PHYSICAL_READS_DELTA\n1,2,2,3\n");
  EXPECT_NE(msg.find("DBA_HIST_SEG_STAT names segments by OBJ# only: join "
                     "DBA_HIST_SEG_STAT_OBJ"),
            std::string::npos)
      << msg;

  msg = Error(
      "OWNER,OBJECT_NAME,OBJECT_TYPE,STATISTIC_NAME,VALUE\n"
      "S,T,TABLE,physical reads,1\n");
  EXPECT_NE(msg.find("lacks column(s) interval_seconds"), std::string::npos)
      << msg;
  EXPECT_NE(msg.find("V$SEGMENT_STATISTICS counts since instance startup"),
            std::string::npos)
      << msg;

  EXPECT_EQ(Error("owner,segment_name,segment_type,statistic_name,value,"
                  "physical_reads,interval_seconds\n"),
            "seg.csv:1: the header has both statistic_name and value (one "
            "row per statistic, as V$SEGMENT_STATISTICS) and physical reads "
            "or writes columns (one row per segment); keep one layout");
}

std::string TimesCsv(const std::string& begin, const std::string& end) {
  return "owner,segment_name,segment_type,physical_reads,physical_writes,"
         "bytes,begin_interval_time,end_interval_time\n"
         "S,T,TABLE,3600,0,1,\"" +
         begin + "\",\"" + end + "\"\n";
}

double IntervalOf(const std::string& begin, const std::string& end) {
  SegmentImportSummary report;
  Workload w = Parse(TimesCsv(begin, end), &report);
  return w.duration;
}

TEST(OracleSegments, DerivesTheIntervalFromBeginAndEndTimes) {
  EXPECT_DOUBLE_EQ(IntervalOf("2024-03-14 10:00:00", "2024-03-14 11:00:00"),
                   3600);
  EXPECT_DOUBLE_EQ(
      IntervalOf("2024-03-14T23:30:00.250", "2024-03-15T00:30:00.750"), 3600.5)
      << "ISO 8601, across midnight, with fractions";
  EXPECT_DOUBLE_EQ(IntervalOf("14-MAR-24 11.00.12.345000 AM",
                              "14-MAR-24 12.00.12.345000 PM"),
                   3600)
      << "Oracle's default DD-MON-RR HH.MI.SSXFF AM; 12 PM is noon";
  EXPECT_DOUBLE_EQ(
      IntervalOf("14-mar-2024 12.00.00 AM", "14-mar-2024 01.00.00 AM"), 3600)
      << "12 AM is midnight; four-digit year, lower case month";
  EXPECT_DOUBLE_EQ(IntervalOf("29-FEB-24 23:00:00", "01-MAR-24 01:00:00"), 7200)
      << "24-hour clock; 2024 is a leap year";
  EXPECT_DOUBLE_EQ(IntervalOf("31.12.2023 23:00", "01.01.2024 00:00"), 3600)
      << "Excel's DD.MM.YYYY HH:MI";

  SegmentImportSummary report;
  Workload w = Parse(
      "owner,segment_name,segment_type,physical_reads,physical_writes,bytes,"
      "interval_seconds,begin_interval_time,end_interval_time\n"
      "S,T,TABLE,3600,0,1,60,2024-03-14 10:00,2024-03-14 11:00\n",
      &report);
  EXPECT_DOUBLE_EQ(w.duration, 60) << "interval_seconds wins over the times";
}

TEST(OracleSegments, WithoutSnapIdBeginTimesTellSnapshotsApart) {
  SegmentImportSummary report;
  Workload w = Parse(
      "owner,segment_name,segment_type,physical_reads,physical_writes,bytes,"
      "begin_interval_time,end_interval_time\n"
      "S,T,TABLE,360000,0,1,2024-03-14 10:00,2024-03-14 11:00\n"
      "S,I,INDEX,3600,0,1,2024-03-14 10:00,2024-03-14 11:00\n"
      "S,T,TABLE,720000,0,1,2024-03-14 11:00,2024-03-14 12:00\n",
      &report);
  EXPECT_EQ(report.snapshots, 2);
  EXPECT_DOUBLE_EQ(w.duration, 7200);
  ASSERT_NE(w.Find("s.t"), nullptr);
  EXPECT_DOUBLE_EQ(w.Find("s.t")->read_iops_avg, 150);
  EXPECT_DOUBLE_EQ(w.Find("s.t")->read_iops, 195);
}

TEST(OracleSegments, BadTimesNameLineAndColumn) {
  EXPECT_EQ(Error(TimesCsv("14/03/2024 10:00", "14/03/2024 11:00")),
            "seg.csv:2:20: column 'begin_interval_time' expected a time such "
            "as 2024-03-14 10:00:00 or 14-MAR-24 10.00.00.000 AM, got "
            "'14/03/2024 10:00'");
  EXPECT_EQ(Error(TimesCsv("2024-03-14 10:00", "2024-03-14 25:00"))
                .rfind("seg.csv:2:39: column 'end_interval_time' expected a "
                       "time",
                       0),
            0u)
      << "hour 25";
  EXPECT_EQ(Error(TimesCsv("14-MAR-24 11.00.00 AM", "14-MAR-24 10.00.00 AM")),
            "seg.csv:2:44: column 'end_interval_time' '14-MAR-24 10.00.00 AM' "
            "is not after begin_interval_time '14-MAR-24 11.00.00 AM'");
  EXPECT_NE(Error(TimesCsv("14-MAR-24 13.00.00 PM", "14-MAR-24 02.00.00 PM"))
                .find("column 'begin_interval_time' expected a time"),
            std::string::npos)
      << "13 PM does not exist";
}

}  // namespace
}  // namespace pglayout
