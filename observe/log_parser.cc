#include "observe/log_parser.h"

#include <bzlib.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <istream>
#include <limits>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <queue>
#include <streambuf>
#include <type_traits>

#include "observe/workload_stats.h"

namespace pglayout {

bool CheckpointLogEvent::HasFlag(std::string_view flag) const {
  return std::find(flags.begin(), flags.end(), flag) != flags.end();
}

bool CheckpointLogEvent::Counted() const {
  return !HasFlag("shutdown") && !HasFlag("end-of-recovery");
}

CheckpointAverages CheckpointLogSummary::Averages() const {
  CheckpointAverages a = totals.sums;
  if (a.checkpoints == 0) return a;
  double n = static_cast<double>(a.checkpoints);
  a.buffers /= n;
  a.write_s /= n;
  a.sync_s /= n;
  a.total_s /= n;
  return a;
}

double CheckpointLogSummary::Span() const {
  return totals.last_start > totals.first_start
             ? totals.last_start - totals.first_start
             : 0;
}

namespace {

// ---------------------------------------------------------------------------
// Bytes: a file or memory, then gzip, bzip2 or nothing to undo. Everything
// is read in chunks: a log of any size takes a few hundred KiB of memory.

constexpr size_t kChunk = 256 * 1024;
constexpr size_t kMaxLine = 1024 * 1024;  // longer lines are cut (counted)

class RawInput {
 public:
  virtual ~RawInput() = default;
  // Up to |cap| bytes; 0 at the end or on an error (then status()).
  virtual size_t Read(char* out, size_t cap) = 0;
  const Status& status() const { return status_; }

 protected:
  Status status_;
};

class FileInput : public RawInput {
 public:
  FileInput(std::FILE* file, std::string path)
      : file_(file), path_(std::move(path)) {}
  ~FileInput() override { std::fclose(file_); }
  size_t Read(char* out, size_t cap) override {
    size_t n = std::fread(out, 1, cap, file_);
    if (n == 0 && std::ferror(file_)) status_ = Status::FromErrno(path_, errno);
    return n;
  }

 private:
  std::FILE* file_;
  std::string path_;
};

class MemoryInput : public RawInput {
 public:
  explicit MemoryInput(std::string_view bytes) : bytes_(bytes) {}
  size_t Read(char* out, size_t cap) override {
    size_t n = std::min(cap, bytes_.size());
    std::memcpy(out, bytes_.data(), n);
    bytes_.remove_prefix(n);
    return n;
  }

 private:
  std::string_view bytes_;
};

// |head| (bytes already read to recognise the compression) then |rest|: no
// seek, so pipes (`--from-log <(ssh db cat ...)`) work too.
class PrefixedInput : public RawInput {
 public:
  PrefixedInput(std::string head, std::unique_ptr<RawInput> rest)
      : head_(std::move(head)), rest_(std::move(rest)) {}
  size_t Read(char* out, size_t cap) override {
    if (used_ < head_.size()) {
      size_t n = std::min(cap, head_.size() - used_);
      std::memcpy(out, head_.data() + used_, n);
      used_ += n;
      return n;
    }
    size_t n = rest_->Read(out, cap);
    if (n == 0) status_ = rest_->status();
    return n;
  }

 private:
  std::string head_;
  size_t used_ = 0;
  std::unique_ptr<RawInput> rest_;
};

// Decoded bytes: the text of the log.
class Decoder {
 public:
  virtual ~Decoder() = default;
  // Up to |cap| bytes of text; 0 at the end or on an error (then status()).
  virtual size_t Read(char* out, size_t cap) = 0;
  virtual Status status() const = 0;
};

class PlainDecoder : public Decoder {
 public:
  explicit PlainDecoder(std::unique_ptr<RawInput> in) : in_(std::move(in)) {}
  size_t Read(char* out, size_t cap) override { return in_->Read(out, cap); }
  Status status() const override { return in_->status(); }

 private:
  std::unique_ptr<RawInput> in_;
};

// The parts shared by the two decompressors: the compressed input in chunks,
// the first error, and the members one after another (`cat a.gz b.gz` and
// pbzip2 write several).
class StreamDecoder : public Decoder {
 public:
  size_t Read(char* out, size_t cap) override {
    size_t produced = 0;
    while (produced == 0 && !finished_) produced = Step(out, cap);
    return produced;
  }
  Status status() const override { return status_; }

 protected:
  StreamDecoder(std::unique_ptr<RawInput> in, const char* what)
      : in_(std::move(in)), what_(what), chunk_(kChunk) {}

  // Inflates into |out| from next_in_/avail_in_; sets member_ended_ at the
  // end of a member. Returns the bytes produced.
  virtual size_t Inflate(char* out, size_t cap) = 0;
  virtual void Restart() = 0;  // ready for the next member
  virtual bool MemberMagic(char first) const = 0;

  void Fail(std::string_view why) {
    if (status_.ok()) {
      status_ = Status::InvalidInput(
          fmt::format("{} data {} after {} decompressed bytes", what_, why,
                      produced_total_));
    }
    finished_ = true;
  }

  const char* next_in_ = nullptr;
  size_t avail_in_ = 0;
  bool member_ended_ = false;

 private:
  size_t Step(char* out, size_t cap) {
    if (avail_in_ == 0 && !Refill()) {
      if (!member_ended_ && status_.ok())
        Fail("ends early (a truncated file?)");
      finished_ = true;
      return 0;
    }
    if (member_ended_) {
      // Like gzip(1): what follows the last member unless it is another
      // member (zero padding, junk) is ignored.
      if (!MemberMagic(*next_in_)) {
        finished_ = true;
        return 0;
      }
      Restart();
      member_ended_ = false;
    }
    size_t n = Inflate(out, cap);
    produced_total_ += n;
    return n;
  }

  bool Refill() {
    size_t n = in_->Read(chunk_.data(), chunk_.size());
    if (n == 0) {
      if (!in_->status().ok()) status_ = in_->status();
      return false;
    }
    next_in_ = chunk_.data();
    avail_in_ = n;
    return true;
  }

  std::unique_ptr<RawInput> in_;
  const char* what_;
  std::vector<char> chunk_;
  Status status_;
  bool finished_ = false;
  int64_t produced_total_ = 0;
};

class GzipDecoder : public StreamDecoder {
 public:
  explicit GzipDecoder(std::unique_ptr<RawInput> in)
      : StreamDecoder(std::move(in), "gzip") {
    // 15 + 16: a gzip header and trailer around deflate data.
    if (inflateInit2(&z_, 15 + 16) != Z_OK) Fail("could not be inflated");
  }
  ~GzipDecoder() override { inflateEnd(&z_); }

 private:
  size_t Inflate(char* out, size_t cap) override {
    z_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(next_in_));
    z_.avail_in = static_cast<uInt>(avail_in_);
    z_.next_out = reinterpret_cast<Bytef*>(out);
    z_.avail_out = static_cast<uInt>(std::min<size_t>(cap, UINT32_MAX));
    int rc = inflate(&z_, Z_NO_FLUSH);
    size_t produced = cap - z_.avail_out;
    next_in_ = reinterpret_cast<const char*>(z_.next_in);
    avail_in_ = z_.avail_in;
    if (rc == Z_STREAM_END) member_ended_ = true;
    if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR) {
      Fail(fmt::format("is corrupt ({})", z_.msg ? z_.msg : "zlib error"));
    }
    return produced;
  }
  void Restart() override { inflateReset(&z_); }
  bool MemberMagic(char first) const override {
    return static_cast<unsigned char>(first) == 0x1f;
  }

  z_stream z_{};
};

class Bzip2Decoder : public StreamDecoder {
 public:
  explicit Bzip2Decoder(std::unique_ptr<RawInput> in)
      : StreamDecoder(std::move(in), "bzip2") {
    Restart();
  }
  ~Bzip2Decoder() override {
    if (started_) BZ2_bzDecompressEnd(&bz_);
  }

