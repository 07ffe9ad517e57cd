#include "report/chart.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace pglayout::report {

// Coordinates are rounded to 0.1 unit: exact enough on any screen, and the
// page stays small and reproducible.
std::string SvgNumber(double value) {
  double rounded = std::round(value * 10) / 10;
  if (rounded == 0) rounded = 0;  // no "-0"
  return fmt::format("{}", rounded);
}

namespace {

std::string N(double value) { return SvgNumber(value); }

constexpr double kLineWidth = 560;
constexpr double kLineHeight = 340;
// Horizontal room a point label needs, in user units.
constexpr double kMinLabelGap = 34;

struct Frame {
  double left, top, right, bottom;  // the plot area inside the svg
  double width() const { return right - left; }
  double height() const { return bottom - top; }
};

void OpenSvg(const std::string& id, const std::string& title,
             const std::string& description, double width, double height,
             Markup* out) {
  out->Open("svg", {{"xmlns", "http://www.w3.org/2000/svg"},
                    {"class", "chart"},
                    {"id", id},
                    {"viewBox", fmt::format("0 0 {} {}", N(width), N(height))},
                    {"role", "img"},
                    {"aria-labelledby", id + "-title " + id + "-desc"}});
  out->Element("title", {{"id", id + "-title"}}, title);
  out->Element("desc", {{"id", id + "-desc"}}, description);
}

void Line(double x1, double y1, double x2, double y2, const char* stroke,
          const std::string& dash, double width, Markup* out) {
  std::vector<Attr> attrs = {{"x1", N(x1)},      {"y1", N(y1)},
                             {"x2", N(x2)},      {"y2", N(y2)},
                             {"stroke", stroke}, {"stroke-width", N(width)}};
  if (!dash.empty()) attrs.emplace_back("stroke-dasharray", dash);
  out->Empty("line", attrs);
}

// Text with a white halo, so labels stay legible over lines and grid.
void Label(double x, double y, const std::string& anchor,
           const std::string& text, const std::string& css_class, Markup* out) {
  out->Element(
      "text",
      {{"x", N(x)}, {"y", N(y)}, {"text-anchor", anchor}, {"class", css_class}},
      text);
}

void DrawMarker(Marker marker, double x, double y, double r, const char* fill,
                const char* stroke, Markup* out) {
  std::vector<Attr> paint = {{"fill", fill}, {"stroke", stroke}};
  switch (marker) {
    case Marker::kCircle:
      paint.insert(paint.begin(), {{"cx", N(x)}, {"cy", N(y)}, {"r", N(r)}});
      out->Empty("circle", paint);
      return;
    case Marker::kSquare:
      paint.insert(paint.begin(), {{"x", N(x - r)},
                                   {"y", N(y - r)},
                                   {"width", N(2 * r)},
                                   {"height", N(2 * r)}});
      out->Empty("rect", paint);
      return;
    case Marker::kTriangle:
      paint.insert(
          paint.begin(),
          {"points", fmt::format("{},{} {},{} {},{}", N(x), N(y - 1.2 * r),
                                 N(x - 1.1 * r), N(y + 0.8 * r), N(x + 1.1 * r),
                                 N(y + 0.8 * r))});
      out->Empty("polygon", paint);
      return;
    case Marker::kDiamond:
      paint.insert(
          paint.begin(),
          {"points", fmt::format("{},{} {},{} {},{} {},{}", N(x),
                                 N(y - 1.3 * r), N(x + 1.3 * r), N(y), N(x),
                                 N(y + 1.3 * r), N(x - 1.3 * r), N(y))});
      out->Empty("polygon", paint);
      return;
  }
}

const char* DashFor(bool dashed) { return dashed ? "7 4" : ""; }

// ------------------------------------------------------------ line chart --

struct Extent {
  double x_lo = 0, x_hi = 0, y_hi = 0;
};

Extent DataExtent(const LineChartSpec& spec) {
  Extent e;
  bool first = true;
  auto take = [&](double x, double y) {
    if (first) {
      e.x_lo = e.x_hi = x;
      first = false;
    }
    e.x_lo = std::min(e.x_lo, x);
    e.x_hi = std::max(e.x_hi, x);
    e.y_hi = std::max(e.y_hi, y);
  };
  for (const LineSeries& s : spec.series) {
    for (const ChartPoint& p : s.points) take(p.x, p.y);
  }
  for (const Highlight& h : spec.highlights) take(h.x, h.y);
  for (const VerticalRule& r : spec.rules) take(r.x, 0);
  return e;
}

Scale XScale(const LineChartSpec& spec, const Extent& e, const Frame& f) {
  if (spec.x_log2) {
    double lo = std::exp2(std::floor(std::log2(std::max(e.x_lo, 1.0))));
    double hi = std::exp2(std::ceil(std::log2(std::max(e.x_hi, lo * 2))));
    return Scale::Log2(lo, hi, f.left, f.right);
  }
  return Scale::Linear(0, NiceCeiling(e.x_hi), f.left, f.right);
}

void DrawAxes(const Scale& x, const Scale& y, const Frame& f,
              const LineChartSpec& spec, Markup* out) {
  out->Open("g", {{"class", "axes"}});
  for (const auto& [t, label] : LabeledTicks(y, 5, spec.y_format)) {
    Line(f.left, y(t), f.right, y(t), "#d9d9d9", "", 1, out);
    Label(f.left - 6, y(t) + 4, "end", label, "tick", out);
  }
  for (const auto& [t, label] : LabeledTicks(x, 6, spec.x_format)) {
    Line(x(t), f.top, x(t), f.bottom, "#ececec", "", 1, out);
    Label(x(t), f.bottom + 16, "middle", label, "tick", out);
  }
  Line(f.left, f.bottom, f.right, f.bottom, "#444", "", 1, out);
  Line(f.left, f.top, f.left, f.bottom, "#444", "", 1, out);
  Label((f.left + f.right) / 2, f.bottom + 36, "middle", spec.x_label,
        "axis-title", out);
  double yc = (f.top + f.bottom) / 2;
  out->Element("text",
               {{"x", N(14)},
                {"y", N(yc)},
                {"text-anchor", "middle"},
                {"class", "axis-title"},
                {"transform", fmt::format("rotate(-90 14 {})", N(yc))}},
               spec.y_label);
  out->Close();
}

void DrawSeries(const LineSeries& s, const Scale& x, const Scale& y,
                Markup* out) {
  out->Open("g", {{"class", "series"}});
  std::string points;
  for (const ChartPoint& p : s.points) {
    points +=
        fmt::format("{}{},{}", points.empty() ? "" : " ", N(x(p.x)), N(y(p.y)));
  }
  std::vector<Attr> attrs = {{"points", points},
                             {"fill", "none"},
                             {"stroke", s.color},
                             {"stroke-width", "2"}};
  if (s.dashed) attrs.emplace_back("stroke-dasharray", DashFor(true));
  if (s.points.size() > 1) out->Empty("polyline", attrs);
  // Points crowd where the curve climbs slowly: label a point only when it
  // sits clear of the last labelled one (the table has every value).
  double last_x = -1e9, last_y = -1e9;
  for (const ChartPoint& p : s.points) {
    double px = x(p.x), py = y(p.y);
    DrawMarker(s.marker, px, py, 4, s.color, "#fff", out);
    if (p.label.empty()) continue;
    if (std::fabs(px - last_x) < kMinLabelGap &&
        std::fabs(py - last_y) < kMinLabelGap / 2) {
      continue;
    }
    Label(px + 6, py + 14, "start", p.label, "point-label", out);
    last_x = px;
    last_y = py;
  }
  out->Close();
}

void DrawRule(const VerticalRule& r, const Scale& x, const Frame& f,
              Markup* out) {
  double px = x(r.x);
  Line(px, f.top, px, f.bottom, palette::kBlack, r.dotted ? "2 3" : "6 4", 1.5,
       out);
  bool right_half = px > (f.left + f.right) / 2;
  Label(right_half ? px - 5 : px + 5, f.top + (r.dotted ? 30 : 14),
        right_half ? "end" : "start", r.label, "rule-label", out);
}

void DrawHighlight(const Highlight& h, const Scale& x, const Scale& y,
                   const Frame& f, Markup* out) {
  double px = x(h.x), py = y(h.y);
  DrawMarker(Marker::kDiamond, px, py, 6.5, h.filled ? palette::kBlack : "#fff",
             palette::kBlack, out);
  bool right_half = px > (f.left + f.right) / 2;
  Label(right_half ? px - 11 : px + 11, py - 8, right_half ? "end" : "start",
        h.label, "highlight-label", out);
}

// One legend entry per series: marker, line sample and name, in a row
// above the plot.
void DrawLegend(const std::vector<LineSeries>& series, double left, double y,
                Markup* out) {
  out->Open("g", {{"class", "legend"}});
  double x = left;
  for (const LineSeries& s : series) {
    Line(x, y, x + 24, y, s.color, DashFor(s.dashed), 2, out);
    DrawMarker(s.marker, x + 12, y, 4, s.color, "#fff", out);
    Label(x + 30, y + 4, "start", s.name, "legend-label", out);
    x += 42 + 7.2 * static_cast<double>(s.name.size());
  }
  out->Close();
}

// --------------------------------------------------------------- bar chart --

constexpr double kBarHeight = 13;
constexpr double kRowGap = 10;
constexpr size_t kMaxLabelChars = 30;

std::string HatchId(const BarChartSpec& spec, size_t series) {
  return fmt::format("{}-hatch{}", spec.id, series);
}

void DefineHatches(const BarChartSpec& spec, Markup* out) {
  out->Open("defs");
  for (size_t i = 0; i < spec.series.size(); ++i) {
    const BarSeries& s = spec.series[i];
    if (!s.hatched) continue;
    out->Open("pattern", {{"id", HatchId(spec, i)},
                          {"patternUnits", "userSpaceOnUse"},
                          {"width", "6"},
                          {"height", "6"},
                          {"patternTransform", "rotate(45)"}});
    out->Empty("rect", {{"width", "6"}, {"height", "6"}, {"fill", "#fff"}});
    Line(0, 0, 0, 6, s.color, "", 4, out);
    out->Close();
  }
  out->Close();
}

std::string BarFill(const BarChartSpec& spec, size_t series) {
  if (spec.series[series].hatched) {
    return fmt::format("url(#{})", HatchId(spec, series));
  }
  return spec.series[series].color;
}

void DrawBarLegend(const BarChartSpec& spec, double left, double y,
                   Markup* out) {
  out->Open("g", {{"class", "legend"}});
  double x = left;
  for (size_t i = 0; i < spec.series.size(); ++i) {
    out->Empty("rect", {{"x", N(x)},
                        {"y", N(y - 9)},
                        {"width", "18"},
                        {"height", "12"},
                        {"fill", BarFill(spec, i)},
                        {"stroke", spec.series[i].color}});
    Label(x + 24, y + 2, "start", spec.series[i].name, "legend-label", out);
    x += 36 + 7.2 * static_cast<double>(spec.series[i].name.size());
  }
  if (spec.target) {
    Line(x, y - 9, x, y + 3, palette::kBlack, "6 4", 1.5, out);
    Label(x + 6, y + 2, "start", spec.target_label, "legend-label", out);
  }
  out->Close();
}

double MaxValue(const BarChartSpec& spec) {
  double max = spec.minimum_extent;
  for (const BarRow& row : spec.rows) {
    for (double v : row.values) max = std::max(max, v);
  }
  if (spec.target) max = std::max(max, *spec.target);
  return max;
}

double LabelColumnWidth(const BarChartSpec& spec) {
  size_t longest = 4;
  for (const BarRow& row : spec.rows) {
    longest = std::max(longest, std::min(row.label.size(), kMaxLabelChars));
  }
  return 16 + 7.0 * static_cast<double>(longest);
}

void DrawBarRow(const BarChartSpec& spec, const BarRow& row, double top,
                const Scale& x, double note_x, Markup* out) {
  out->Open("g", {{"class", "bar-row"}});
  out->Open("text", {{"x", N(x(0) - 8)},
                     {"y", N(top + kBarHeight * spec.series.size() / 2 + 4)},
                     {"text-anchor", "end"},
                     {"class", "bar-label"}});
  out->Element("title", row.label);
  out->Text(Shorten(row.label, kMaxLabelChars));
  out->Close();
  for (size_t i = 0; i < spec.series.size(); ++i) {
    double v = i < row.values.size() ? row.values[i] : 0;
    double y = top + kBarHeight * static_cast<double>(i);
    out->Empty("rect", {{"x", N(x(0))},
                        {"y", N(y + 1)},
                        {"width", N(std::max(0.0, x(v) - x(0)))},
                        {"height", N(kBarHeight - 2)},
                        {"fill", BarFill(spec, i)},
                        {"stroke", spec.series[i].color}});
    bool over = spec.target && v > *spec.target;
    std::string text = v == 0 && !spec.zero_label.empty()
                           ? spec.zero_label
                           : spec.value_format(v);
    Label(x(v) + 4, y + kBarHeight - 3, "start", text + (over ? " ▲" : ""),
          over ? "bar-value over" : "bar-value", out);
  }
  if (!row.note.empty()) {
    Label(note_x, top + kBarHeight * spec.series.size() / 2 + 4, "end",
          row.note, "bar-note", out);
  }
  out->Close();
}

}  // namespace

