// Inline SVG charts for the report: line charts (latency against IOPS,
// MB/s against request size) and horizontal bar charts (ranked relations,
// utilisation before and after).
//
// The charts know nothing of volumes or plans: sections turn the model into
// these specs. Every chart is readable without colour: series differ by
// marker shape, dash pattern or hatching as well as by hue (Okabe-Ito
// palette), and values are written next to bars. Each <svg> carries
// role="img" with a <title> and <desc> for screen readers; sections add the
// numbers as a table too.
//
// Sizes are SVG user units; the <svg> scales to its container's width
// through its viewBox, so charts fit a phone and a printed page.

#ifndef PGLAYOUT_REPORT_CHART_H_
#define PGLAYOUT_REPORT_CHART_H_

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "report/markup.h"

namespace pglayout::report {

// Okabe & Ito's palette, distinguishable with every common colour-vision
// deficiency. Yellow is left out: it is unreadable on white.
namespace palette {
inline constexpr const char* kBlue = "#0072B2";
inline constexpr const char* kVermillion = "#D55E00";
inline constexpr const char* kOrange = "#E69F00";
inline constexpr const char* kGreen = "#009E73";
inline constexpr const char* kSky = "#56B4E9";
inline constexpr const char* kPurple = "#CC79A7";
inline constexpr const char* kBlack = "#000000";
inline constexpr const char* kGrey = "#767676";  // 4.5:1 on white
}  // namespace palette

using Formatter = std::function<std::string(double)>;

// A data range mapped onto a pixel range, linear or base-2 logarithmic.
class Scale {
 public:
  static Scale Linear(double lo, double hi, double from, double to);
  // For request sizes: lo and hi must be > 0.
  static Scale Log2(double lo, double hi, double from, double to);

  double operator()(double value) const;
  double lo() const { return lo_; }
  double hi() const { return hi_; }
  // Tick values inside [lo, hi]: 1-2-5 steps (linear), powers of two (log).
  std::vector<double> Ticks(int approximate_count) const;

 private:
  Scale(bool log, double lo, double hi, double from, double to)
      : log_(log), lo_(lo), hi_(hi), from_(from), to_(to) {}
  bool log_;
  double lo_, hi_, from_, to_;
};

// A "nice" upper bound for an axis from 0: 1, 2, 2.5 or 5 times a power of
// ten, at least |value| (e.g. 23,400 -> 25,000).
double NiceCeiling(double value);

// About |approximate_count| ticks of |scale| with their labels, all
// distinct: fewer, wider steps where the format would repeat a label (a
// count axis from 0 to 2 reads "0 1 2", not "0 0 1 2 2").
std::vector<std::pair<double, std::string>> LabeledTicks(
    const Scale& scale, int approximate_count, const Formatter& format);

enum class Marker { kCircle, kTriangle, kSquare, kDiamond };

struct ChartPoint {
  double x = 0;
  double y = 0;
  std::string label;  // small annotation beside the point; may be ""
};

struct LineSeries {
  std::string name;
  const char* color = palette::kBlue;
  Marker marker = Marker::kCircle;
  bool dashed = false;
  std::vector<ChartPoint> points;
};

// A vertical rule across the plot: the knee, the stripe-wide read size.
struct VerticalRule {
  double x = 0;
  std::string label;
  bool dotted = false;  // dotted instead of dashed, to tell two rules apart
};

// A highlighted point: the operating point before or after the plan.
struct Highlight {
  double x = 0;
  double y = 0;
  std::string label;
  bool filled = true;  // filled = planned; hollow = today
};

struct LineChartSpec {
  std::string id;  // unique in the page: prefixes element ids
  std::string title;
  std::string description;  // one or two sentences for screen readers
  std::string x_label;      // with unit: "IOPS (8 KiB random reads)"
  std::string y_label;
  bool x_log2 = false;
  Formatter x_format;
  Formatter y_format;
  std::vector<LineSeries> series;
  std::vector<VerticalRule> rules;
  std::vector<Highlight> highlights;
};

// Appends one <svg> element. Empty series are drawn as an empty frame.
void RenderLineChart(const LineChartSpec& spec, Markup* out);

struct BarSeries {
  std::string name;
  const char* color = palette::kBlue;
  bool hatched = false;  // hatching tells "before" from "after" in grey too
};

struct BarRow {
  std::string label;           // left column; long labels are shortened
  std::vector<double> values;  // one per series; missing values are 0
  std::string note;            // right column, e.g. the relation's size
};

struct BarChartSpec {
  std::string id;
  std::string title;
  std::string description;
  std::string x_label;
  Formatter value_format;  // beside each bar
  Formatter tick_format;   // axis ticks; empty = value_format
  std::vector<BarSeries> series;
  std::vector<BarRow> rows;
  double minimum_extent = 0;     // the axis reaches at least this far
  std::optional<double> target;  // a vertical target line
  std::string target_label;
  std::string note_header;  // heading of the right column
  // Written instead of value_format(0) beside empty bars, e.g. "unused"
  // for a volume that carries nothing yet; "" keeps value_format(0).
  std::string zero_label;
};

// Appends one <svg> element; values above the target are marked with a
// "▲" after their label so the overload is visible without colour.
void RenderBarChart(const BarChartSpec& spec, Markup* out);

// A coordinate for an SVG attribute, rounded to 0.1 unit: "12.5", "0".
std::string SvgNumber(double value);

// Shortens |text| to at most |max_chars| characters (UTF-8 aware), ending
// in "…" when cut.
std::string Shorten(const std::string& text, size_t max_chars);

}  // namespace pglayout::report

#endif  // PGLAYOUT_REPORT_CHART_H_
