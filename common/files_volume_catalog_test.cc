#include <gtest/gtest.h>

#include <string>

#include "common/files.h"
#include "common/units.h"

namespace pglayout {
namespace {

constexpr char kCatalog[] = R"([catalog]
currency = "EUR"

[[volume_type]]
name = "fast"
provider = "acme"
min_size = "10GB"
max_size = "1TB"
iops_base = 3000
iops_max = 50000
iops_max_per_gib = 500
iops_provisioned = true
throughput_unit = "MiB/s"
throughput_base = 125
throughput_max = 1000
throughput_max_per_iops = 0.25
throughput_provisioned = true
read_latency_us = 800
sync_write_latency_us = 900
price_per_gib = 0.1
price_per_throughput = 0.04
assumed = ["read_latency_us", "sync_write_latency_us"]

[[volume_type.iops_price]]
up_to = 10000
price = 0.01

[[volume_type.iops_price]]
price = 0.005

[[volume_type.source]]
figures = ["min_size", "max_size", "iops_base", "iops_max", "iops_max_per_gib", "iops_provisioned", "throughput_unit", "throughput_base", "throughput_max", "throughput_max_per_iops", "throughput_provisioned", "price_per_gib", "price_per_throughput", "iops_price"]
ref = "https://example.com/acme/volumes"
date = "2026-11-30"
)";

std::string CatalogError(const std::string& text) {
  Catalog c;
  Status st = ParseCatalog(text, "catalog.toml", &c);
  EXPECT_TRUE(st.IsInvalidInput()) << st.ToString();
  return st.message();
}

// |kCatalog| with the first |from| replaced by |to|.
std::string Edited(const std::string& from, const std::string& to) {
  std::string text = kCatalog;
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return text.replace(at, from.size(), to);
}

TEST(CatalogFile, ReadsEveryFigure) {
  Catalog c;
  Status st = ParseCatalog(kCatalog, "catalog.toml", &c);
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(c.currency, "EUR");
  ASSERT_EQ(c.types.size(), 1u);
  const VolumeType& t = c.types[0];
  EXPECT_EQ(t.name, "fast");
  EXPECT_EQ(t.kind, "fast");  // defaults to the name
  EXPECT_EQ(t.min_size, 10 * kGiB);
  EXPECT_EQ(t.max_size, 1024 * kGiB);
  EXPECT_EQ(t.size_step, kGiB);
  EXPECT_DOUBLE_EQ(t.iops_max, 50000);
  EXPECT_DOUBLE_EQ(t.ThroughputUnitBytes(), 1048576.0);
  ASSERT_EQ(t.iops_price.size(), 2u);
  EXPECT_DOUBLE_EQ(t.iops_price[0].up_to, 10000);
  EXPECT_DOUBLE_EQ(t.iops_price[1].up_to, 0);
  EXPECT_TRUE(t.IsAssumed("read_latency_us"));
  EXPECT_FALSE(t.IsAssumed("price_per_gib"));
  ASSERT_EQ(t.sources.size(), 1u);
  EXPECT_EQ(t.sources[0].date, "2026-11-30");
}

TEST(CatalogFile, TheShippedCatalogReads) {
  Catalog c;
  Status st = ReadCatalogFile("examples/catalog/cloud_volumes.toml", &c);
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(c.types.size(), 6u);
}

TEST(CatalogFile, UnknownKeySuggestsTheNearest) {
  std::string e = CatalogError(Edited(
      "read_latency_us = 800", "read_latency_us = 800\nthroughput_per_gb = 1"));
  EXPECT_NE(e.find("catalog.toml:19:1:"), std::string::npos) << e;
  EXPECT_NE(e.find("unknown key 'throughput_per_gb'"), std::string::npos) << e;
  EXPECT_NE(e.find("did you mean 'throughput_per_gib'"), std::string::npos)
      << e;
}

TEST(CatalogFile, AFigureWithoutSourceIsRefused) {
  std::string e = CatalogError(Edited("\"price_per_gib\", ", ""));
  EXPECT_NE(e.find("catalog.toml:20:17:"), std::string::npos) << e;
  EXPECT_NE(e.find("'price_per_gib': has no source"), std::string::npos) << e;
}

TEST(CatalogFile, AFigureBothSourcedAndAssumedIsRefused) {
  std::string e =
      CatalogError(Edited("assumed = [\"read_latency_us\",",
                          "assumed = [\"iops_max\", \"read_latency_us\","));
  EXPECT_NE(e.find("'iops_max' is both sourced and assumed"), std::string::npos)
      << e;
}

TEST(CatalogFile, AssumedMustNameFigures) {
  std::string e = CatalogError(
      Edited("assumed = [\"read_latency_us\"", "assumed = [\"read_latency\""));
  EXPECT_NE(e.find("'read_latency' is not a figure"), std::string::npos) << e;
  EXPECT_NE(e.find("did you mean 'read_latency_us'"), std::string::npos) << e;
}

TEST(CatalogFile, ASourceMustNameGivenFigures) {
  std::string e = CatalogError(Edited("iops_max_per_gib = 500\n", ""));
  EXPECT_NE(e.find("names 'iops_max_per_gib', which this type does not give"),
            std::string::npos)
      << e;
}

TEST(CatalogFile, DatesAreIso) {
  std::string e =
      CatalogError(Edited("date = \"2026-11-30\"", "date = \"30/11/2026\""));
  EXPECT_NE(e.find("key 'date': expected YYYY-MM-DD"), std::string::npos) << e;
}

TEST(CatalogFile, ThroughputUnitIsMbOrMib) {
  std::string e = CatalogError(
      Edited("throughput_unit = \"MiB/s\"", "throughput_unit = \"GB/s\""));
  EXPECT_NE(e.find("catalog.toml:13:19:"), std::string::npos) << e;
  EXPECT_NE(e.find("expected \"MB/s\" or \"MiB/s\""), std::string::npos) << e;
}

TEST(CatalogFile, SizesAreOrdered) {
  std::string e =
      CatalogError(Edited("max_size = \"1TB\"", "max_size = \"5GB\""));
  EXPECT_NE(e.find("key 'max_size': must be at least min_size"),
            std::string::npos)
      << e;
}

TEST(CatalogFile, NumbersAreNumbers) {
  std::string e =
      CatalogError(Edited("iops_max = 50000", "iops_max = \"lots\""));
  EXPECT_NE(e.find("catalog.toml:10:"), std::string::npos) << e;
  EXPECT_NE(e.find("expected a number"), std::string::npos) << e;
}

TEST(CatalogFile, ProvisionedIopsNeedAPrice) {
  std::string text = kCatalog;
  const size_t from = text.find("[[volume_type.iops_price]]");
  const size_t to = text.find("[[volume_type.source]]");
  text.erase(from, to - from);
  std::string e = CatalogError(text);
  EXPECT_NE(e.find("provisioned IOPS need a price"), std::string::npos) << e;
}

TEST(CatalogFile, PriceTiersRise) {
  std::string e = CatalogError(Edited("up_to = 10000", "up_to = 0"));
  EXPECT_NE(e.find("must be above the previous one"), std::string::npos) << e;
}

TEST(CatalogFile, DuplicateTypeNames) {
  std::string e =
      CatalogError(std::string(kCatalog) +
                   std::string(kCatalog).substr(
                       std::string(kCatalog).find("[[volume_type]]")));
  EXPECT_NE(e.find("duplicate volume type 'fast'"), std::string::npos) << e;
}

TEST(CatalogFile, NoTypes) {
  std::string e = CatalogError("[catalog]\ncurrency = \"USD\"\n");
  EXPECT_NE(e.find("declares no [[volume_type]]"), std::string::npos) << e;
}

TEST(CatalogFile, MissingFileIsNotFound) {
  Catalog c;
  EXPECT_EQ(ReadCatalogFile("/nonexistent/catalog.toml", &c).code(),
            Status::Code::kNotFound);
}

}  // namespace
}  // namespace pglayout