std::vector<std::pair<double, std::string>> LabeledTicks(
    const Scale& scale, int approximate_count, const Formatter& format) {
  std::vector<std::pair<double, std::string>> out;
  for (int n = std::max(1, approximate_count); n >= 1; --n) {
    out.clear();
    bool distinct = true;
    for (double t : scale.Ticks(n)) {
      std::string label = format(t);
      distinct = distinct && (out.empty() || out.back().second != label);
      out.emplace_back(t, std::move(label));
    }
    if (distinct) break;
  }
  return out;
}

Scale Scale::Linear(double lo, double hi, double from, double to) {
  if (!std::isfinite(lo)) lo = 0;
  if (!std::isfinite(hi)) hi = std::numeric_limits<double>::max();
  if (hi <= lo) hi = lo + std::max(1.0, std::fabs(lo));
  if (!std::isfinite(hi)) hi = std::numeric_limits<double>::max();
  return Scale(false, lo, hi, from, to);
}

Scale Scale::Log2(double lo, double hi, double from, double to) {
  if (!std::isfinite(lo)) lo = 1e-9;
  if (!std::isfinite(hi)) hi = std::numeric_limits<double>::max();
  lo = std::max(lo, 1e-9);
  if (hi <= lo) hi = std::min(lo * 2, std::numeric_limits<double>::max());
  return Scale(true, lo, hi, from, to);
}

