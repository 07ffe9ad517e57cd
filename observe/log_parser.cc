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
#include <istream>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <streambuf>

#include "observe/workload_stats.h"

namespace pglayout {

bool CheckpointLogEvent::HasFlag(std::string_view flag) const {
  return std::find(flags.begin(), flags.end(), flag) != flags.end();
}

bool CheckpointLogEvent::Counted() const {
  return !HasFlag("shutdown") && !HasFlag("end-of-recovery");
}

namespace {

// The server counts a checkpoint as timed only when checkpoint_timeout
// elapsed and nobody asked for one (checkpointer.c): a "wal time" is a
// request that arrived as the timeout elapsed, counted as requested.
bool IsTimed(const CheckpointLogEvent& e) {
  return e.Counted() && e.flags == std::vector<std::string>{"time"};
}

bool IsWalCaused(const CheckpointLogEvent& e) {
  return e.HasFlag("wal") || e.HasFlag("xlog");  // "xlog" before 10
}

template <typename Pred>
int64_t CountEvents(const CheckpointLogReport& report, Pred pred) {
  return std::count_if(report.events.begin(), report.events.end(), pred);
}

}  // namespace

int64_t CheckpointLogReport::Timed() const {
  return CountEvents(*this, IsTimed);
}

int64_t CheckpointLogReport::Requested() const {
  return CountEvents(*this,
                     [](const auto& e) { return e.Counted() && !IsTimed(e); });
}

int64_t CheckpointLogReport::WalTriggered() const {
  return CountEvents(
      *this, [](const auto& e) { return e.Counted() && IsWalCaused(e); });
}

int64_t CheckpointLogReport::Completed() const {
  return CountEvents(*this,
                     [](const auto& e) { return e.Counted() && e.completed; });
}

CheckpointAverages CheckpointLogReport::Averages() const {
  CheckpointAverages a;
  for (const CheckpointLogEvent& e : events) {
    if (!e.Counted() || !e.completed) continue;
    ++a.checkpoints;
    a.buffers += static_cast<double>(e.buffers);
    a.write_s += e.write_s;
    a.sync_s += e.sync_s;
    a.total_s += e.total_s;
  }
  if (a.checkpoints == 0) return a;
  double n = static_cast<double>(a.checkpoints);
  a.buffers /= n;
  a.write_s /= n;
  a.sync_s /= n;
  a.total_s /= n;
  return a;
}

double CheckpointLogReport::Span() const {
  double first = std::numeric_limits<double>::infinity();
  double last = -first;
  for (const CheckpointLogEvent& e : events) {
    if (!e.Counted() || e.time < 0) continue;
    first = std::min(first, e.time);
    last = std::max(last, e.time);
  }
  return last > first ? last - first : 0;
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
    if (inflateInit2(&z_, 15 + 16) != Z_OK) Fail("cannot be inflated");
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
    if (!started_) Fail("cannot be decompressed");
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
    return raw->status().WithContext("cannot read server log " + name);
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

enum class Kind { kStart, kComplete, kTooFrequent };

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

struct Record {
  Kind kind = Kind::kStart;
  Stamp stamp;
  double time = -1;          // seconds, once the year is settled
  double sort_time = 0;      // time, or a neighbour's for a line without one
  double value = -1;         // total= of a complete; "N seconds" of a warning
  CheckpointLogEvent event;  // flags of a start, numbers of a complete
};

Record MakeRecord(const Match& m, std::string_view msg, const Stamp& stamp) {
  Record r;
  r.kind = m.kind;
  r.stamp = stamp;
  r.time = stamp.seconds;
  r.event.restartpoint = m.restartpoint;
  std::string_view rest = msg.substr(m.after);
  if (m.kind == Kind::kStart) {
    r.event.flags = Flags(rest);
  } else if (m.kind == Kind::kComplete) {
    CheckpointLogEvent& e = r.event;
    e.completed = true;
    e.buffers = static_cast<int64_t>(std::max(0.0, ValueAfter(rest, "wrote ")));
    e.write_s = std::max(0.0, ValueAfter(rest, "write="));
    e.sync_s = std::max(0.0, ValueAfter(rest, "sync="));
    r.value = ValueAfter(rest, "total=");
    e.total_s = std::max(0.0, r.value);
    // -1 when the message has none (servers before 9.6).
    e.distance_kb = static_cast<int64_t>(ValueAfter(rest, "distance="));
    e.estimate_kb =
        static_cast<int64_t>(std::max(0.0, ValueAfter(rest, "estimate=")));
  } else {
    r.value = ValueAfter(msg.substr(m.after - 1), "(");
  }
  return r;
}

struct ParsedInput {
  LogFileSummary summary;
  std::vector<Record> records;
  std::array<int64_t, static_cast<size_t>(Format::kCount)> formats{};
};

constexpr int64_t kSampleLines = 1000;  // lines looked at for the format

void AddLine(const LineView& v, int64_t number, ParsedInput* in) {
  if (number <= kSampleLines || v.format != Format::kNone) {
    ++in->formats[static_cast<size_t>(v.format)];
  }
  std::optional<Match> m = FindCheckpointMessage(v.message);
  if (!m) return;
  Record r = MakeRecord(*m, v.message, v.stamp);
  r.event.source = fmt::format("{}:{}", in->summary.path, number);
  in->records.push_back(std::move(r));
}

void ParseLines(TextSource* text, ParsedInput* in) {
  std::string line;
  while (text->ReadLine(&line)) {
    int64_t number = ++in->summary.lines;
    if (number == 1 && line.starts_with("\xef\xbb\xbf")) line.erase(0, 3);
    // Most lines are not checkpoint messages: look closer only at the first
    // ones (for the format) and at those with the word.
    if (number > kSampleLines && line.find("point") == std::string::npos) {
      continue;
    }
    AddLine(ParseLine(line), number, in);
  }
}

// `gcloud logging read --format=json`: one array of entries over many
// lines, parsed entry by entry (each dropped once read).
Status ParseJsonArray(TextSource* text, ParsedInput* in) {
  std::istream stream(text);
  nlohmann::json::parser_callback_t on_entry =
      [in](int depth, nlohmann::json::parse_event_t event,
           nlohmann::json& parsed) {
        if (depth != 1 || event != nlohmann::json::parse_event_t::object_end) {
          return true;
        }
        AddLine(JsonEntry(parsed), ++in->summary.lines, in);
        return false;
      };
  nlohmann::json rest = nlohmann::json::parse(stream, on_entry, false);
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
                  ParsedInput* in) {
  in->summary.path = name;
  std::unique_ptr<Decoder> decoder;
  PGLAYOUT_RETURN_IF_ERROR(
      OpenDecoder(std::move(raw), name, &decoder, &in->summary.compression));
  TextSource text(std::move(decoder));
  if (IsJsonArray(text.Peek())) {
    PGLAYOUT_RETURN_IF_ERROR(ParseJsonArray(&text, in));
  } else {
    ParseLines(&text, in);
  }
  Status st = text.status();
  if (!st.ok()) {
    return st.WithContext(fmt::format("cannot read server log {} (line {})",
                                      name, in->summary.lines));
  }
  in->summary.format = FormatOf(*in);
  in->summary.messages = static_cast<int64_t>(in->records.size());
  return Status::Ok();
}

// ---------------------------------------------------------------------------
// Syslog years.

double CivilSeconds(int year, const Stamp& s) {
  return static_cast<double>(DaysFromCivil(year, s.month, s.day)) * 86400 +
         s.day_seconds;
}

// Gives yearless records years from |base| on, one more at each turn of the
// year (December, then January).
void ApplyYears(int base, ParsedInput* in) {
  int year = base, previous = 0;
  for (Record& r : in->records) {
    if (!r.stamp.yearless) continue;
    if (previous != 0 && r.stamp.month + 6 < previous) ++year;
    if (previous != 0 && r.stamp.month > previous + 6) --year;
    previous = r.stamp.month;
    r.time = CivilSeconds(year, r.stamp);
  }
}

const Record* FirstYearless(const ParsedInput& in) {
  for (const Record& r : in.records) {
    if (r.stamp.yearless) return &r;
  }
  return nullptr;
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
    for (const Record& r : in.records) {
      if (r.stamp.yearless || r.time < 0) continue;
      lo = std::min(lo, r.time);
      hi = std::max(hi, r.time);
      if (dated.path.empty()) dated.path = in.summary.path;
    }
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

// Syslog's times carry no year: gives them one, and says which in a note.
void SettleYears(std::vector<ParsedInput>* inputs, double now,
                 std::vector<std::string>* notes) {
  DatedTimes dated = Dated(*inputs);
  for (ParsedInput& in : *inputs) {
    const Record* first = FirstYearless(in);
    if (first == nullptr) continue;
    std::string why;
    int year = ChooseYear(first->stamp, dated, now, &why);
    ApplyYears(year, &in);
    notes->push_back(fmt::format("{}: syslog times carry no year: took {}, {}",
                                 in.summary.path, year, why));
  }
}

// ---------------------------------------------------------------------------
// Order and pairing.

// Puts an input's records oldest first (an export may list newest first)
// and gives lines without a time the time of the line before them.
void OrderInput(ParsedInput* in) {
  int64_t up = 0, down = 0;
  double previous = -1;
  for (const Record& r : in->records) {
    if (r.time < 0) continue;
    if (previous >= 0 && r.time > previous) ++up;
    if (previous >= 0 && r.time < previous) ++down;
    previous = r.time;
  }
  if (down > up) std::reverse(in->records.begin(), in->records.end());
  double known = -std::numeric_limits<double>::infinity();
  for (const Record& r : in->records) {
    if (r.time >= 0) {
      known = r.time;
      break;
    }
  }
  for (Record& r : in->records) {
    if (r.time >= 0) known = r.time;
    r.sort_time = known;
  }
}

// All records by time; inputs by their first time, so that records of the
// same instant keep the order of the files they came from.
std::vector<Record> Merge(std::vector<ParsedInput> inputs) {
  for (ParsedInput& in : inputs) OrderInput(&in);
  auto first = [](const ParsedInput& in) {
    return in.records.empty() ? 0 : in.records.front().sort_time;
  };
  std::stable_sort(
      inputs.begin(), inputs.end(),
      [&](const auto& a, const auto& b) { return first(a) < first(b); });
  std::vector<Record> all;
  for (ParsedInput& in : inputs) {
    std::move(in.records.begin(), in.records.end(), std::back_inserter(all));
  }
  std::stable_sort(all.begin(), all.end(), [](const auto& a, const auto& b) {
    return a.sort_time < b.sort_time;
  });
  return all;
}

// One checkpoint runs at a time and a "complete" is logged total= seconds
// after its "starting": a start further back (log times have a precision of
// a second at worst) belongs to another checkpoint whose "complete" is
// missing.
bool Belongs(const CheckpointLogEvent& start, const Record& complete) {
  constexpr double kSlack = 2;
  if (start.time < 0 || complete.time < 0 || complete.value < 0) return true;
  return complete.time - start.time <= complete.value + kSlack;
}

void Complete(const CheckpointLogEvent& numbers, CheckpointLogEvent* e) {
  e->completed = true;
  e->buffers = numbers.buffers;
  e->write_s = numbers.write_s;
  e->sync_s = numbers.sync_s;
  e->total_s = numbers.total_s;
  e->distance_kb = numbers.distance_kb;
  e->estimate_kb = numbers.estimate_kb;
}

void Pair(std::vector<Record> records, CheckpointLogReport* report) {
  std::vector<size_t> open[2];  // unpaired starts: checkpoints, restartpoints
  for (Record& r : records) {
    std::vector<size_t>& stack = open[r.event.restartpoint ? 1 : 0];
    if (r.kind == Kind::kStart) {
      r.event.time = r.time;
      stack.push_back(report->events.size());
      report->events.push_back(std::move(r.event));
    } else if (r.kind == Kind::kComplete) {
      if (!stack.empty() && Belongs(report->events[stack.back()], r)) {
        Complete(r.event, &report->events[stack.back()]);
        stack.pop_back();
      } else {
        ++report->unpaired_completions;
      }
    } else {
      ++report->too_frequent_warnings;
      if (r.value >= 0) report->too_frequent_seconds.push_back(r.value);
    }
  }
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
    if (s.lines > 0 && s.format.empty() && in.records.empty()) {
      return Status::InvalidInput(fmt::format(
          "{}: {} lines in no server log format (looked for stderr lines "
          "with a severity such as \"LOG:  \", csvlog, jsonlog, syslog, "
          "Cloud Logging or CloudNativePG JSON)",
          s.path, s.lines));
    }
    if (in.records.empty()) quiet.push_back(Describe(s));
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
    bool timed = std::any_of(in.records.begin(), in.records.end(),
                             [](const Record& r) { return r.time >= 0; });
    if (!in.records.empty() && !timed) {
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

Status Finish(std::vector<ParsedInput> inputs, CheckpointLogReport* report) {
  *report = CheckpointLogReport();
  report->files = static_cast<int>(inputs.size());
  for (const ParsedInput& in : inputs) {
    report->inputs.push_back(in.summary);
    report->lines += in.summary.lines;
  }
  PGLAYOUT_RETURN_IF_ERROR(CheckInputs(inputs, &report->notes));
  SettleYears(&inputs, Now(), &report->notes);
  NoteUntimed(inputs, &report->notes);
  Pair(Merge(std::move(inputs)), report);
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
    if (errno == ENOENT) {
      return Status::NotFound("cannot read server log " + path +
                              ": no such file");
    }
    return Status::FromErrno("cannot read server log " + path, errno);
  }
  if (S_ISDIR(st.st_mode)) {
    return Status::InvalidInput("cannot read server log " + path +
                                ": a directory, not a file");
  }
  return Status::Ok();
}

Status ReadFile(const std::string& path, ParsedInput* in) {
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) {
    return Status::FromErrno("cannot read server log " + path, errno);
  }
  return ParseInput(std::make_unique<FileInput>(file, path), path, in);
}

}  // namespace

Status ReadCheckpointLogs(const std::vector<std::string>& paths,
                          CheckpointLogReport* report) {
  if (paths.empty()) return Status::InvalidInput("no log file given");
  for (const std::string& path : paths) {
    PGLAYOUT_RETURN_IF_ERROR(CheckPath(path));
  }
  std::vector<ParsedInput> inputs(paths.size());
  for (size_t i = 0; i < paths.size(); ++i) {
    PGLAYOUT_RETURN_IF_ERROR(ReadFile(paths[i], &inputs[i]));
  }
  return Finish(std::move(inputs), report);
}

Status ParseCheckpointLogs(const std::vector<NamedLog>& logs,
                           CheckpointLogReport* report) {
  if (logs.empty()) return Status::InvalidInput("no log given");
  std::vector<ParsedInput> inputs(logs.size());
  for (size_t i = 0; i < logs.size(); ++i) {
    PGLAYOUT_RETURN_IF_ERROR(
        ParseInput(std::make_unique<MemoryInput>(logs[i].bytes), logs[i].name,
                   &inputs[i]));
  }
  return Finish(std::move(inputs), report);
}

namespace {

// WAL rate from checkpoint distances: each distance is the WAL written
// between two consecutive checkpoints' redo points, that is between their
// starts. Pairs around a shutdown or an end-of-recovery checkpoint are left
// out: the server was down for part of the time between them.
void WalFromDistances(const CheckpointLogReport& report, Workload* w) {
  const CheckpointLogEvent* previous = nullptr;
  double bytes = 0, seconds = 0;
  std::vector<double> rates;
  for (const CheckpointLogEvent& e : report.events) {
    if (e.restartpoint) continue;
    if (previous != nullptr && previous->Counted() && e.Counted() &&
        e.completed && e.distance_kb >= 0 && previous->time >= 0 &&
        e.time > previous->time) {
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
  CheckpointAverages a = report.Averages();
  double n = static_cast<double>(w.checkpoints.timed + w.checkpoints.requested);
  w.checkpoints.write_time_ms = a.write_s * 1000 * n;
  w.checkpoints.sync_time_ms = a.sync_s * 1000 * n;
  w.checkpoints.buffers_written = std::llround(a.buffers * n);
  WalFromDistances(report, &w);
  return w;
}

}  // namespace pglayout
