#include "report/markup.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <limits>

#include "report/chart.h"
#include "report/format.h"

namespace pglayout::report {
namespace {

TEST(Escape, TurnsMarkupCharactersIntoEntities) {
  EXPECT_EQ(
      Escape("<script>alert('x') & \"y\"</script>"),
      "&lt;script&gt;alert(&#39;x&#39;) &amp; &quot;y&quot;&lt;/script&gt;");
}

TEST(Escape, KeepsValidUtf8AndReplacesWhatXmlCannotCarry) {
  EXPECT_EQ(Escape("µs → ✓ 𝄞"), "µs → ✓ 𝄞");
  EXPECT_EQ(Escape("tab\tnew\nline"), "tab\tnew\nline");
  const std::string fffd = "\xEF\xBF\xBD";
  EXPECT_EQ(Escape(std::string("a\0b", 3)), "a" + fffd + "b");
  EXPECT_EQ(Escape("\x1b[31m"), fffd + "[31m");
  EXPECT_EQ(Escape("bad \xC3 end"), "bad " + fffd + " end");  // truncated
  EXPECT_EQ(Escape("\xC0\xAF"), fffd + fffd);                 // overlong '/'
  EXPECT_EQ(Escape("\xED\xA0\x80"), fffd + fffd + fffd);      // surrogate
  EXPECT_EQ(Escape("\xEF\xBF\xBF"), fffd + fffd + fffd);      // U+FFFF
}

TEST(Markup, ClosesInOrderAndEscapesAttributes) {
  Markup m;
  m.Open("p", {{"title", "a\"b<c"}});
  m.Element("b", "x & y");
  m.Empty("br");
  m.Open("span");
  EXPECT_EQ(m.depth(), 2);
  EXPECT_EQ(
      m.Finish(),
      "<p title=\"a&quot;b&lt;c\"><b>x &amp; y</b><br/><span></span></p>");
}

TEST(Markup, ExtraCloseIsIgnored) {
  Markup m;
  m.Close();
  m.Element("i", "ok");
  m.Close();
  EXPECT_EQ(m.Finish(), "<i>ok</i>");
}

TEST(Format, NumbersCarryUnitsAndThreeSignificantFigures) {
  EXPECT_EQ(Compact(950), "950");
  EXPECT_EQ(Compact(1234), "1.23k");
  EXPECT_EQ(Compact(23000), "23k");
  EXPECT_EQ(Compact(999999), "1M");
  EXPECT_EQ(Compact(0.25), "0.25");
  EXPECT_EQ(Compact(0), "0");
  EXPECT_EQ(Iops(11200), "11.2k IOPS");
  EXPECT_EQ(Mbps(850), "850 MB/s");
  EXPECT_EQ(Mbps(8500), "8.5 GB/s");
  EXPECT_EQ(BytesPerSecond(14e6), "14 MB/s");
  EXPECT_EQ(Latency(85), "85 µs");
  EXPECT_EQ(Latency(1450), "1.45 ms");
  EXPECT_EQ(Latency(999.9), "1 ms");
  EXPECT_EQ(Latency(1.5e6), "1.5 s");
  EXPECT_EQ(Percent(0.724), "72%");
  EXPECT_EQ(Percent(1.35), "135%");
  EXPECT_EQ(Percent(0.051), "5.1%");
  EXPECT_EQ(Bytes(2 * 1024.0 * 1024), "2 MiB");
  EXPECT_EQ(Seconds(0.25), "250 ms");
  EXPECT_EQ(Seconds(45), "45 s");
  EXPECT_EQ(Seconds(725), "12 min 5 s");
  EXPECT_EQ(Seconds(3600), "1 h");
  EXPECT_EQ(Seconds(7380), "2 h 3 min");
  EXPECT_EQ(PerSecond(1850, "commits"), "1.85k commits/s");
}

TEST(Scale, LinearTicksAreRoundNumbersInsideTheRange) {
  Scale s = Scale::Linear(0, 25000, 0, 100);
  EXPECT_EQ(s.Ticks(5),
            (std::vector<double>{0, 5000, 10000, 15000, 20000, 25000}));
  EXPECT_DOUBLE_EQ(s(12500), 50);
}

TEST(Scale, TickLabelsAreDistinct) {
  Scale counts = Scale::Linear(0, 2, 0, 100);
  auto whole = [](double v) { return fmt::format("{:.0f}", v); };
  std::vector<std::string> labels;
  std::vector<double> at;
  for (const auto& [t, label] : LabeledTicks(counts, 5, whole)) {
    at.push_back(t);
    labels.push_back(label);
  }
  EXPECT_EQ(labels, (std::vector<std::string>{"0", "1", "2"}));
  EXPECT_EQ(at, (std::vector<double>{0, 1, 2}));
  // A format that shows the half steps keeps them.
  auto tenths = [](double v) { return fmt::format("{:.1f}", v); };
  EXPECT_EQ(LabeledTicks(counts, 5, tenths).size(), 5u);
}

TEST(Scale, Log2TicksArePowersOfTwo) {
  Scale s = Scale::Log2(128 * 1024, 4 * 1024 * 1024, 0, 500);
  std::vector<double> ticks = s.Ticks(6);
  ASSERT_EQ(ticks.size(), 6u);
  EXPECT_EQ(ticks.front(), 128 * 1024);
  EXPECT_EQ(ticks.back(), 4 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(s(1024 * 1024), 300);  // 3 of 5 doublings
}

// Issue 39: a value near the largest double made the axis infinite and
// Ticks stepped by 1 forever. Such an axis has its two ends only.
TEST(Scale, AnAxisTooWideForDoublesEnds) {
  const double huge = std::numeric_limits<double>::max();
  Scale infinite = Scale::Linear(0, huge * 1.08, 0, 100);  // hi = inf
  EXPECT_EQ(infinite.Ticks(5), (std::vector<double>{0, 5e307, 1e308, 1.5e308}));
  Scale lost = Scale::Linear(1e300, 1e300 + 1e280, 0, 100);
  EXPECT_LE(lost.Ticks(5).size(), 1001u);
  Scale log = Scale::Log2(1, huge * 2, 0, 100);
  EXPECT_FALSE(log.Ticks(6).empty());
  auto whole = [](double v) { return fmt::format("{:.0f}", v); };
  EXPECT_EQ(LabeledTicks(infinite, 5, whole).size(), 4u);
}

TEST(Scale, NiceCeilingRoundsUpToOneTwoFive) {
  EXPECT_EQ(NiceCeiling(23400), 25000);
  EXPECT_EQ(NiceCeiling(1.35), 2);
  EXPECT_EQ(NiceCeiling(1), 1);
  EXPECT_EQ(NiceCeiling(0), 1);
  EXPECT_EQ(NiceCeiling(5001), 10000);
}

TEST(Shorten, CutsByCharactersNotBytes) {
  EXPECT_EQ(Shorten("public.table_a", 30), "public.table_a");
  EXPECT_EQ(Shorten("abcdef", 4), "abc…");
  EXPECT_EQ(Shorten("ééééé", 3), "éé…");
  EXPECT_EQ(Shorten("ééé", 3), "ééé");
}

}  // namespace
}  // namespace pglayout::report
