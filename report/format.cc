#include "report/format.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

#include "common/units.h"

namespace pglayout::report {
namespace {

// |value| rounded to |digits| significant figures.
double RoundSignificant(double value, int digits) {
  if (value == 0 || !std::isfinite(value)) return value;
  int magnitude = static_cast<int>(std::floor(std::log10(std::fabs(value))));
  double scale = std::pow(10.0, digits - 1 - magnitude);
  return std::round(value * scale) / scale;
}

// |value| with |digits| significant figures in fixed notation, without
// trailing zeros ("1.50" -> "1.5", "23.0" -> "23").
std::string Significant(double value, int digits) {
  double rounded = RoundSignificant(value, digits);
  if (rounded == 0) return "0";
  if (!std::isfinite(rounded)) return "n/a";
  int magnitude = static_cast<int>(std::floor(std::log10(std::fabs(rounded))));
  int decimals = std::max(0, digits - 1 - magnitude);
  std::string text = fmt::format("{:.{}f}", rounded, decimals);
  if (text.find('.') != std::string::npos) {
    while (text.back() == '0') text.pop_back();
    if (text.back() == '.') text.pop_back();
  }
  return text;
}

}  // namespace

std::string Compact(double value) {
  struct Suffix {
    double factor;
    const char* name;
  };
  static constexpr Suffix kSuffixes[] = {{1e9, "G"}, {1e6, "M"}, {1e3, "k"}};
  // Round first so that 999,999 reads "1M" rather than "1000k".
  double rounded = RoundSignificant(value, 3);
  for (const Suffix& s : kSuffixes) {
    if (std::fabs(rounded) >= s.factor) {
      return Significant(rounded / s.factor, 3) + s.name;
    }
  }
  return Significant(rounded, 3);
}

std::string Iops(double iops) { return Compact(iops) + " IOPS"; }

std::string Mbps(double mbps) {
  double rounded = RoundSignificant(mbps, 3);
  if (std::fabs(rounded) >= 1000)
    return Significant(rounded / 1000, 3) + " GB/s";
  return Significant(rounded, 3) + " MB/s";
}

std::string BytesPerSecond(double bytes_per_second) {
  return Mbps(bytes_per_second / 1e6);
}

std::string Latency(double microseconds) {
  double magnitude = std::fabs(RoundSignificant(microseconds, 3));
  if (magnitude >= 1e6) return Significant(microseconds / 1e6, 3) + " s";
  if (magnitude >= 1e3) return Significant(microseconds / 1e3, 3) + " ms";
  return Significant(microseconds, 3) + " µs";
}

std::string Percent(double fraction) {
  double percent = fraction * 100;
  if (percent != 0 && std::fabs(percent) < 10) {
    return Significant(percent, 2) + "%";
  }
  return fmt::format("{:.0f}%", percent);
}

std::string Bytes(double bytes) { return HumanSize(bytes); }

std::string Seconds(double seconds) {
  if (seconds < 1) return Latency(seconds * 1e6);
  if (seconds < 60) return Significant(seconds, 3) + " s";
  auto total = static_cast<long long>(std::llround(seconds));
  if (total < 3600) {
    if (total % 60 == 0) return fmt::format("{} min", total / 60);
    return fmt::format("{} min {} s", total / 60, total % 60);
  }
  long long minutes = (total % 3600) / 60;
  if (minutes == 0) return fmt::format("{} h", total / 3600);
  return fmt::format("{} h {} min", total / 3600, minutes);
}

std::string PerSecond(double value, const std::string& unit) {
  return Compact(value) + " " + unit + "/s";
}

std::string Join(const std::vector<std::string>& items,
                 const std::string& separator) {
  return fmt::format("{}", fmt::join(items, separator));
}

}  // namespace pglayout::report