 private:
  size_t Inflate(char* out, size_t cap) override {
    bz_.next_in = const_cast<char*>(next_in_);
    bz_.avail_in = static_cast<unsigned>(avail_in_);
    bz_.next_out = out;
    bz_.avail_out = static_cast<unsigned>(std::min<size_t>(cap, UINT32_MAX));
    int rc = BZ2_bzDecompress(&bz_);
    size_t produced = cap - bz_.avail_out;
    next_in_ = bz_.next_in;
    avail_in_ = bz_.avail_in;
    if (rc == BZ_STREAM_END) member_ended_ = true;
    if (rc != BZ_OK && rc != BZ_STREAM_END) {
      Fail(fmt::format("is corrupt (libbz2 error {})", rc));
    }
    return produced;
  }
  void Restart() override {
    if (started_) BZ2_bzDecompressEnd(&bz_);
    bz_ = bz_stream{};
    started_ = BZ2_bzDecompressInit(&bz_, 0, 0) == BZ_OK;
    if (!started_) Fail("could not be decompressed");
  }
  bool MemberMagic(char first) const override { return first == 'B'; }

  bz_stream bz_{};
  bool started_ = false;
};

// What the first bytes say: "" (plain), "gzip", "bzip2", or a compression
// pglayout does not read.
std::string CompressionOf(std::string_view head) {
  auto starts = [&](std::string_view magic) {
    return head.substr(0, magic.size()) == magic;
  };
  if (starts("\x1f\x8b")) return "gzip";
  if (starts("BZh") && head.size() > 3 && head[3] >= '1' && head[3] <= '9') {
    return "bzip2";
  }
  if (starts("\xfd"
             "7zXZ"))
    return "xz";
  if (starts("\x28\xb5\x2f\xfd")) return "zstd";
  if (starts("\x04\x22\x4d\x18")) return "lz4";
  if (starts("PK\x03\x04")) return "zip";
  return "";
}

// Reads the first bytes, picks the decoder. |compression| is set to "",
// "gzip" or "bzip2"; other compressions are InvalidInput.
Status OpenDecoder(std::unique_ptr<RawInput> raw, const std::string& name,
                   std::unique_ptr<Decoder>* decoder,
                   std::string* compression) {
  std::string head(6, '\0');
  size_t got = 0, n = 0;
  while (got < head.size() &&
         (n = raw->Read(head.data() + got, head.size() - got)) > 0) {
    got += n;
  }
  if (!raw->status().ok()) {
    return raw->status().WithContext("could not read server log \"" + name +
                                     "\"");
  }
  head.resize(got);
  *compression = CompressionOf(head);
  auto input = std::make_unique<PrefixedInput>(head, std::move(raw));
  if (compression->empty()) {
    *decoder = std::make_unique<PlainDecoder>(std::move(input));
  } else if (*compression == "gzip") {
    *decoder = std::make_unique<GzipDecoder>(std::move(input));
  } else if (*compression == "bzip2") {
    *decoder = std::make_unique<Bzip2Decoder>(std::move(input));
  } else {
    return Status::InvalidInput(fmt::format(
        "{} is {}-compressed: pglayout reads plain, gzip and bzip2 logs; "
        "decompress it first",
        name, *compression));
  }
  return Status::Ok();
}

// The text as lines (for line-oriented logs) or as a std::istream (for a
// JSON array).
class TextSource : public std::streambuf {
 public:
  explicit TextSource(std::unique_ptr<Decoder> decoder)
      : decoder_(std::move(decoder)), buffer_(kChunk) {
    setg(buffer_.data(), buffer_.data(), buffer_.data());
  }

  // The next line without its '\n' or "\r\n", cut at kMaxLine bytes; false
  // at the end.
  bool ReadLine(std::string* line) {
    line->clear();
    bool any = false;
    while (gptr() < egptr() || underflow() != traits_type::eof()) {
      any = true;
      char* begin = gptr();
      auto* nl = static_cast<char*>(std::memchr(begin, '\n', egptr() - begin));
      char* stop = nl != nullptr ? nl : egptr();
      size_t room = kMaxLine - std::min(kMaxLine, line->size());
      line->append(begin, std::min<size_t>(stop - begin, room));
      setg(eback(), nl != nullptr ? nl + 1 : egptr(), egptr());
      if (nl != nullptr) break;
    }
    if (!line->empty() && line->back() == '\r') line->pop_back();
    return any;
  }

  // What is buffered now (filled when empty): enough to tell a JSON array.
  std::string_view Peek() {
    if (gptr() == egptr()) underflow();
    return std::string_view(gptr(), egptr() - gptr());
  }

  Status status() const { return decoder_->status(); }

 protected:
  int_type underflow() override {
    if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
    size_t n = decoder_->Read(buffer_.data(), buffer_.size());
    if (n == 0) return traits_type::eof();
    setg(buffer_.data(), buffer_.data(), buffer_.data() + n);
    return traits_type::to_int_type(*gptr());
  }

 private:
  std::unique_ptr<Decoder> decoder_;
  std::vector<char> buffer_;
};

// ---------------------------------------------------------------------------
// Times.

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

int YearOf(double seconds) {
  auto days = static_cast<int64_t>(std::floor(seconds / 86400));
  int year = 1970 + static_cast<int>(days / 366);
  while (DaysFromCivil(year + 1, 1, 1) <= days) ++year;
  return year;
}

// A time read from a line. Syslog's "Mar  1 12:00:00" has no year: it is
// kept as month, day and seconds of the day until the year is settled.
struct Stamp {
  double seconds = -1;  // since the epoch; -1 = none
  bool yearless = false;
  int month = 0, day = 0;
  double day_seconds = 0;

  bool found() const { return seconds >= 0 || yearless; }
};

// ".123456" at |pos| -> 0.123456; |*end| after it.
double Fraction(std::string_view s, size_t pos, size_t* end) {
  int64_t digits = 0, divisor = 1;
  size_t j = pos;
  if (j < s.size() && s[j] == '.') {
    for (++j; j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]));
         ++j) {
      if (divisor < 1000000000) {
        digits = digits * 10 + (s[j] - '0');
        divisor *= 10;
      }
    }
  }
  *end = j;
  return static_cast<double>(digits) / static_cast<double>(divisor);
}

// Zone abbreviations the tz database prints for the usual log_timezone
// settings, in hours east of UTC. Ambiguous ones (IST) are left out: their
// times stay wall clock, consistent within one server's logs.
std::optional<double> NamedZone(std::string_view name) {
  static constexpr std::pair<std::string_view, double> kZones[] = {
      {"UTC", 0},     {"GMT", 0},   {"UT", 0},    {"WET", 0},   {"WEST", 1},
      {"BST", 1},     {"CET", 1},   {"CEST", 2},  {"MET", 1},   {"MEST", 2},
      {"EET", 2},     {"EEST", 3},  {"MSK", 3},   {"SAST", 2},  {"EST", -5},
      {"EDT", -4},    {"CST", -6},  {"CDT", -5},  {"MST", -7},  {"MDT", -6},
      {"PST", -8},    {"PDT", -7},  {"AKST", -9}, {"AKDT", -8}, {"HST", -10},
      {"JST", 9},     {"KST", 9},   {"HKT", 8},   {"AWST", 8},  {"ACST", 9.5},
      {"ACDT", 10.5}, {"AEST", 10}, {"AEDT", 11}, {"NZST", 12}, {"NZDT", 13},
  };
  for (const auto& [zone, hours] : kZones) {
    if (zone == name) return hours * 3600;
  }
  return std::nullopt;
}

// "+02", "-0530", "+05:30" at |pos| -> seconds east of UTC; |*end| after.
std::optional<double> NumericZone(std::string_view s, size_t pos, size_t* end) {
  if (pos >= s.size() || (s[pos] != '+' && s[pos] != '-') ||
      !Digits(s, pos + 1, 2)) {
    return std::nullopt;
  }
  double sign = s[pos] == '-' ? -1 : 1;
  double seconds = Number(s, pos + 1, 2) * 3600;
  size_t m = pos + 3;
  *end = m;
  if (m < s.size() && s[m] == ':') ++m;
  if (Digits(s, m, 2)) {
    seconds += Number(s, m, 2) * 60;
    *end = m + 2;
  }
  return sign * seconds;
}

// The zone written after a time at |pos|: "Z", "+01:00" (ISO 8601), or
// " UTC", " CEST", " -03" (PostgreSQL's %m and %t). Seconds east of UTC,
// nothing when there is none or it is unknown (the wall clock is kept);
// |*end| after the zone.
std::optional<double> ZoneAt(std::string_view s, size_t pos, size_t* end) {
  *end = pos;
  if (pos >= s.size()) return std::nullopt;
  if (s[pos] == 'Z') {
    *end = pos + 1;
    return 0.0;
  }
  if (s[pos] != ' ') return NumericZone(s, pos, end);
  if (auto numeric = NumericZone(s, pos + 1, end)) return numeric;
  size_t stop = pos + 1;
  while (stop < s.size() && std::isalpha(static_cast<unsigned char>(s[stop]))) {
    ++stop;
  }
  size_t letters = stop - pos - 1;
  if (letters == 0 || letters > 5) return std::nullopt;
  *end = stop;
  return NamedZone(s.substr(pos + 1, letters));
}

