#include "observe/log_parser.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>

#include "common/files.h"
#include "observe/workload_stats.h"

namespace pglayout {

bool CheckpointLogEvent::HasFlag(std::string_view flag) const {
  return std::find(flags.begin(), flags.end(), flag) != flags.end();
}

namespace {

bool IsRequested(const CheckpointLogEvent& e) {
  // Shutdown and end-of-recovery checkpoints are neither timed nor
  // requested in pg_stat_checkpointer/pg_stat_bgwriter.
  return !e.HasFlag("time") && !e.HasFlag("shutdown") &&
         !e.HasFlag("end-of-recovery");
}

}  // namespace

int64_t CheckpointLogReport::Timed() const {
  return std::count_if(events.begin(), events.end(),
                       [](const auto& e) { return e.HasFlag("time"); });
}

int64_t CheckpointLogReport::Requested() const {
  return std::count_if(events.begin(), events.end(), IsRequested);
}

int64_t CheckpointLogReport::WalTriggered() const {
  return std::count_if(events.begin(), events.end(),
                       [](const auto& e) { return e.HasFlag("wal"); });
}

double CheckpointLogReport::Span() const {
  double first = -1, last = -1;
  for (const CheckpointLogEvent& e : events) {
    if (e.time < 0) continue;
    if (first < 0) first = e.time;
    last = e.time;
  }
  return first >= 0 && last > first ? last - first : 0;
}

namespace {

bool Digits(std::string_view s, size_t pos, size_t n) {
  if (pos + n > s.size()) return false;
  for (size_t i = pos; i < pos + n; ++i) {
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
  }
  return true;
}

int Number(std::string_view s, size_t pos, size_t n) {
  int v = 0;
  for (size_t i = pos; i < pos + n; ++i) v = v * 10 + (s[i] - '0');
  return v;
}

// Days since 1970-01-01 of a civil date (proleptic Gregorian).
int64_t DaysFromCivil(int y, int m, int d) {
  y -= m <= 2;
  int64_t era = (y >= 0 ? y : y - 399) / 400;
  int64_t yoe = y - era * 400;
  int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

// The first "YYYY-MM-DD HH:MM:SS[.fff]" (or with 'T') before |limit|, as
// seconds since the epoch of that wall clock; -1 if there is none.
double FindTimestamp(std::string_view line, size_t limit) {
  for (size_t i = 0; i + 19 <= limit && i + 19 <= line.size(); ++i) {
    if (!Digits(line, i, 4) || line[i + 4] != '-' || !Digits(line, i + 5, 2) ||
        line[i + 7] != '-' || !Digits(line, i + 8, 2) ||
        (line[i + 10] != ' ' && line[i + 10] != 'T') ||
        !Digits(line, i + 11, 2) || line[i + 13] != ':' ||
        !Digits(line, i + 14, 2) || line[i + 16] != ':' ||
        !Digits(line, i + 17, 2)) {
      continue;
    }
    double t = static_cast<double>(DaysFromCivil(Number(line, i, 4),
                                                 Number(line, i + 5, 2),
                                                 Number(line, i + 8, 2))) *
                   86400 +
               Number(line, i + 11, 2) * 3600 + Number(line, i + 14, 2) * 60 +
               Number(line, i + 17, 2);
    size_t j = i + 19;
    if (j < line.size() && line[j] == '.') {
      int64_t digits = 0, divisor = 1;
      for (++j; j < line.size() && divisor < 1000000000 &&
                std::isdigit(static_cast<unsigned char>(line[j]));
           ++j) {
        digits = digits * 10 + (line[j] - '0');
        divisor *= 10;
      }
      t += static_cast<double>(digits) / static_cast<double>(divisor);
    }
    return t;
  }
  return -1;
}

// The number that follows |key| in |text| ("write=" -> 1.5), or -1.
double ValueAfter(std::string_view text, std::string_view key) {
  size_t pos = text.find(key);
  if (pos == std::string_view::npos) return -1;
  std::string rest(text.substr(pos + key.size(), 32));
  char* end = nullptr;
  double v = std::strtod(rest.c_str(), &end);
  return end == rest.c_str() ? -1 : v;
}

// "wal", "immediate force wait" -> words, up to the end of the message
// (a csvlog line continues with '"' or ',').
std::vector<std::string> Flags(std::string_view rest) {
  std::vector<std::string> flags;
  std::string word;
  for (char c : rest) {
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '-') {
      word += c;
      continue;
    }
    if (!word.empty()) flags.push_back(word);
    word.clear();
    if (c != ' ') break;
  }
  if (!word.empty()) flags.push_back(word);
  return flags;
}

void ParseComplete(std::string_view msg, CheckpointLogEvent* e) {
  e->completed = true;
  e->buffers = static_cast<int64_t>(std::max(0.0, ValueAfter(msg, "wrote ")));
  e->write_s = std::max(0.0, ValueAfter(msg, "write="));
  e->sync_s = std::max(0.0, ValueAfter(msg, "sync="));
  e->total_s = std::max(0.0, ValueAfter(msg, "total="));
  e->distance_kb =
      static_cast<int64_t>(std::max(0.0, ValueAfter(msg, "distance=")));
  e->estimate_kb =
      static_cast<int64_t>(std::max(0.0, ValueAfter(msg, "estimate=")));
}

// The latest started, not yet completed event of the same kind: the
// checkpointer runs one at a time, so "complete" closes the last "starting".
CheckpointLogEvent* Open(CheckpointLogReport* report, bool restartpoint) {
  for (auto it = report->events.rbegin(); it != report->events.rend(); ++it) {
    if (it->restartpoint != restartpoint) continue;
    return it->completed ? nullptr : &*it;
  }
  return nullptr;
}

void ParseLine(std::string_view line, const std::string& where,
               CheckpointLogReport* report) {
  static constexpr std::string_view kKinds[] = {"checkpoint", "restartpoint"};
  for (std::string_view kind : kKinds) {
    bool restart = kind == "restartpoint";
    std::string starting = std::string(kind) + " starting: ";
    std::string complete = std::string(kind) + " complete: ";
    if (size_t pos = line.find(starting); pos != std::string_view::npos) {
      CheckpointLogEvent e;
      e.source = where;
      e.time = FindTimestamp(line, pos);
      e.restartpoint = restart;
      e.flags = Flags(line.substr(pos + starting.size()));
      report->events.push_back(std::move(e));
      return;
    }
    if (size_t pos = line.find(complete); pos != std::string_view::npos) {
      if (CheckpointLogEvent* e = Open(report, restart)) {
        ParseComplete(line.substr(pos), e);
      }
      return;
    }
  }
  constexpr std::string_view kTooFrequent =
      "checkpoints are occurring too frequently (";
  if (size_t pos = line.find(kTooFrequent); pos != std::string_view::npos) {
    ++report->too_frequent_warnings;
    double seconds = ValueAfter(line.substr(pos), "(");
    if (seconds >= 0) report->too_frequent_seconds.push_back(seconds);
  }
}

}  // namespace

void ParseCheckpointLog(std::string_view text, const std::string& source_name,
                        CheckpointLogReport* report) {
  ++report->files;
  int64_t number = 0;
  while (!text.empty()) {
    size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view()
                                         : text.substr(end + 1);
    ++number;
    if (line.find("point") == std::string_view::npos) continue;  // fast path
    ParseLine(line, fmt::format("{}:{}", source_name, number), report);
  }
  report->lines += number;
}

Status ReadCheckpointLogs(const std::vector<std::string>& paths,
                          CheckpointLogReport* report) {
  if (paths.empty()) return Status::InvalidInput("no log file given");
  for (const std::string& path : paths) {
    std::string text;
    Status st = ReadTextFile(path, &text);
    if (!st.ok()) {
      return Status(st).WithContext("cannot read server log " + path);
    }
    ParseCheckpointLog(text, path, report);
  }
  if (report->events.empty() && report->too_frequent_warnings == 0) {
    return Status::InvalidInput(fmt::format(
        "no checkpoint messages in {} ({} lines): the server needs "
        "log_checkpoints = on (the default since PostgreSQL 15) and English "
        "messages (lc_messages = 'C' or 'en_US...')",
        paths.size() == 1 ? paths[0] : fmt::format("{} files", paths.size()),
        report->lines));
  }
  return Status::Ok();
}

namespace {

// WAL rate from checkpoint distances: each distance is the WAL written
// between two consecutive checkpoints' redo points, so distances after the
// first, over the time between the first and the last start, give the rate.
void WalFromDistances(const CheckpointLogReport& report, Workload* w) {
  const CheckpointLogEvent* previous = nullptr;
  double bytes = 0, seconds = 0;
  std::vector<double> rates;
  for (const CheckpointLogEvent& e : report.events) {
    if (e.restartpoint || e.time < 0 || !e.completed) continue;
    if (previous != nullptr && e.time > previous->time) {
      double b = static_cast<double>(e.distance_kb) * 1024;
      double dt = e.time - previous->time;
      bytes += b;
      seconds += dt;
      rates.push_back(b / dt);
    }
    previous = &e;
  }
  if (seconds <= 0) return;
  // Log times have millisecond resolution: so do the rates.
  w->wal_bytes_per_second = std::round(bytes / seconds);
  w->wal_bytes_per_second_peak = std::round(Percentile95(rates));
}

}  // namespace

Workload LogReportToWorkload(const CheckpointLogReport& report) {
  Workload w;
  w.source = "log";
  w.duration = std::round(report.Span() * 1000) / 1000;
  w.checkpoints.timed = report.Timed();
  w.checkpoints.requested = report.Requested();
  for (const CheckpointLogEvent& e : report.events) {
    w.checkpoints.write_time_ms += e.write_s * 1000;
    w.checkpoints.sync_time_ms += e.sync_s * 1000;
    w.checkpoints.buffers_written += e.buffers;
  }
  WalFromDistances(report, &w);
  return w;
}

}  // namespace pglayout