double Scale::operator()(double value) const {
  double t = log_ ? (std::log2(std::max(value, 1e-9)) - std::log2(lo_)) /
                        (std::log2(hi_) - std::log2(lo_))
                  : (value - lo_) / (hi_ - lo_);
  return from_ + t * (to_ - from_);
}

std::vector<double> Scale::Ticks(int approximate_count) const {
  std::vector<double> ticks;
  if (log_) {
    // log2 of a finite double is within +-1075, so the casts are defined.
    int first = static_cast<int>(std::ceil(std::log2(lo_) - 1e-9));
    int last = static_cast<int>(std::floor(std::log2(hi_) + 1e-9));
    int stride = std::max(1, (last - first) / std::max(1, approximate_count));
    for (int e = first; e <= last; e += stride) ticks.push_back(std::exp2(e));
    return ticks;
  }
  double step = NiceCeiling((hi_ - lo_) / std::max(1, approximate_count));
  // A range too wide for doubles, or a step lost in the rounding of the
  // values, would never end: such an axis gets its two ends only.
  const double first = std::ceil(lo_ / step) * step;
  const double count = (hi_ - first) / step;
  if (!std::isfinite(count) || count > 1000 || first + step == first) {
    return {lo_, hi_};
  }
  for (int i = 0; i <= static_cast<int>(count + 1e-9); ++i) {
    double t = first + i * step;
    ticks.push_back(std::fabs(t) < step * 1e-9 ? 0 : t);
  }
  return ticks;
}