struct TimeAt {
  double seconds = 0;
  size_t end = 0;  // after the time and its zone
};

// "YYYY-MM-DD HH:MM:SS[.fff][zone]" (or with 'T') at |i|.
std::optional<TimeAt> IsoAt(std::string_view s, size_t i) {
  if (i + 19 > s.size() || s[i + 4] != '-' || s[i + 7] != '-' ||
      (s[i + 10] != ' ' && s[i + 10] != 'T') || s[i + 13] != ':' ||
      s[i + 16] != ':' || !Digits(s, i, 4) || !Digits(s, i + 5, 2) ||
      !Digits(s, i + 8, 2) || !Digits(s, i + 11, 2) || !Digits(s, i + 14, 2) ||
      !Digits(s, i + 17, 2)) {
    return std::nullopt;
  }
  int64_t days =
      DaysFromCivil(Number(s, i, 4), Number(s, i + 5, 2), Number(s, i + 8, 2));
  size_t after = 0;
  TimeAt t;
  t.seconds = static_cast<double>(days) * 86400 + Number(s, i + 11, 2) * 3600 +
              Number(s, i + 14, 2) * 60 + Number(s, i + 17, 2) +
              Fraction(s, i + 19, &after);
  t.seconds -= ZoneAt(s, after, &t.end).value_or(0);
  return t;
}

// "Mar  1 12:00:00" / "Mar 01 12:00:00" (BSD syslog, journalctl) at |i|.
std::optional<Stamp> SyslogAt(std::string_view s, size_t i) {
  static constexpr std::string_view kMonths =
      "JanFebMarAprMayJunJulAugSepOctNovDec";
  if (i + 15 > s.size() || s[i + 3] != ' ' || s[i + 6] != ' ' ||
      s[i + 9] != ':' || s[i + 12] != ':' || !Digits(s, i + 7, 2) ||
      !Digits(s, i + 10, 2) || !Digits(s, i + 13, 2)) {
    return std::nullopt;
  }
  size_t month = kMonths.find(s.substr(i, 3));
  if (month == std::string_view::npos || month % 3 != 0) return std::nullopt;
  int day = 0;
  if (s[i + 4] == ' ' && Digits(s, i + 5, 1)) {
    day = Number(s, i + 5, 1);
  } else if (Digits(s, i + 4, 2)) {
    day = Number(s, i + 4, 2);
  } else {
    return std::nullopt;
  }
  Stamp stamp;
  stamp.yearless = true;
  stamp.month = static_cast<int>(month / 3) + 1;
  stamp.day = day;
  size_t end = 0;
  stamp.day_seconds = Number(s, i + 7, 2) * 3600 + Number(s, i + 10, 2) * 60 +
                      Number(s, i + 13, 2) + Fraction(s, i + 15, &end);
  return stamp;
}

// "1709294400.123" (%n in log_line_prefix) at |i|.
std::optional<double> EpochAt(std::string_view s, size_t i) {
  if (i > 0 &&
      (std::isdigit(static_cast<unsigned char>(s[i - 1])) || s[i - 1] == '.')) {
    return std::nullopt;
  }
  if (!Digits(s, i, 10) || i + 14 > s.size() || s[i + 10] != '.' ||
      !Digits(s, i + 11, 3) || Digits(s, i + 14, 1)) {
    return std::nullopt;
  }
  return std::strtod(std::string(s.substr(i, 14)).c_str(), nullptr);
}

// Where a syslog line's own text starts: after "<134>" and "<134>1 ".
size_t AfterSyslogPriority(std::string_view s) {
  if (s.empty() || s[0] != '<') return 0;
  size_t end = s.find('>');
  if (end == std::string_view::npos || end > 4) return 0;
  ++end;
  if (end + 1 < s.size() && s[end] == '1' && s[end + 1] == ' ') end += 2;
  return end;
}

// The time of a text line: the first ISO time before |limit| (%m, %t,
// csvlog, RFC 5424), else a syslog time at the start, else a %n time.
Stamp FindStamp(std::string_view line, size_t limit) {
  limit = std::min(limit, line.size());
  Stamp stamp;
  for (size_t i = 0; i + 19 <= limit; ++i) {
    if (auto t = IsoAt(line, i)) {
      stamp.seconds = t->seconds;
      return stamp;
    }
  }
  if (auto s = SyslogAt(line, AfterSyslogPriority(line))) return *s;
  for (size_t i = 0; i + 14 <= limit; ++i) {
    if (auto t = EpochAt(line, i)) {
      stamp.seconds = *t;
      return stamp;
    }
  }
  return stamp;
}

// A JSON time: an ISO string, seconds since the epoch, or Cloud Logging's
// {"seconds": s, "nanos": n}.
Stamp JsonStamp(const nlohmann::json& value) {
  Stamp stamp;
  if (value.is_string()) {
    const auto& text = value.get_ref<const std::string&>();
    if (auto t = IsoAt(text, 0)) stamp.seconds = t->seconds;
  } else if (value.is_number()) {
    stamp.seconds = value.get<double>();
    if (stamp.seconds > 1e11) stamp.seconds /= 1000;  // milliseconds
  } else if (value.is_object() && value.contains("seconds") &&
             value["seconds"].is_number()) {
    stamp.seconds = value["seconds"].get<double>();
    if (value.contains("nanos") && value["nanos"].is_number()) {
      stamp.seconds += value["nanos"].get<double>() / 1e9;
    }
  }
  return stamp;
}

// ---------------------------------------------------------------------------
// Lines: the format, the time and the message of each.

enum class Format {
  kNone,
  kStderr,
  kCsvlog,
  kJsonlog,
  kSyslog,
  kCloudLogging,
  kCloudNativePg,
  kJson,
  kCount
};

const char* FormatName(Format f) {
  switch (f) {
    case Format::kStderr:
      return "stderr";
    case Format::kCsvlog:
      return "csvlog";
    case Format::kJsonlog:
      return "jsonlog";
    case Format::kSyslog:
      return "syslog";
    case Format::kCloudLogging:
      return "cloud logging";
    case Format::kCloudNativePg:
      return "cloudnativepg";
    case Format::kJson:
      return "json";
    default:
      return "";
  }
}

struct LineView {
  Format format = Format::kNone;
  Stamp stamp;
  std::string message;  // of a JSON entry; a text line whole
};

enum class Kind : uint8_t { kStart, kComplete, kTooFrequent };

struct Match {
  Kind kind = Kind::kStart;
  bool restartpoint = false;
  size_t at = 0;     // where the message starts
  size_t after = 0;  // after the matched words
};

// A message starts a line's text: nothing but spaces between it and the
// start, a ':' (after the severity) or a '"' (csvlog). A query that quotes
// the words ("... 'checkpoint starting: wal'") does not count.
bool StartsMessage(std::string_view text, size_t pos) {
  while (pos > 0 && text[pos - 1] == ' ') --pos;
  return pos == 0 || text[pos - 1] == ':' || text[pos - 1] == '"';
}

std::optional<Match> FindCheckpointMessage(std::string_view text) {
  struct Pattern {
    std::string_view words;
    Kind kind;
    bool restartpoint;
  };
  static constexpr Pattern kPatterns[] = {
      {"checkpoint starting: ", Kind::kStart, false},
      {"restartpoint starting: ", Kind::kStart, true},
      {"checkpoint complete: ", Kind::kComplete, false},
      {"restartpoint complete: ", Kind::kComplete, true},
      {"checkpoints are occurring too frequently (", Kind::kTooFrequent, false},
  };
  for (const Pattern& p : kPatterns) {
    for (size_t pos = text.find(p.words); pos != std::string_view::npos;
         pos = text.find(p.words, pos + 1)) {
      if (StartsMessage(text, pos)) {
        return Match{p.kind, p.restartpoint, pos, pos + p.words.size()};
      }
    }
  }
  return std::nullopt;
}

