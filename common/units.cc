#include "common/units.h"

#include <fmt/format.h>

#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>

#include "common/text.h"

namespace pglayout {
namespace {

struct Unit {
  std::string_view name;
  double factor;
};

constexpr std::array<Unit, 10> kSizeUnits = {{
    {"B", 1},
    {"kB", kKiB},
    {"MB", kMiB},
    {"GB", kGiB},
    {"TB", kTiB},
    {"KiB", kKiB},
    {"MiB", kMiB},
    {"GiB", kGiB},
    {"TiB", kTiB},
    {"KB", kKiB},
}};

constexpr std::array<Unit, 6> kDurationUnits = {{
    {"us", 1e-6},
    {"ms", 1e-3},
    {"s", 1},
    {"min", 60},
    {"h", 3600},
    {"d", 86400},
}};

// Text from a file as its message quotes it: escaped and cut, so a long
// value does not make a long message.
std::string Shown(std::string_view text) { return DisplayName(text, 64); }

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) {
    s.remove_prefix(1);
  }
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) {
    s.remove_suffix(1);
  }
  return s;
}

// Splits "1.5 TiB" into 1.5 and "TiB". Returns false if no number leads.
bool SplitNumberAndUnit(std::string_view text, double* number,
                        std::string_view* unit) {
  text = Trim(text);
  const char* begin = text.data();
  const char* end = begin + text.size();
  auto [ptr, ec] = std::from_chars(begin, end, *number);
  if (ec != std::errc() || ptr == begin) return false;
  *unit = Trim(std::string_view(ptr, end - ptr));
  return std::isfinite(*number);
}

template <size_t N>
const Unit* FindUnit(const std::array<Unit, N>& units, std::string_view name) {
  for (const Unit& u : units) {
    if (u.name == name) return &u;
  }
  return nullptr;
}

}  // namespace

Status ParseSize(std::string_view text, uint64_t* bytes) {
  double number = 0;
  std::string_view unit_name;
  if (!SplitNumberAndUnit(text, &number, &unit_name)) {
    return Status::InvalidInput(fmt::format(
        "'{}' is not a size (write e.g. 600GB, 512KiB, 1.5TiB)", Shown(text)));
  }
  const Unit* unit =
      unit_name.empty() ? &kSizeUnits[0] : FindUnit(kSizeUnits, unit_name);
  if (unit == nullptr) {
    return Status::InvalidInput(fmt::format(
        "unknown size unit '{}' in '{}' (use B, kB, MB, GB, TB or KiB, MiB, "
        "GiB, TiB; all are powers of 1024)",
        Shown(unit_name), Shown(text)));
  }
  if (number < 0) {
    return Status::InvalidInput(
        fmt::format("size '{}' must not be negative", Shown(text)));
  }
  double value = std::round(number * unit->factor);
  if (value > 1.8e19) {
    return Status::InvalidInput(
        fmt::format("size '{}' is too large", Shown(text)));
  }
  *bytes = static_cast<uint64_t>(value);
  return Status::Ok();
}

Status ParseDuration(std::string_view text, double* seconds) {
  double number = 0;
  std::string_view unit_name;
  if (!SplitNumberAndUnit(text, &number, &unit_name)) {
    return Status::InvalidInput(fmt::format(
        "'{}' is not a duration (write e.g. 300s, 5min, 250ms)", Shown(text)));
  }
  const Unit* unit = unit_name.empty() ? FindUnit(kDurationUnits, "s")
                                       : FindUnit(kDurationUnits, unit_name);
  if (unit == nullptr) {
    return Status::InvalidInput(fmt::format(
        "unknown duration unit '{}' in '{}' (use us, ms, s, min, h, d)",
        Shown(unit_name), Shown(text)));
  }
  if (number < 0) {
    return Status::InvalidInput(
        fmt::format("duration '{}' must not be negative", Shown(text)));
  }
  *seconds = number * unit->factor;
  return Status::Ok();
}

double GrowthRate::FactorOver(double seconds) const {
  if (period_seconds <= 0 || fraction <= 0) return 1;
  return std::pow(1 + fraction, seconds / period_seconds);
}

Status ParseGrowthRate(std::string_view text, GrowthRate* rate) {
  auto bad = [&](std::string_view why) {
    return Status::InvalidInput(
        fmt::format("'{}' is not a growth rate: {} (write e.g. 20%/year, "
                    "5%/month, 1%/week, 3%/90d)",
                    text, why));
  };
  const size_t slash = text.find('/');
  if (slash == std::string_view::npos) return bad("no '/period'");
  double number = 0;
  std::string_view unit;
  if (!SplitNumberAndUnit(text.substr(0, slash), &number, &unit) ||
      unit != "%") {
    return bad("the rate must be a percentage");
  }
  if (number < 0) return bad("the rate must not be negative");
  static constexpr std::array<Unit, 4> kPeriods = {{{"year", 365 * 86400.0},
                                                    {"month", 30 * 86400.0},
                                                    {"week", 7 * 86400.0},
                                                    {"day", 86400.0}}};
  const std::string_view period_text = Trim(text.substr(slash + 1));
  double period = 0;
  if (const Unit* named = FindUnit(kPeriods, period_text); named != nullptr) {
    period = named->factor;
  } else if (!ParseDuration(period_text, &period).ok() || period <= 0) {
    return bad(fmt::format("unknown period '{}'", Shown(period_text)));
  }
  *rate = {number / 100, period};
  return Status::Ok();
}