double NiceCeiling(double value) {
  if (value <= 0 || !std::isfinite(value)) return 1;
  double power = std::pow(10.0, std::floor(std::log10(value)));
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0}) {
    if (m * power >= value * (1 - 1e-12)) return m * power;
  }
  return 10 * power;
}

std::string Shorten(const std::string& text, size_t max_chars) {
  // Byte offsets where each code point starts (continuation bytes skipped).
  std::vector<size_t> starts;
  for (size_t i = 0; i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) {
      starts.push_back(i);
    }
  }
  if (starts.size() <= max_chars || max_chars == 0) return text;
  return text.substr(0, starts[max_chars - 1]) + "…";
}

void RenderLineChart(const LineChartSpec& spec, Markup* out) {
  const Frame f{72, 44, kLineWidth - 20, kLineHeight - 52};
  Extent e = DataExtent(spec);
  Scale x = XScale(spec, e, f);
  Scale y = Scale::Linear(0, NiceCeiling(e.y_hi * 1.08), f.bottom, f.top);
  OpenSvg(spec.id, spec.title, spec.description, kLineWidth, kLineHeight, out);
  DrawAxes(x, y, f, spec, out);
  for (const VerticalRule& r : spec.rules) DrawRule(r, x, f, out);
  for (const LineSeries& s : spec.series) DrawSeries(s, x, y, out);
  for (const Highlight& h : spec.highlights) DrawHighlight(h, x, y, f, out);
  DrawLegend(spec.series, f.left, 18, out);
  out->Close();
}