// Where "LOG:  ", "ERROR:  "... is in a stderr or syslog line, or npos.
size_t SeverityAt(std::string_view line) {
  static constexpr std::string_view kSeverities[] = {
      "LOG",    "WARNING", "ERROR",  "FATAL",     "PANIC",  "DETAIL",
      "HINT",   "CONTEXT", "NOTICE", "STATEMENT", "INFO",   "QUERY",
      "DEBUG1", "DEBUG2",  "DEBUG3", "DEBUG4",    "DEBUG5", "LOCATION"};
  for (size_t pos = line.find(":  "); pos != std::string_view::npos;
       pos = line.find(":  ", pos + 1)) {
    size_t start = pos;
    while (start > 0 &&
           std::isalnum(static_cast<unsigned char>(line[start - 1]))) {
      --start;
    }
    std::string_view word = line.substr(start, pos - start);
    for (std::string_view s : kSeverities) {
      if (word == s) return start;
    }
  }
  return std::string_view::npos;
}

LineView TextLine(std::string_view line) {
  LineView v;
  v.message = line;
  std::optional<Match> match = FindCheckpointMessage(line);
  size_t severity = SeverityAt(line);
  size_t limit = match ? match->at : std::min(severity, line.size());
  v.stamp = FindStamp(line, limit);
  std::optional<TimeAt> first = IsoAt(line, 0);
  if (first && first->end < line.size() && line[first->end] == ',') {
    v.format = Format::kCsvlog;  // "2024-03-01 12:00:00.000 UTC,,,..."
  } else if (AfterSyslogPriority(line) > 0 || SyslogAt(line, 0)) {
    v.format = Format::kSyslog;
  } else if (severity != std::string_view::npos) {
    v.format = Format::kStderr;
  }
  return v;
}

const std::string* TextAt(const nlohmann::json& o, const char* key) {
  auto it = o.find(key);
  return it != o.end() && it->is_string() ? &it->get_ref<const std::string&>()
                                          : nullptr;
}

Stamp StampAt(const nlohmann::json& o, const char* key) {
  auto it = o.find(key);
  return it != o.end() ? JsonStamp(*it) : Stamp();
}

// CloudNativePG: {"ts", "logger": "postgres", "record": {"log_time",
// "message", ...}}. ts is when the instance manager relayed the line: the
// server's own log_time comes first.
bool ReadCloudNativePg(const nlohmann::json& j, LineView* v) {
  auto record = j.find("record");
  if (record == j.end() || !record->is_object() ||
      TextAt(*record, "message") == nullptr) {
    return false;
  }
  v->format = Format::kCloudNativePg;
  v->message = *TextAt(*record, "message");
  v->stamp = StampAt(*record, "log_time");
  if (!v->stamp.found()) v->stamp = StampAt(j, "ts");
  return true;
}

// Cloud Logging: the entry's own "timestamp", never "receiveTimestamp"
// (entries arrive late and out of order); the message in textPayload or
// jsonPayload.message.
bool ReadCloudLogging(const nlohmann::json& j, LineView* v) {
  const std::string* message = TextAt(j, "textPayload");
  auto payload = j.find("jsonPayload");
  if (message == nullptr && payload != j.end() && payload->is_object()) {
    message = TextAt(*payload, "message");
  }
  if (message == nullptr) return false;
  v->format = Format::kCloudLogging;
  v->message = *message;
  v->stamp = StampAt(j, "timestamp");
  return true;
}

// jsonlog (15+: "timestamp", "error_severity", "message"), and other JSON
// lines that carry a message and a time under a usual name.
void ReadOtherJson(const nlohmann::json& j, LineView* v) {
  for (const char* key : {"message", "msg", "log"}) {
    if (TextAt(j, key) == nullptr) continue;
    bool jsonlog = j.contains("timestamp") && j.contains("error_severity");
    v->format = jsonlog ? Format::kJsonlog : Format::kJson;
    v->message = *TextAt(j, key);
    for (const char* time : {"timestamp", "time", "@timestamp", "ts"}) {
      if (!v->stamp.found()) v->stamp = StampAt(j, time);
    }
    return;
  }
}

// The message and time of a JSON log entry, by the keys each producer uses.
LineView JsonEntry(const nlohmann::json& j) {
  LineView v;
  if (j.is_object() && !ReadCloudNativePg(j, &v) && !ReadCloudLogging(j, &v)) {
    ReadOtherJson(j, &v);
  }
  return v;
}

LineView ParseLine(std::string_view line) {
  size_t first = line.find_first_not_of(" \t");
  if (first != std::string_view::npos && line[first] == '{') {
    nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    if (!j.is_discarded()) return JsonEntry(j);
  }
  return TextLine(line);
}

// ---------------------------------------------------------------------------
// Records: the checkpoint messages of one input, then of all.

// Times past this (the year 33658) are not times: a fuzzed or broken line,
// whose year would take long to find.
constexpr double kLastTime = 1e12;

double ValidTime(double seconds) {
  return std::isfinite(seconds) && seconds >= 0 && seconds < kLastTime ? seconds
                                                                       : -1;
}

// The number that follows |key| in |text| ("write=" -> 1.5), or -1 (also
// for "inf" and "nan").
double ValueAfter(std::string_view text, std::string_view key) {
  size_t pos = text.find(key);
  if (pos == std::string_view::npos) return -1;
  std::string rest(text.substr(pos + key.size(), 32));
  char* end = nullptr;
  double v = std::strtod(rest.c_str(), &end);
  return end == rest.c_str() || !std::isfinite(v) ? -1 : v;
}

// |v| as a count, within [lo, INT64_MAX].
int64_t ToCount(double v, double lo) {
  constexpr double kMax = 9.2e18;
  return static_cast<int64_t>(std::clamp(v, lo, kMax));
}

// The words of starting messages ("wal", "time", "immediate", ...), each
// given a small number so that a record has a fixed size. Past kMaxWords
// distinct words (only a broken log has them) the rest share one.
class Words {
 public:
  static constexpr size_t kMaxWords = 250;
  static constexpr size_t kMaxLength = 64;

  uint8_t Id(std::string_view word) {
    word = word.substr(0, kMaxLength);
    for (size_t i = 0; i < words_.size(); ++i) {
      if (words_[i] == word) return static_cast<uint8_t>(i);
    }
    if (words_.size() == kMaxWords) return static_cast<uint8_t>(kMaxWords);
    words_.emplace_back(word);
    return static_cast<uint8_t>(words_.size() - 1);
  }
  std::string Name(uint8_t id) const {
    return id < words_.size() ? words_[id] : std::string("other");
  }
  // The id of a word seen, or -1.
  int Find(std::string_view word) const {
    for (size_t i = 0; i < words_.size(); ++i) {
      if (words_[i] == word) return static_cast<int>(i);
    }
    return -1;
  }

 private:
  std::vector<std::string> words_;
};

// One checkpoint message, of a fixed size: records are written to and read
// back from a temporary file.
struct Record {
  static constexpr size_t kMaxFlags = 8;  // more words are dropped

  double time = -1;      // seconds, once the year is settled; -1 = none
  double sort_time = 0;  // time, or a neighbour's for a line without one
  double value = -1;     // total= of a complete; "N seconds" of a warning
  double write_s = 0, sync_s = 0, total_s = 0;
  double day_seconds = 0;  // of a yearless (syslog) time
  int64_t buffers = 0;
  int64_t distance_kb = -1;
  int64_t estimate_kb = 0;
  int64_t line = 0;
  uint32_t file = 0;  // the input's index
  Kind kind = Kind::kStart;
  bool restartpoint = false;
  bool yearless = false;
  uint8_t month = 0, day = 0;
  uint8_t flag_count = 0;
  std::array<uint8_t, kMaxFlags> flags{};
};
static_assert(std::is_trivially_copyable_v<Record>);

// "wal", "immediate force wait" -> words, up to the end of the message
// (a csvlog line continues with '"' or ',').
void ReadFlags(std::string_view rest, Words* words, Record* r) {
  auto add = [&](std::string_view word) {
    if (!word.empty() && r->flag_count < Record::kMaxFlags) {
      r->flags[r->flag_count++] = words->Id(word);
    }
  };
  size_t start = 0, i = 0;
  for (; i < rest.size(); ++i) {
    char c = rest[i];
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '-') continue;
    add(rest.substr(start, i - start));
    start = i + 1;
    if (c != ' ') return;
  }
  add(rest.substr(start, i - start));
}