std::string FormatSize(uint64_t bytes) {
  static constexpr std::array<Unit, 4> kLargestFirst = {
      {{"TiB", kTiB}, {"GiB", kGiB}, {"MiB", kMiB}, {"KiB", kKiB}}};
  if (bytes == 0) return "0B";
  for (const Unit& u : kLargestFirst) {
    auto factor = static_cast<uint64_t>(u.factor);
    if (bytes % factor == 0) return fmt::format("{}{}", bytes / factor, u.name);
    // Allow one decimal ("1.5TiB") when it is exact.
    if (bytes >= factor && bytes <= UINT64_MAX / 10 &&
        (bytes * 10) % factor == 0) {
      return fmt::format("{}{}", static_cast<double>(bytes) / u.factor, u.name);
    }
  }
  return fmt::format("{}B", bytes);
}

std::string FormatMeasuredSize(uint64_t bytes) {
  // An exact spelling of a few digits is kept: a declared or provisioned
  // size ("1500GiB") must not lose its last digits.
  const std::string exact = FormatSize(bytes);
  const size_t digits = exact.find_first_not_of("0123456789.");
  if (digits != std::string::npos && digits <= 6 &&
      exact.substr(digits) != "B") {
    return exact;
  }
  static constexpr std::array<Unit, 4> kLargestFirst = {
      {{"TiB", kTiB}, {"GiB", kGiB}, {"MiB", kMiB}, {"KiB", kKiB}}};
  for (const Unit& u : kLargestFirst) {
    const double value = static_cast<double>(bytes) / u.factor;
    if (value < 1) continue;
    // Three significant figures, rounded down: 251.97 -> 251, 23.54 -> 23.5.
    const int decimals = value >= 100 ? 0 : value >= 10 ? 1 : 2;
    const double scale = std::pow(10.0, decimals);
    // (1e-3 of the last digit absorbs the bytes ParseSize truncated.)
    const double shown = std::floor(value * scale + 1e-3) / scale;
    return fmt::format("{}{}", shown, u.name);
  }
  return fmt::format("{}B", bytes);
}

std::string FormatPgSize(uint64_t bytes) {
  static constexpr std::array<Unit, 4> kLargestFirst = {
      {{"TB", kTiB}, {"GB", kGiB}, {"MB", kMiB}, {"kB", kKiB}}};
  for (const Unit& u : kLargestFirst) {
    auto factor = static_cast<uint64_t>(u.factor);
    if (bytes != 0 && bytes % factor == 0) {
      return fmt::format("{}{}", bytes / factor, u.name);
    }
  }
  return fmt::format("{}B", bytes);
}

std::string HumanSize(double bytes) {
  static constexpr std::array<std::string_view, 6> kNames = {
      "B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  size_t i = 0;
  while (std::fabs(bytes) >= 1024 && i + 1 < kNames.size()) {
    bytes /= 1024;
    ++i;
  }
  // From 999.5 on, three significant figures would print "1e+03".
  if (i == 0 || std::fabs(bytes) >= 999.5) {
    return fmt::format("{:.0f} {}", bytes, kNames[i]);
  }
  return fmt::format("{:.3g} {}", bytes, kNames[i]);
}

std::string FormatDuration(double seconds) {
  auto whole = [](double v) { return std::fabs(v - std::round(v)) < 1e-9; };
  if (seconds != 0 && whole(seconds / 86400)) {
    return fmt::format("{}d", std::llround(seconds / 86400));
  }
  if (seconds != 0 && whole(seconds / 3600)) {
    return fmt::format("{}h", std::llround(seconds / 3600));
  }
  if (seconds != 0 && whole(seconds / 60)) {
    return fmt::format("{}min", std::llround(seconds / 60));
  }
  if (whole(seconds)) return fmt::format("{}s", std::llround(seconds));
  if (whole(seconds * 1e3))
    return fmt::format("{}ms", std::llround(seconds * 1e3));
  return fmt::format("{}s", seconds);
}

std::string FormatServerVersion(int v) {
  if (v >= 100000) return fmt::format("{}.{}", v / 10000, v % 10000);
  return fmt::format("{}.{}.{}", v / 10000, v / 100 % 100, v % 100);
}

std::string CountOf(int64_t n, const char* one, const char* many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

}  // namespace pglayout
