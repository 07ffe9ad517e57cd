#include "common/units.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

namespace pglayout {
namespace {

uint64_t Size(const char* text) {
  uint64_t bytes = 0;
  Status st = ParseSize(text, &bytes);
  EXPECT_TRUE(st.ok()) << text << ": " << st.ToString();
  return bytes;
}

double Seconds(const char* text) {
  double s = -1;
  Status st = ParseDuration(text, &s);
  EXPECT_TRUE(st.ok()) << text << ": " << st.ToString();
  return s;
}

TEST(ParseSize, PostgresUnitsArePowersOf1024) {
  EXPECT_EQ(Size("600GB"), 600 * kGiB);
  EXPECT_EQ(Size("8kB"), 8192u);
  EXPECT_EQ(Size("16MB"), 16 * kMiB);
  EXPECT_EQ(Size("2TB"), 2 * kTiB);
}

TEST(ParseSize, IecUnitsFractionsAndPlainBytes) {
  EXPECT_EQ(Size("512KiB"), 512 * kKiB);
  EXPECT_EQ(Size("1.5TiB"), kTiB + kTiB / 2);
  EXPECT_EQ(Size("4096"), 4096u);
  EXPECT_EQ(Size(" 20 GiB "), 20 * kGiB);
  EXPECT_EQ(Size("0"), 0u);
}

TEST(ParseSize, RejectsUnknownUnitsNamingThem) {
  uint64_t bytes = 7;
  Status st = ParseSize("600gb", &bytes);
  ASSERT_TRUE(st.IsInvalidInput());
  EXPECT_NE(st.message().find("'gb'"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("powers of 1024"), std::string::npos);
  EXPECT_EQ(bytes, 7u) << "output untouched on failure";
  EXPECT_TRUE(ParseSize("", &bytes).IsInvalidInput());
  EXPECT_TRUE(ParseSize("GB", &bytes).IsInvalidInput());
  EXPECT_TRUE(ParseSize("-5GB", &bytes).IsInvalidInput());
  EXPECT_TRUE(ParseSize("1e30TB", &bytes).IsInvalidInput());
}

TEST(ParseDuration, PostgresUnitsAndPlainSeconds) {
  EXPECT_DOUBLE_EQ(Seconds("300s"), 300);
  EXPECT_DOUBLE_EQ(Seconds("5min"), 300);
  EXPECT_DOUBLE_EQ(Seconds("250ms"), 0.25);
  EXPECT_DOUBLE_EQ(Seconds("2h"), 7200);
  EXPECT_DOUBLE_EQ(Seconds("1d"), 86400);
  EXPECT_DOUBLE_EQ(Seconds("30"), 30);
  EXPECT_DOUBLE_EQ(Seconds("100us"), 1e-4);
}

TEST(ParseDuration, RejectsBadUnits) {
  double s = 0;
  Status st = ParseDuration("5 minutes", &s);
  ASSERT_TRUE(st.IsInvalidInput());
  EXPECT_NE(st.message().find("'minutes'"), std::string::npos);
  EXPECT_TRUE(ParseDuration("-1s", &s).IsInvalidInput());
}

TEST(FormatSize, RoundTripsExactly) {
  for (uint64_t bytes : {uint64_t{0}, uint64_t{1}, uint64_t{1536}, 600 * kGiB,
                         512 * kKiB, kTiB + kTiB / 2, uint64_t{123456789}}) {
    uint64_t back = 0;
    ASSERT_TRUE(ParseSize(FormatSize(bytes), &back).ok()) << FormatSize(bytes);
    EXPECT_EQ(back, bytes) << FormatSize(bytes);
  }
  EXPECT_EQ(FormatSize(600 * kGiB), "600GiB");
  EXPECT_EQ(FormatSize(kTiB + kTiB / 2), "1.5TiB");
}

TEST(FormatPgSize, UsesPostgresUnits) {
  EXPECT_EQ(FormatPgSize(4 * kGiB), "4GB");
  EXPECT_EQ(FormatPgSize(1536 * kMiB), "1536MB");
  EXPECT_EQ(FormatPgSize(8192), "8kB");
}

TEST(FormatDuration, RoundTripsExactly) {
  EXPECT_EQ(FormatDuration(300), "5min");
  EXPECT_EQ(FormatDuration(90), "90s");
  EXPECT_EQ(FormatDuration(0.25), "250ms");
  EXPECT_EQ(FormatDuration(7200), "2h");
  for (double s : {0.0, 1.5, 86400.0, 0.001, 3.25}) {
    double back = -1;
    ASSERT_TRUE(ParseDuration(FormatDuration(s), &back).ok());
    EXPECT_DOUBLE_EQ(back, s);
  }
}

TEST(CountOf, PicksTheWordForTheCount) {
  EXPECT_EQ(CountOf(1, "batch", "batches"), "1 batch");
  EXPECT_EQ(CountOf(0, "batch", "batches"), "0 batches");
  EXPECT_EQ(CountOf(12, "index", "indexes"), "12 indexes");
}

TEST(HumanSize, ThreeSignificantFigures) {
  EXPECT_EQ(HumanSize(0), "0 B");
  EXPECT_EQ(HumanSize(1.5 * kGiB), "1.5 GiB");
  EXPECT_EQ(HumanSize(512 * kKiB), "512 KiB");
  // Between 1000 and 1023 of a unit: whole numbers, never "1e+03".
  EXPECT_EQ(HumanSize(1000 * kMiB), "1000 MiB");
  EXPECT_EQ(HumanSize(1023.4 * kMiB), "1023 MiB");
  EXPECT_EQ(HumanSize(999.4 * kMiB), "999 MiB");
}

TEST(ParseGrowthRate, NamedAndDurationPeriodsCompound) {
  GrowthRate r;
  ASSERT_TRUE(ParseGrowthRate("20%/year", &r).ok());
  EXPECT_DOUBLE_EQ(r.fraction, 0.2);
  EXPECT_DOUBLE_EQ(r.period_seconds, 365 * 86400.0);
  // Half a year at 20%/year: sqrt(1.2) = 1.0954...
  EXPECT_NEAR(r.FactorOver(182.5 * 86400), 1.095445, 1e-6);
  EXPECT_NEAR(r.FactorOver(2 * 365 * 86400.0), 1.44, 1e-12);
  ASSERT_TRUE(ParseGrowthRate(" 3% / 90d", &r).ok());
  EXPECT_DOUBLE_EQ(r.period_seconds, 90 * 86400.0);
  ASSERT_TRUE(ParseGrowthRate("5%/month", &r).ok());
  EXPECT_DOUBLE_EQ(r.period_seconds, 30 * 86400.0);
  EXPECT_DOUBLE_EQ(GrowthRate{}.FactorOver(1e9), 1);
}

TEST(ParseGrowthRate, RejectsMalformedRatesQuotingThem) {
  GrowthRate r;
  for (const char* text : {"20", "20/year", "20%", "20%/fortnight", "-5%/year",
                           "x%/year", "20%/0d"}) {
    Status st = ParseGrowthRate(text, &r);
    EXPECT_TRUE(st.IsInvalidInput()) << text;
    EXPECT_NE(st.message().find(fmt::format("'{}' is not a growth rate", text)),
              std::string::npos)
        << st.message();
  }
}

// Measured sizes are written to the precision they have: a filesystem's
// 264212084 KiB is "251GiB" (rounded down: never overstated), a host's
// 24683584 KiB "23.5GiB"; exact short spellings stay exact.
TEST(FormatMeasuredSize, ThreeFiguresRoundedDownExactOnesKept) {
  EXPECT_EQ(FormatMeasuredSize(264212084ull * kKiB), "251GiB");
  EXPECT_EQ(FormatMeasuredSize(24683584ull * kKiB), "23.5GiB");
  EXPECT_EQ(FormatMeasuredSize(1500 * kGiB), "1500GiB");
  EXPECT_EQ(FormatMeasuredSize(kTiB + kTiB / 2), "1.5TiB");
  EXPECT_EQ(FormatMeasuredSize(512 * kKiB), "512KiB");
  EXPECT_EQ(FormatMeasuredSize(1000), "1000B");
  EXPECT_EQ(FormatMeasuredSize(1234567), "1.17MiB");
  // What it writes reads back, and writes the same again.
  for (uint64_t bytes : {264212084ull * kKiB, 24683584ull * kKiB, 1234567ull}) {
    uint64_t back = 0;
    ASSERT_TRUE(ParseSize(FormatMeasuredSize(bytes), &back).ok());
    EXPECT_LE(back, bytes);
    EXPECT_EQ(FormatMeasuredSize(back), FormatMeasuredSize(bytes));
  }
}

}  // namespace
}  // namespace pglayout