Record MakeRecord(const Match& m, std::string_view msg, const Stamp& stamp,
                  Words* words) {
  Record r;
  r.kind = m.kind;
  r.time = ValidTime(stamp.seconds);
  if (stamp.yearless) {
    r.yearless = true;
    r.month = static_cast<uint8_t>(stamp.month);
    r.day = static_cast<uint8_t>(stamp.day);
    r.day_seconds = stamp.day_seconds;
  }
  r.restartpoint = m.restartpoint;
  std::string_view rest = msg.substr(m.after);
  if (m.kind == Kind::kStart) {
    ReadFlags(rest, words, &r);
  } else if (m.kind == Kind::kComplete) {
    r.buffers = ToCount(ValueAfter(rest, "wrote "), 0);
    r.write_s = std::max(0.0, ValueAfter(rest, "write="));
    r.sync_s = std::max(0.0, ValueAfter(rest, "sync="));
    r.value = ValueAfter(rest, "total=");
    r.total_s = std::max(0.0, r.value);
    // -1 when the message has none (servers before 9.6).
    r.distance_kb = ToCount(ValueAfter(rest, "distance="), -1);
    r.estimate_kb = ToCount(ValueAfter(rest, "estimate="), 0);
  } else {
    r.value = ValueAfter(msg.substr(m.after - 1), "(");
  }
  return r;
}

// ---------------------------------------------------------------------------
// Records on disk: a temporary file of fixed-size records, deleted when
// closed.

class Spool {
 public:
  Spool() = default;
  Spool(const Spool&) = delete;
  Spool& operator=(const Spool&) = delete;
  ~Spool() {
    if (file_ != nullptr) std::fclose(file_);
  }

  Status Open() {
    file_ = std::tmpfile();
    if (file_ == nullptr) return Failed();
    return Status::Ok();
  }
  int64_t size() const { return size_; }

  Status Append(const Record* records, size_t n) {
    if (!at_end_ && !Seek(size_)) return Failed();
    at_end_ = true;
    if (n > 0 && std::fwrite(records, sizeof(Record), n, file_) != n) {
      return Failed();
    }
    size_ += static_cast<int64_t>(n);
    return Status::Ok();
  }
  Status Read(int64_t at, size_t n, Record* out) {
    at_end_ = false;
    if (!Seek(at) || std::fread(out, sizeof(Record), n, file_) != n) {
      return Failed();
    }
    return Status::Ok();
  }
  Status Write(int64_t at, size_t n, const Record* in) {
    at_end_ = false;
    if (!Seek(at) || std::fwrite(in, sizeof(Record), n, file_) != n) {
      return Failed();
    }
    return Status::Ok();
  }

 private:
  bool Seek(int64_t at) {
    return ::fseeko(file_, static_cast<off_t>(at * sizeof(Record)), SEEK_SET) ==
           0;
  }
  Status Failed() const {
    int err = errno != 0 ? errno : EIO;
    return Status::FromErrno(
        "could not write the checkpoint messages to a temporary file in /tmp",
        err);
  }

  std::FILE* file_ = nullptr;
  int64_t size_ = 0;
  bool at_end_ = true;
};

// Reads records [begin, end) of a spool in blocks, forwards or backwards.
class SpoolReader {
 public:
  static constexpr size_t kBlock = 1024;

  SpoolReader(Spool* spool, int64_t begin, int64_t end, bool backwards)
      : spool_(spool), begin_(begin), end_(end), backwards_(backwards) {}

  // The next record, or nullptr at the end or on an error (then status()).
  const Record* Next() {
    if (pos_ == block_.size()) {
      int64_t left = end_ - begin_;
      if (left <= 0) return nullptr;
      size_t n = static_cast<size_t>(std::min<int64_t>(left, kBlock));
      int64_t at = backwards_ ? end_ - static_cast<int64_t>(n) : begin_;
      block_.resize(n);
      status_ = spool_->Read(at, n, block_.data());
      if (!status_.ok()) return nullptr;
      if (backwards_) {
        std::reverse(block_.begin(), block_.end());
        end_ -= static_cast<int64_t>(n);
      } else {
        begin_ += static_cast<int64_t>(n);
      }
      pos_ = 0;
    }
    return &block_[pos_++];
  }
  const Status& status() const { return status_; }

 private:
  Spool* spool_;
  int64_t begin_, end_;
  bool backwards_;
  std::vector<Record> block_;
  size_t pos_ = 0;
  Status status_;
};

// ---------------------------------------------------------------------------
// One input: its lines read once, its checkpoint messages to the spool, and
// what ordering them needs later.

struct ParsedInput {
  LogFileSummary summary;
  std::array<int64_t, static_cast<size_t>(Format::kCount)> formats{};
  int64_t begin = 0, end = 0;  // its records in the spool
  // Times with a year: their range.
  double dated_lo = std::numeric_limits<double>::infinity();
  double dated_hi = -std::numeric_limits<double>::infinity();
  bool dated = false;
  std::optional<Stamp> first_yearless;
  int base_year = 0;  // for yearless records, once settled
  // Once the years are settled:
  bool timed = false;     // a record has a time
  bool reversed = false;  // newest first
  double first_time = -std::numeric_limits<double>::infinity();  // file order
  double last_time = -std::numeric_limits<double>::infinity();

  int64_t records() const { return end - begin; }
  // The time the input starts at once oriented (0 without records).
  double FirstSortTime() const {
    if (records() == 0) return 0;
    return reversed ? last_time : first_time;
  }
};

struct ParseContext {
  Spool* spool;
  Words* words;
  uint32_t file;
  ParsedInput* in;
  Status status;
};

constexpr int64_t kSampleLines = 1000;  // lines looked at for the format

void NoteRecord(const Record& r, ParsedInput* in) {
  if (r.yearless && !in->first_yearless) {
    Stamp s;
    s.yearless = true;
    s.month = r.month;
    s.day = r.day;
    s.day_seconds = r.day_seconds;
    in->first_yearless = s;
  }
  if (!r.yearless && r.time >= 0) {
    in->dated = true;
    in->dated_lo = std::min(in->dated_lo, r.time);
    in->dated_hi = std::max(in->dated_hi, r.time);
  }
}

void AddLine(const LineView& v, int64_t number, ParseContext* c) {
  ParsedInput* in = c->in;
  if (number <= kSampleLines || v.format != Format::kNone) {
    ++in->formats[static_cast<size_t>(v.format)];
  }
  std::optional<Match> m = FindCheckpointMessage(v.message);
  if (!m || !c->status.ok()) return;
  Record r = MakeRecord(*m, v.message, v.stamp, c->words);
  r.file = c->file;
  r.line = number;
  NoteRecord(r, in);
  c->status = c->spool->Append(&r, 1);
}

void ParseLines(TextSource* text, ParseContext* c) {
  std::string line;
  while (c->status.ok() && text->ReadLine(&line)) {
    int64_t number = ++c->in->summary.lines;
    if (number == 1 && line.starts_with("\xef\xbb\xbf")) line.erase(0, 3);
    // Most lines are not checkpoint messages: look closer only at the first
    // ones (for the format) and at those with the word.
    if (number > kSampleLines && line.find("point") == std::string::npos) {
      continue;
    }
    AddLine(ParseLine(line), number, c);
  }
}

// `gcloud logging read --format=json`: one array of entries over many
// lines, parsed entry by entry (each dropped once read).
Status ParseJsonArray(TextSource* text, ParseContext* c) {
  std::istream stream(text);
  ParsedInput* in = c->in;
  nlohmann::json::parser_callback_t on_entry =
      [c, in](int depth, nlohmann::json::parse_event_t event,
              nlohmann::json& parsed) {
        if (depth != 1 || event != nlohmann::json::parse_event_t::object_end) {
          return true;
        }
        AddLine(JsonEntry(parsed), ++in->summary.lines, c);
        return false;
      };
  nlohmann::json rest = nlohmann::json::parse(stream, on_entry, false);
  PGLAYOUT_RETURN_IF_ERROR(c->status);
  if (rest.is_discarded() && text->status().ok()) {
    return Status::InvalidInput(
        fmt::format("{}: a JSON array that is not valid JSON after entry {}",
                    in->summary.path, in->summary.lines));
  }
  return Status::Ok();
}