void RenderBarChart(const BarChartSpec& spec, Markup* out) {
  const double label_width = LabelColumnWidth(spec);
  const double note_width = spec.note_header.empty() ? 0 : 84;
  const double width = std::max(kLineWidth, label_width + note_width + 300);
  const double row_height =
      kBarHeight * static_cast<double>(spec.series.size()) + kRowGap;
  const Frame f{label_width, 40, width - note_width - 64,
                40 + row_height * static_cast<double>(spec.rows.size())};
  const double height = f.bottom + 44;
  Scale x = Scale::Linear(0, NiceCeiling(MaxValue(spec)), f.left, f.right);
  OpenSvg(spec.id, spec.title, spec.description, width, height, out);
  DefineHatches(spec, out);
  out->Open("g", {{"class", "axes"}});
  const Formatter& tick_format =
      spec.tick_format ? spec.tick_format : spec.value_format;
  for (const auto& [t, label] : LabeledTicks(x, 5, tick_format)) {
    Line(x(t), f.top - 4, x(t), f.bottom, "#e0e0e0", "", 1, out);
    Label(x(t), f.bottom + 16, "middle", label, "tick", out);
  }
  Line(f.left, f.top - 4, f.left, f.bottom, "#444", "", 1, out);
  Label((f.left + f.right) / 2, f.bottom + 36, "middle", spec.x_label,
        "axis-title", out);
  if (!spec.note_header.empty()) {
    Label(width - 8, f.top - 8, "end", spec.note_header, "bar-note-header",
          out);
  }
  out->Close();
  for (size_t i = 0; i < spec.rows.size(); ++i) {
    DrawBarRow(spec, spec.rows[i], f.top + row_height * static_cast<double>(i),
               x, width - 8, out);
  }
  if (spec.target) {
    Line(x(*spec.target), f.top - 4, x(*spec.target), f.bottom, palette::kBlack,
         "6 4", 1.5, out);
  }
  DrawBarLegend(spec, f.left, 18, out);
  out->Close();
}

}  // namespace pglayout::report
