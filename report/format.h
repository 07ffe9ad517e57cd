// Numbers for people, each with its unit: the report never prints a bare
// figure. Three significant figures are enough to decide from and keep
// tables narrow on a phone; the exact values stay in the input files.
//
// Units follow common/model.h: IOPS of 8 KiB, MB/s of 10^6 bytes, sizes in
// powers of 1024, latencies given in microseconds.

#ifndef PGLAYOUT_REPORT_FORMAT_H_
#define PGLAYOUT_REPORT_FORMAT_H_

#include <string>
#include <vector>

namespace pglayout::report {

// 3 significant figures with k/M/G suffixes, trailing zeros dropped:
// 950 -> "950", 1234 -> "1.23k", 23000 -> "23k", 0.25 -> "0.25".
std::string Compact(double value);
// "23k IOPS".
std::string Iops(double iops);
// MB/s of 10^6 bytes: "850 MB/s", "8.5 GB/s".
std::string Mbps(double mbps);
// Bytes per second as MB/s of 10^6 bytes: 12.3e6 -> "12.3 MB/s".
std::string BytesPerSecond(double bytes_per_second);
// Latency given in microseconds: "85 µs", "1.2 ms", "1.5 s".
std::string Latency(double microseconds);
// A fraction as a percentage: 0.724 -> "72%".
std::string Percent(double fraction);
// Bytes, powers of 1024: "1.46 GiB".
std::string Bytes(double bytes);
// Seconds: "850 ms", "45 s", "12 min 5 s", "2 h 3 min".
std::string Seconds(double seconds);
// "1.5k |unit|/s".
std::string PerSecond(double value, const std::string& unit);
// "a, b, c" with |separator| between the items.
std::string Join(const std::vector<std::string>& items,
                 const std::string& separator);

}  // namespace pglayout::report

#endif  // PGLAYOUT_REPORT_FORMAT_H_