bool IsJsonArray(std::string_view head) {
  size_t i = head.find_first_not_of(" \t\r\n");
  if (i == std::string_view::npos || head[i] != '[') return false;
  i = head.find_first_not_of(" \t\r\n", i + 1);
  return i != std::string_view::npos && (head[i] == '{' || head[i] == ']');
}

// The most frequent format among the lines (kNone aside).
std::string FormatOf(const ParsedInput& in) {
  size_t best = 0;
  int64_t most = 0;
  for (size_t f = 1; f < in.formats.size(); ++f) {
    if (in.formats[f] > most) {
      best = f;
      most = in.formats[f];
    }
  }
  return FormatName(static_cast<Format>(best));
}

Status ParseInput(std::unique_ptr<RawInput> raw, const std::string& name,
                  ParseContext* c) {
  ParsedInput* in = c->in;
  in->summary.path = name;
  in->begin = c->spool->size();
  std::unique_ptr<Decoder> decoder;
  PGLAYOUT_RETURN_IF_ERROR(
      OpenDecoder(std::move(raw), name, &decoder, &in->summary.compression));
  TextSource text(std::move(decoder));
  if (IsJsonArray(text.Peek())) {
    PGLAYOUT_RETURN_IF_ERROR(ParseJsonArray(&text, c));
  } else {
    ParseLines(&text, c);
  }
  PGLAYOUT_RETURN_IF_ERROR(c->status);
  Status st = text.status();
  if (!st.ok()) {
    return st.WithContext(fmt::format(
        "could not read server log \"{}\" (line {})", name, in->summary.lines));
  }
  in->end = c->spool->size();
  in->summary.format = FormatOf(*in);
  in->summary.messages = in->records();
  return Status::Ok();
}

// ---------------------------------------------------------------------------
// Syslog years.

double CivilSeconds(int year, int month, int day, double day_seconds) {
  return static_cast<double>(DaysFromCivil(year, month, day)) * 86400 +
         day_seconds;
}

double CivilSeconds(int year, const Stamp& s) {
  return CivilSeconds(year, s.month, s.day, s.day_seconds);
}

// The middle of the times of the inputs with years, and the first of them.
struct DatedTimes {
  double middle = -1;  // -1: no input has a year
  std::string path;
};

DatedTimes Dated(const std::vector<ParsedInput>& inputs) {
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  DatedTimes dated;
  for (const ParsedInput& in : inputs) {
    if (!in.dated) continue;
    lo = std::min(lo, in.dated_lo);
    hi = std::max(hi, in.dated_hi);
    if (dated.path.empty()) dated.path = in.summary.path;
  }
  if (!dated.path.empty()) dated.middle = (lo + hi) / 2;
  return dated;
}

// The year of a syslog file that starts at |first|: the one that puts it
// nearest the dated inputs, else the current one (the previous one if that
// puts it in the future). |*why| says which, for a note.
int ChooseYear(const Stamp& first, const DatedTimes& dated, double now,
               std::string* why) {
  int year = YearOf(now);
  *why = "the current year";
  if (dated.middle >= 0) {
    int near = YearOf(dated.middle);
    year = near;
    for (int y : {near - 1, near + 1}) {
      if (std::abs(CivilSeconds(y, first) - dated.middle) <
          std::abs(CivilSeconds(year, first) - dated.middle)) {
        year = y;
      }
    }
    *why = "the year nearest the times of " + dated.path;
  } else if (CivilSeconds(year, first) > now + 86400) {
    --year;
    *why = "the last year that puts it in the past";
  }
  return year;
}

// Syslog's times carry no year: chooses one per input, and says which in a
// note (the records get it in Settle).
void SettleYears(std::vector<ParsedInput>* inputs, double now,
                 std::vector<std::string>* notes) {
  DatedTimes dated = Dated(*inputs);
  for (ParsedInput& in : *inputs) {
    if (!in.first_yearless) continue;
    std::string why;
    in.base_year = ChooseYear(*in.first_yearless, dated, now, &why);
    notes->push_back(fmt::format("{}: syslog times carry no year: took {}, {}",
                                 in.summary.path, in.base_year, why));
  }
}

// Gives the yearless records of an input, read in file order, years from
// the base year on, one more at each turn of the year (December, then
// January).
class YearWalker {
 public:
  explicit YearWalker(int base) : year_(base) {}
  void Apply(Record* r) {
    if (!r->yearless) return;
    if (previous_ != 0 && r->month + 6 < previous_) ++year_;
    if (previous_ != 0 && r->month > previous_ + 6) --year_;
    previous_ = r->month;
    r->time = ValidTime(CivilSeconds(year_, r->month, r->day, r->day_seconds));
  }

 private:
  int year_;
  int previous_ = 0;
};

// Gives an input's yearless records their times (written back), and finds
// whether it lists newest first (most consecutive times go down) and its
// first and last times.
Status Settle(Spool* spool, ParsedInput* in) {
  YearWalker years(in->base_year);
  int64_t up = 0, down = 0;
  double previous = -1;
  std::vector<Record> block;
  for (int64_t at = in->begin; at < in->end;) {
    size_t n = static_cast<size_t>(
        std::min<int64_t>(in->end - at, SpoolReader::kBlock));
    block.resize(n);
    PGLAYOUT_RETURN_IF_ERROR(spool->Read(at, n, block.data()));
    for (Record& r : block) {
      years.Apply(&r);
      if (r.time < 0) continue;
      if (previous >= 0 && r.time > previous) ++up;
      if (previous >= 0 && r.time < previous) ++down;
      if (!in->timed) in->first_time = r.time;
      in->timed = true;
      in->last_time = r.time;
      previous = r.time;
    }
    if (in->first_yearless) {
      PGLAYOUT_RETURN_IF_ERROR(spool->Write(at, n, block.data()));
    }
    at += static_cast<int64_t>(n);
  }
  in->reversed = down > up;
  return Status::Ok();
}

// ---------------------------------------------------------------------------
// Order: all records by time, stably; inputs by their first time, so that
// records of the same instant keep the order of the files they came from.
// An external merge sort: sorted runs of kRunRecords in a second spool
// (a chunk that starts at or after the end of the run before extends it, so
// that logs already in order make one run), then a merge of the runs.

constexpr size_t kRunRecords = 32 * 1024;  // 32 Ki records: ~3.5 MiB

struct Run {
  int64_t begin = 0, end = 0;
};

class RunWriter {
 public:
  explicit RunWriter(Spool* out) : out_(out) { chunk_.reserve(kRunRecords); }

  Status Add(const Record& r) {
    chunk_.push_back(r);
    if (chunk_.size() == kRunRecords) return Flush();
    return Status::Ok();
  }
  Status Flush() {
    if (chunk_.empty()) return Status::Ok();
    std::stable_sort(chunk_.begin(), chunk_.end(),
                     [](const Record& a, const Record& b) {
                       return a.sort_time < b.sort_time;
                     });
    int64_t begin = out_->size();
    PGLAYOUT_RETURN_IF_ERROR(out_->Append(chunk_.data(), chunk_.size()));
    if (runs_.empty() || chunk_.front().sort_time < last_) {
      runs_.push_back(Run{begin, begin});
    }
    runs_.back().end = out_->size();
    last_ = chunk_.back().sort_time;
    chunk_.clear();
    return Status::Ok();
  }
  const std::vector<Run>& runs() const { return runs_; }

 private:
  Spool* out_;
  std::vector<Record> chunk_;
  std::vector<Run> runs_;
  double last_ = 0;
};

// Each input oriented oldest first, lines without a time given the time of
// the line before them (the first time for those before it).
Status WriteRuns(Spool* spool, std::vector<ParsedInput>* inputs,
                 RunWriter* runs) {
  std::vector<const ParsedInput*> order;
  for (const ParsedInput& in : *inputs) order.push_back(&in);
  std::stable_sort(order.begin(), order.end(),
                   [](const auto* a, const auto* b) {
                     return a->FirstSortTime() < b->FirstSortTime();
                   });
  for (const ParsedInput* in : order) {
    SpoolReader reader(spool, in->begin, in->end, in->reversed);
    double known = in->reversed ? in->last_time : in->first_time;
    while (const Record* r = reader.Next()) {
      Record copy = *r;
      if (copy.time >= 0) known = copy.time;
      copy.sort_time = known;
      PGLAYOUT_RETURN_IF_ERROR(runs->Add(copy));
    }
    PGLAYOUT_RETURN_IF_ERROR(reader.status());
  }
  return runs->Flush();
}

