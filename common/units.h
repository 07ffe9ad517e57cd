// Sizes, durations and rates as people write them in pglayout's files and
// options.
//
// Sizes follow postgresql.conf: kB, MB, GB and TB are powers of 1024. The
// IEC spellings KiB, MiB, GiB, TiB (also powers of 1024) and B are accepted
// too. A plain number is a count of bytes. Fractions are allowed ("1.5TiB")
// and rounded to the nearest byte.
//
// Durations follow postgresql.conf too: us, ms, s, min, h, d. A plain number
// is seconds.

#ifndef PGLAYOUT_COMMON_UNITS_H_
#define PGLAYOUT_COMMON_UNITS_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "common/status.h"

namespace pglayout {

inline constexpr uint64_t kKiB = 1024;
inline constexpr uint64_t kMiB = 1024 * kKiB;
inline constexpr uint64_t kGiB = 1024 * kMiB;
inline constexpr uint64_t kTiB = 1024 * kGiB;
// PostgreSQL's default block size: the unit of every IOPS figure here.
inline constexpr uint64_t kPageSize = 8192;

// Parses "600GB", "512KiB", "1.5TiB", "4096" into bytes. On failure returns
// InvalidInput with a message that quotes |text| and lists the units.
Status ParseSize(std::string_view text, uint64_t* bytes);

// Parses "300s", "5min", "250ms", "2h", "30" into seconds.
Status ParseDuration(std::string_view text, double* seconds);

// A declared growth rate: a fraction per period, compounding ("20%/year"
// is x1.2 after a year, x1.44 after two).
struct GrowthRate {
  double fraction = 0;        // per period; 0.2 for "20%"
  double period_seconds = 0;  // > 0 when parsed
  // Size multiplier after |seconds|: (1 + fraction) ^ (seconds / period).
  double FactorOver(double seconds) const;
};

// Parses "20%/year", "5%/month", "1%/week", "0.5%/day" or a percentage per
// any duration ParseDuration reads ("3%/90d"). A year is 365 days, a month
// 30. InvalidInput (quoting |text|) for a missing '%' or '/', an unknown
// period, or a negative rate.
Status ParseGrowthRate(std::string_view text, GrowthRate* rate);

// The shortest exact spelling that ParseSize reads back to |bytes|, using
// IEC units: 644245094400 -> "600GiB", 1536 -> "1536B"... is written
// "1.5KiB" only when exact to the byte, otherwise plain bytes.
std::string FormatSize(uint64_t bytes);

// For measured sizes (a filesystem's capacity, a host's memory), written
// for people to read and ParseSize to read back: the largest IEC unit the
// size reaches, with at most three significant figures, rounded down so a
// capacity is never overstated: 270553174016 (264212084 KiB) -> "251GiB".
// A size exact in a few digits ("1500GiB", "1.5TiB", "512KiB") is written
// as it is.
std::string FormatMeasuredSize(uint64_t bytes);

// For postgresql.conf values: the largest of kB/MB/GB/TB that divides
// |bytes| exactly ("4GB", "1536MB"), or bytes if none does.
std::string FormatPgSize(uint64_t bytes);

// For people: three significant figures, "1.46 GiB", "512 KiB", "0 B".
std::string HumanSize(double bytes);

// The shortest exact spelling ParseDuration reads back: "5min", "90s",
// "250ms", "1.5s".
std::string FormatDuration(double seconds);

// server_version_num as people write it: 160004 -> "16.4", 90624 ->
// "9.6.24".
std::string FormatServerVersion(int version_num);

// "1 batch", "3 batches", "0 batches": |n| and the word for that many.
std::string CountOf(int64_t n, const char* one, const char* many);

}  // namespace pglayout

#endif  // PGLAYOUT_COMMON_UNITS_H_