// ---------------------------------------------------------------------------
// Pairing and totals, record by record in time order.

struct Checkpoint {
  Record start;
  bool completed = false;
  Record done;  // the complete message's numbers
};

bool HasFlag(const Checkpoint& c, int id) {
  if (id < 0) return false;
  for (uint8_t i = 0; i < c.start.flag_count; ++i) {
    if (c.start.flags[i] == id) return true;
  }
  return false;
}

// The 95th percentile of WAL rates: exact up to kExact rates, then from a
// histogram of bins 0.1 % wide (a few thousand bins for any real spread).
class RateSample {
 public:
  static constexpr size_t kExact = 64 * 1024;

  void Add(double rate) {
    if (exact_.size() < kExact && bins_.empty()) {
      exact_.push_back(rate);
      return;
    }
    if (bins_.empty()) {
      for (double r : exact_) Bin(r);
      exact_.clear();
      exact_.shrink_to_fit();
    }
    Bin(rate);
  }
  double Percentile95() const {
    if (bins_.empty()) return pglayout::Percentile95(exact_);
    double rank = 0.95 * static_cast<double>(count_ - 1);
    auto low = static_cast<int64_t>(rank);
    double weight = rank - static_cast<double>(low);
    double lo = At(low), hi = At(std::min(low + 1, count_ - 1));
    return lo + weight * (hi - lo);
  }

 private:
  static constexpr double kWidth = 1.001;
  void Bin(double rate) {
    int64_t bin = rate <= 1 ? -1
                            : static_cast<int64_t>(std::floor(
                                  std::log(rate) / std::log(kWidth)));
    ++bins_[bin];
    ++count_;
  }
  // The rate at |rank| (0-based, ascending): its bin's middle.
  double At(int64_t rank) const {
    for (const auto& [bin, n] : bins_) {
      if (rank < n) {
        return bin < 0 ? 0 : std::pow(kWidth, static_cast<double>(bin) + 0.5);
      }
      rank -= n;
    }
    return 0;
  }

  std::vector<double> exact_;
  std::map<int64_t, int64_t> bins_;
  int64_t count_ = 0;
};

// Adds up checkpoints in the order they started.
class Totals {
 public:
  Totals(const Words& words, const std::vector<ParsedInput>& inputs,
         CheckpointLogSummary* report)
      : words_(words), inputs_(inputs), report_(report) {}

  void Add(const Checkpoint& c) {
    CheckpointLogTotals& t = report_->totals;
    ++t.checkpoints;
    bool counted = !HasFlag(c, shutdown_) && !HasFlag(c, end_of_recovery_);
    if (counted) {
      bool timed =
          c.start.flag_count == 1 && c.start.flags[0] == time_ && time_ >= 0;
      ++(timed ? t.timed : t.requested);
      if (HasFlag(c, wal_) || HasFlag(c, xlog_)) ++t.wal_triggered;
      if (c.completed) AddCompleted(c.done, &t);
      if (c.start.time >= 0) {
        if (t.first_start < 0 || c.start.time < t.first_start) {
          t.first_start = c.start.time;
        }
        t.last_start = std::max(t.last_start, c.start.time);
      }
    }
    if (!c.start.restartpoint) AddWal(c, counted, &t);
    if (report_->events.size() < CheckpointLogSummary::kEventSample) {
      report_->events.push_back(Event(c));
    }
  }

  void AddWarning(const Record& r) {
    ++report_->too_frequent_warnings;
    if (r.value < 0) return;
    double& shortest = report_->totals.too_frequent_shortest;
    if (shortest < 0 || r.value < shortest) shortest = r.value;
    if (report_->too_frequent_seconds.size() <
        CheckpointLogSummary::kEventSample) {
      report_->too_frequent_seconds.push_back(r.value);
    }
  }

  void Finish() { report_->totals.wal_peak_rate = rates_.Percentile95(); }

 private:
  static void AddCompleted(const Record& d, CheckpointLogTotals* t) {
    ++t->completed;
    ++t->sums.checkpoints;
    t->sums.buffers += static_cast<double>(d.buffers);
    t->sums.write_s += d.write_s;
    t->sums.sync_s += d.sync_s;
    t->sums.total_s += d.total_s;
  }

  // WAL rate from checkpoint distances: each distance is the WAL written
  // between two consecutive checkpoints' redo points, that is between their
  // starts. Pairs around a shutdown or an end-of-recovery checkpoint are left
  // out: the server was down for part of the time between them.
  void AddWal(const Checkpoint& c, bool counted, CheckpointLogTotals* t) {
    double time = c.start.time;
    if (has_previous_ && previous_counted_ && counted && c.completed &&
        c.done.distance_kb >= 0 && previous_time_ >= 0 &&
        time > previous_time_) {
      double b = static_cast<double>(c.done.distance_kb) * 1024;
      double dt = time - previous_time_;
      t->wal_bytes += b;
      t->wal_seconds += dt;
      rates_.Add(b / dt);
    }
    has_previous_ = true;
    previous_counted_ = counted;
    previous_time_ = time;
  }

  CheckpointLogEvent Event(const Checkpoint& c) const {
    CheckpointLogEvent e;
    e.source =
        fmt::format("{}:{}", inputs_[c.start.file].summary.path, c.start.line);
    e.time = c.start.time;
    e.restartpoint = c.start.restartpoint;
    for (uint8_t i = 0; i < c.start.flag_count; ++i) {
      e.flags.push_back(words_.Name(c.start.flags[i]));
    }
    if (c.completed) {
      e.completed = true;
      e.buffers = c.done.buffers;
      e.write_s = c.done.write_s;
      e.sync_s = c.done.sync_s;
      e.total_s = c.done.total_s;
      e.distance_kb = c.done.distance_kb;
      e.estimate_kb = c.done.estimate_kb;
    }
    return e;
  }

  const Words& words_;
  const std::vector<ParsedInput>& inputs_;
  CheckpointLogSummary* report_;
  const int shutdown_ = words_.Find("shutdown");
  const int end_of_recovery_ = words_.Find("end-of-recovery");
  const int time_ = words_.Find("time");
  const int wal_ = words_.Find("wal");
  const int xlog_ = words_.Find("xlog");  // "wal" before 10
  RateSample rates_;
  bool has_previous_ = false, previous_counted_ = false;
  double previous_time_ = -1;
};

// One checkpoint runs at a time and a "complete" is logged total= seconds
// after its "starting": a start further back (log times have a precision of
// a second at worst) belongs to another checkpoint whose "complete" is
// missing.
bool Belongs(const Record& start, const Record& complete) {
  constexpr double kSlack = 2;
  if (start.time < 0 || complete.time < 0 || complete.value < 0) return true;
  return complete.time - start.time <= complete.value + kSlack;
}

// Pairs each "complete" with the latest unpaired "starting" of its kind.
// Checkpoints wait here until they are complete (in starting order), at most
// kMaxPending of them: past that, the oldest is taken as one whose
// "complete" is missing.
class Pairer {
 public:
  static constexpr size_t kMaxPending = 4096;

  explicit Pairer(Totals* totals) : totals_(totals) {}

  void Add(const Record& r, CheckpointLogSummary* report) {
    std::deque<int64_t>& open = open_[r.restartpoint ? 1 : 0];
    if (r.kind == Kind::kStart) {
      open.push_back(first_id_ + static_cast<int64_t>(pending_.size()));
      pending_.push_back(Checkpoint{r, false, Record()});
    } else if (r.kind == Kind::kComplete) {
      if (!open.empty() && Belongs(At(open.back()).start, r)) {
        Checkpoint& c = At(open.back());
        c.completed = true;
        c.done = r;
        open.pop_back();
      } else {
        ++report->unpaired_completions;
      }
    } else {
      totals_->AddWarning(r);
    }
    Emit(false);
  }
  void Finish() { Emit(true); }

 private:
  Checkpoint& At(int64_t id) {
    return pending_[static_cast<size_t>(id - first_id_)];
  }
  void Emit(bool all) {
    while (!pending_.empty() && (all || pending_.front().completed ||
                                 pending_.size() > kMaxPending)) {
      // An open checkpoint is the oldest of its kind's open ones.
      for (std::deque<int64_t>& open : open_) {
        if (!open.empty() && open.front() == first_id_) open.pop_front();
      }
      totals_->Add(pending_.front());
      pending_.pop_front();
      ++first_id_;
    }
  }

  Totals* totals_;
  std::deque<Checkpoint> pending_;
  int64_t first_id_ = 0;
  std::deque<int64_t> open_[2];  // checkpoints, restartpoints
};

// Merges the sorted runs into |pairer|, oldest first; ties go to the earlier
// run (stable).
Status MergeRuns(Spool* sorted, const std::vector<Run>& runs, Pairer* pairer,
                 CheckpointLogSummary* report) {
  std::vector<SpoolReader> readers;
  readers.reserve(runs.size());
  for (const Run& run : runs) {
    readers.emplace_back(sorted, run.begin, run.end, false);
  }
  using Head = std::pair<const Record*, size_t>;
  auto later = [](const Head& a, const Head& b) {
    if (a.first->sort_time != b.first->sort_time) {
      return a.first->sort_time > b.first->sort_time;
    }
    return a.second > b.second;
  };
  std::priority_queue<Head, std::vector<Head>, decltype(later)> heads(later);
  for (size_t i = 0; i < readers.size(); ++i) {
    if (const Record* r = readers[i].Next()) heads.push({r, i});
    PGLAYOUT_RETURN_IF_ERROR(readers[i].status());
  }
  while (!heads.empty()) {
    auto [r, i] = heads.top();
    heads.pop();
    pairer->Add(*r, report);
    if (const Record* next = readers[i].Next()) heads.push({next, i});
    PGLAYOUT_RETURN_IF_ERROR(readers[i].status());
  }
  pairer->Finish();
  return Status::Ok();
}

std::string Describe(const LogFileSummary& s) {
  std::string what = s.format.empty() ? "" : s.format + ", ";
  if (!s.compression.empty()) what += s.compression + ", ";
  return fmt::format("{} ({}{} lines)", s.path, what, s.lines);
}

Status CheckInputs(const std::vector<ParsedInput>& inputs,
                   std::vector<std::string>* notes) {
  std::vector<std::string> quiet;
  for (const ParsedInput& in : inputs) {
    const LogFileSummary& s = in.summary;
    if (s.lines > 0 && s.format.empty() && in.records() == 0) {
      return Status::InvalidInput(fmt::format(
          "{}: {} lines in no server log format (looked for stderr lines "
          "with a severity such as \"LOG:  \", csvlog, jsonlog, syslog, "
          "Cloud Logging or CloudNativePG JSON)",
          s.path, s.lines));
    }
    if (in.records() == 0) quiet.push_back(Describe(s));
  }
  if (quiet.size() == inputs.size()) {
    return Status::InvalidInput(fmt::format(
        "no checkpoint messages in {}: looked for \"checkpoint starting:\" "
        "and \"checkpoint complete:\"; the server needs log_checkpoints = on "
        "(the default since PostgreSQL 15) and English messages "
        "(lc_messages = 'C' or 'en_US...')",
        fmt::join(quiet, ", ")));
  }
  for (const std::string& q : quiet) {
    notes->push_back(q + ": no checkpoint message");
  }
  return Status::Ok();
}

void NoteUntimed(const std::vector<ParsedInput>& inputs,
                 std::vector<std::string>* notes) {
  for (const ParsedInput& in : inputs) {
    if (in.records() > 0 && !in.timed) {
      notes->push_back(fmt::format(
          "{}: no times in its lines (log_line_prefix without %m or %t): "
          "its checkpoints are counted, but give no span or WAL rate",
          in.summary.path));
    }
  }
}

double Now() {
  return std::chrono::duration<double>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// The inputs read: their records in |spool|, their words in |words|.
struct ReadInputs {
  Spool spool;
  Words words;
  std::vector<ParsedInput> inputs;
};

Status Finish(ReadInputs* read, CheckpointLogSummary* report) {
  *report = CheckpointLogSummary();
  std::vector<ParsedInput>& inputs = read->inputs;
  report->files = static_cast<int>(inputs.size());
  for (const ParsedInput& in : inputs) {
    report->inputs.push_back(in.summary);
    report->lines += in.summary.lines;
  }
  PGLAYOUT_RETURN_IF_ERROR(CheckInputs(inputs, &report->notes));
  SettleYears(&inputs, Now(), &report->notes);
  for (ParsedInput& in : inputs) {
    PGLAYOUT_RETURN_IF_ERROR(Settle(&read->spool, &in));
  }
  NoteUntimed(inputs, &report->notes);
  Spool sorted;
  PGLAYOUT_RETURN_IF_ERROR(sorted.Open());
  RunWriter runs(&sorted);
  PGLAYOUT_RETURN_IF_ERROR(WriteRuns(&read->spool, &inputs, &runs));
  Totals totals(read->words, inputs, report);
  Pairer pairer(&totals);
  PGLAYOUT_RETURN_IF_ERROR(MergeRuns(&sorted, runs.runs(), &pairer, report));
  totals.Finish();
  if (report->unpaired_completions > 0) {
    report->notes.push_back(fmt::format(
        "{} \"complete\" message(s) without their \"starting\" (in a file "
        "not given?) were left out",
        report->unpaired_completions));
  }
  return Status::Ok();
}

// A missing file is named before anything is read.
Status CheckPath(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    const int err = errno;
    if (err == ENOENT) {
      return Status::NotFound("could not read server log \"" + path +
                              "\": " + std::strerror(ENOENT));
    }
    return Status::FromErrno("could not read server log \"" + path + "\"", err);
  }
  if (S_ISDIR(st.st_mode)) {
    return Status::InvalidInput("could not read server log \"" + path +
                                "\": " + std::strerror(EISDIR));
  }
  return Status::Ok();
}

Status Start(size_t n, ReadInputs* read) {
  read->inputs.resize(n);
  return read->spool.Open();
}

ParseContext ContextFor(ReadInputs* read, size_t i) {
  return ParseContext{&read->spool, &read->words, static_cast<uint32_t>(i),
                      &read->inputs[i], Status::Ok()};
}

}  // namespace

Status ReadCheckpointLogs(const std::vector<std::string>& paths,
                          CheckpointLogSummary* report) {
  if (paths.empty()) return Status::Internal("no log file given");
  for (const std::string& path : paths) {
    PGLAYOUT_RETURN_IF_ERROR(CheckPath(path));
  }
  ReadInputs read;
  PGLAYOUT_RETURN_IF_ERROR(Start(paths.size(), &read));
  for (size_t i = 0; i < paths.size(); ++i) {
    std::FILE* file = std::fopen(paths[i].c_str(), "rb");
    if (file == nullptr) {
      return Status::FromErrno("could not read server log \"" + paths[i] + "\"",
                               errno);
    }
    ParseContext c = ContextFor(&read, i);
    PGLAYOUT_RETURN_IF_ERROR(
        ParseInput(std::make_unique<FileInput>(file, paths[i]), paths[i], &c));
  }
  return Finish(&read, report);
}

Status ParseCheckpointLogs(const std::vector<NamedLog>& logs,
                           CheckpointLogSummary* report) {
  if (logs.empty()) return Status::Internal("no log given");
  ReadInputs read;
  PGLAYOUT_RETURN_IF_ERROR(Start(logs.size(), &read));
  for (size_t i = 0; i < logs.size(); ++i) {
    ParseContext c = ContextFor(&read, i);
    PGLAYOUT_RETURN_IF_ERROR(ParseInput(
        std::make_unique<MemoryInput>(logs[i].bytes), logs[i].name, &c));
  }
  return Finish(&read, report);
}

Workload LogSummaryToWorkload(const CheckpointLogSummary& report) {
  Workload w;
  w.source = "log";
  w.duration = std::round(report.Span() * 1000) / 1000;
  w.checkpoints.timed = report.Timed();
  w.checkpoints.requested = report.Requested();
  CheckpointAverages a = report.Averages();
  double n = static_cast<double>(w.checkpoints.timed + w.checkpoints.requested);
  w.checkpoints.write_time_ms = a.write_s * 1000 * n;
  w.checkpoints.sync_time_ms = a.sync_s * 1000 * n;
  w.checkpoints.buffers_written = std::llround(a.buffers * n);
  const CheckpointLogTotals& t = report.totals;
  if (t.wal_seconds > 0) {
    // Log times have millisecond resolution: so do the rates.
    w.wal_bytes_per_second = std::round(t.wal_bytes / t.wal_seconds);
    w.wal_bytes_per_second_peak = std::round(t.wal_peak_rate);
  }
  return w;
}

}  // namespace pglayout
