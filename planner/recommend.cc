#include "planner/recommend.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "common/stripe_read.h"
#include "common/units.h"
#include "planner/demand.h"

namespace pglayout::planner {
namespace {

// wal-g's direct reads count blocks of 4 KiB (WALG_DIRECT_IO_BLOCK_COUNT).
constexpr uint64_t kDirectIoBlock = 4 * kKiB;

uint64_t CeilDiv(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

std::string Size(uint64_t bytes) {
  return HumanSize(static_cast<double>(bytes));
}

constexpr double kDefaultCheckpointTimeout = 300;
// checkpoint_timeout values the plan may propose: whole minutes up to 30;
// beyond, the images saved shrink as 1/T while recovery keeps growing.
constexpr double kTimeoutSteps[] = {600, 900, 1200, 1800};
// A longer timeout is worth proposing when it saves this share of the WAL.
constexpr double kMinFpiSaving = 0.1;
constexpr uint64_t kDefaultMaxWalSize = kGiB;
constexpr uint64_t kDefaultMinWalSize = 80 * kMiB;

bool AllDigits(const std::string& text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return c >= '0' && c <= '9';
  });
}

// A WAL size setting: a bare number is megabytes, as postgresql.conf reads
// max_wal_size and min_wal_size.
uint64_t WalSizeSetting(const Workload& w, const std::string& name,
                        uint64_t fallback) {
  std::optional<std::string> text = w.Setting(name);
  if (!text) return fallback;
  if (AllDigits(*text)) return std::strtoull(text->c_str(), nullptr, 10) * kMiB;
  uint64_t bytes = 0;
  return ParseSize(*text, &bytes).ok() ? bytes : fallback;
}

double NumberSetting(const Workload& w, const std::string& name,
                     double fallback) {
  std::optional<std::string> text = w.Setting(name);
  if (!text) return fallback;
  char* end = nullptr;
  double value = std::strtod(text->c_str(), &end);
  return end != text->c_str() ? value : fallback;
}

int Version(const Workload& w) {
  return static_cast<int>(NumberSetting(w, "server_version_num", 0));
}

uint64_t RoundUpTo(uint64_t bytes, uint64_t unit) {
  return (bytes + unit - 1) / unit * unit;
}

std::string Mbps(double bytes_per_second) {
  return fmt::format("{:.1f} MB/s", bytes_per_second / 1e6);
}

struct WalRate {
  double bytes_per_second = 0;
  std::string basis;
};

// One checkpoint cycle: its checkpoint_timeout and the WAL rate at it.
struct CheckpointCycle {
  double timeout_seconds = 0;
  WalRate rate;
};

// The measured peak, or an estimate from the requested checkpoints: each
// one means max_wal_size / (1 + target) of WAL was written.
WalRate EstimateWalRate(const CheckpointInput& in, uint64_t current,
                        double target) {
  const Workload& w = *in.workload;
  if (in.wal_bytes_per_second > 0) {
    return {in.wal_bytes_per_second,
            fmt::format("WAL peaks at {}", Mbps(in.wal_bytes_per_second))};
  }
  if (w.checkpoints.requested > 0 && w.duration > 0) {
    const double rate = static_cast<double>(w.checkpoints.requested) *
                        static_cast<double>(current) / (1 + target) /
                        w.duration;
    return {rate, fmt::format("WAL rate estimated at {} from {} requested "
                              "checkpoints in {}",
                              Mbps(rate), w.checkpoints.requested,
                              FormatDuration(w.duration))};
  }
  return {};
}

// What the workload saw. A workload read from logs or exports carries no
// settings unless it says so: the default is then assumed, never
// presented as observed.
std::string CheckpointHistory(const Workload& w, uint64_t current) {
  const Checkpoints& c = w.checkpoints;
  if (c.timed + c.requested == 0) return "";
  return fmt::format(
      "; observed: {} of {} checkpoints requested (forced) under "
      "max_wal_size {}",
      c.requested, c.timed + c.requested,
      w.Setting("max_wal_size")
          ? FormatPgSize(current)
          : FormatPgSize(current) +
                " (not recorded in the workload: PostgreSQL's default "
                "assumed)");
}

// Applies the free-space and recovery bounds; |why| gets the binding one.
uint64_t BoundMaxWal(const CheckpointInput& in, uint64_t wanted,
                     std::string* why) {
  const auto recovery =
      static_cast<uint64_t>(in.recovery_budget_seconds * kReplayBytesPerSecond);
  const auto space = static_cast<uint64_t>(
      kWalVolumeShare * static_cast<double>(in.wal_volume_free));
  uint64_t bound = recovery;
  *why = fmt::format("a {} crash-recovery budget at ~{} replay allows {}",
                     FormatDuration(in.recovery_budget_seconds),
                     Mbps(kReplayBytesPerSecond),
                     HumanSize(static_cast<double>(recovery)));
  if (in.wal_volume_free > 0 && space < bound) {
    bound = space;
    *why = fmt::format("60% of the WAL volume's {} free is {}",
                       HumanSize(static_cast<double>(in.wal_volume_free)),
                       HumanSize(static_cast<double>(space)));
  }
  return std::min(wanted, bound / kGiB * kGiB);
}

// Blocks the relations dirty in one checkpoint cycle of |seconds|.
double DirtiedBlocksPerCycle(const Workload& w, double seconds) {
  double blocks = 0;
  for (const Relation& r : w.relations) {
    blocks += BlocksDirtiedPerCycle(r, seconds);
  }
  return blocks;
}

// Full-page images in bytes/s at a cycle of |seconds|: one 8 KiB image per
// block dirtied per cycle (before wal_compression).
double FpiBytesPerSecond(const Workload& w, double seconds) {
  return DirtiedBlocksPerCycle(w, seconds) * kPageSize / seconds;
}

uint64_t WantedMaxWal(double rate, double timeout);

// A longer checkpoint_timeout, when measured figures give a reason
// (docs/checkpoints.md#checkpoint_timeout-and-checkpoint_completion_target):
// the first change to a block after a checkpoint writes the whole page to
// the WAL, so blocks dirtied again and again within a cycle are imaged once
// per cycle; a longer cycle images them less often. The WAL at a timeout T is
// the measured rate less the images at the current timeout (at most the whole
// rate) plus those at T. The longest of kTimeoutSteps (up to 30 min) whose
// max_wal_size fits the bounds (the recovery budget, the WAL volume's space) is
// proposed when it saves at least kMinFpiSaving of the measured WAL; otherwise
// the server's setting stays. |cycle| gets the proposed timeout and its rate.
void RecommendCheckpointTimeout(const CheckpointInput& in,
                                CheckpointCycle* cycle,
                                std::vector<SettingChange>* out) {
  const Workload& w = *in.workload;
  const double rate = in.wal_bytes_per_second;
  const double t0 = cycle->timeout_seconds;
  const std::string fpw = w.Setting("full_page_writes").value_or("on");
  if (rate <= 0 || fpw == "off" || fpw == "false") return;
  const double fpi0 = FpiBytesPerSecond(w, t0);
  if (fpi0 <= 0) return;
  // What the model attributes beyond the measured WAL is not there.
  const double scale = std::min(1.0, rate / fpi0);
  auto wal_at = [&](double t) {
    return rate - fpi0 * scale + FpiBytesPerSecond(w, t) * scale;
  };
  double best = 0;
  std::string bound_reason, over;
  for (double t : kTimeoutSteps) {
    if (t <= t0) continue;
    const uint64_t wanted = WantedMaxWal(wal_at(t), t);
    std::string why;
    if (BoundMaxWal(in, wanted, &why) < wanted) {
      over = fmt::format("; {} would need max_wal_size {}, beyond the bound",
                         FormatDuration(t), FormatPgSize(wanted));
      break;
    }
    best = t;
    bound_reason = why;
  }
  const double saving = rate - (best > 0 ? wal_at(best) : rate);
  if (best <= 0 || saving < kMinFpiSaving * rate) return;
  const double blocks = DirtiedBlocksPerCycle(w, t0);
  const double blocks_best = DirtiedBlocksPerCycle(w, best);
  const std::string reason = fmt::format(
      "the first change to a block after a checkpoint writes the whole 8 KiB "
      "page to the WAL (a full-page image); the relations' writes dirty "
      "{:.0f} blocks per {} cycle (each block once, at most its relation's "
      "blocks), ~{} of the measured {} WAL; every {} they dirty {:.0f}, ~{}, "
      "so the WAL drops to ~{} ({:.0f}% less) and checkpoint writes from "
      "{:.0f} to {:.0f} IOPS (the forecast still counts the current {}); "
      "its max_wal_size within bounds: {}{}",
      blocks,
      FormatDuration(t0) + (w.Setting("checkpoint_timeout")
                                ? ""
                                : " (PostgreSQL's default assumed)"),
      Mbps(fpi0 * scale), Mbps(rate), FormatDuration(best), blocks_best,
      Mbps(FpiBytesPerSecond(w, best) * scale), Mbps(wal_at(best)),
      saving / rate * 100, blocks / (t0 * kCheckpointCompletionTarget),
      blocks_best / (best * kCheckpointCompletionTarget), FormatDuration(t0),
      bound_reason, over);
  out->push_back({"checkpoint_timeout", FormatDuration(best),
                  w.Setting("checkpoint_timeout").value_or(""), reason});
  cycle->timeout_seconds = best;
  cycle->rate = {
      wal_at(best),
      fmt::format("WAL peaks at {}, ~{} with checkpoint_timeout {}", Mbps(rate),
                  Mbps(wal_at(best)), FormatDuration(best))};
}

// The max_wal_size that keeps checkpoints timed every |timeout| at |rate|
// bytes/s: one cycle of WAL x (1 + target), +20% for bursts, whole GiB.
uint64_t WantedMaxWal(double rate, double timeout) {
  const double need =
      rate * timeout * (1 + kCheckpointCompletionTarget) * kWalBurstMargin;
  return RoundUpTo(static_cast<uint64_t>(need), kGiB);
}

// |cycle|: the checkpoint_timeout the plan proposes (or the current one)
// and the WAL rate at it.
void RecommendMaxWal(const CheckpointInput& in, const CheckpointCycle& cycle,
                     std::vector<SettingChange>* out, uint64_t* chosen) {
  const Workload& w = *in.workload;
  const uint64_t current =
      WalSizeSetting(w, "max_wal_size", kDefaultMaxWalSize);
  const double target = kCheckpointCompletionTarget;
  const double timeout = cycle.timeout_seconds;
  *chosen = current;
  const WalRate& rate = cycle.rate;
  if (rate.bytes_per_second <= 0) return;
  const double need =
      rate.bytes_per_second * timeout * (1 + target) * kWalBurstMargin;
  const uint64_t wanted = WantedMaxWal(rate.bytes_per_second, timeout);
  std::string bound_reason;
  const uint64_t value = BoundMaxWal(in, wanted, &bound_reason);
  if (value <= current) return;
  std::string reason = fmt::format(
      "{}; PostgreSQL requests a checkpoint after max_wal_size / (1 + {}) of "
      "WAL, so checkpoints stay timed (every {}) only if max_wal_size >= {} x "
      "{} x {} = {}, +20% for bursts{}",
      rate.basis, target, FormatDuration(timeout), Mbps(rate.bytes_per_second),
      FormatDuration(timeout), 1 + target, HumanSize(need / kWalBurstMargin),
      CheckpointHistory(w, current));
  if (value < wanted) {
    reason += fmt::format(
        "; capped: {} (wanted {}), so peaks will still "
        "request checkpoints",
        bound_reason, FormatPgSize(wanted));
  } else {
    reason += fmt::format("; within bounds: {}", bound_reason);
  }
  *chosen = value;
  out->push_back({"max_wal_size", FormatPgSize(value),
                  w.Setting("max_wal_size").value_or(""), reason});
}

void RecommendMinWal(const Workload& w, uint64_t max_wal,
                     std::vector<SettingChange>* out) {
  const uint64_t current =
      WalSizeSetting(w, "min_wal_size", kDefaultMinWalSize);
  const uint64_t unit = max_wal >= 4 * kGiB ? kGiB : kMiB;
  const uint64_t value = max_wal / 4 / unit * unit;
  if (value <= current) return;
  out->push_back(
      {"min_wal_size", FormatPgSize(value),
       w.Setting("min_wal_size").value_or(""),
       fmt::format("a quarter of max_wal_size {}: WAL segments stay recycled "
                   "after quiet periods instead of being created anew at the "
                   "next burst (PGTune uses the same ratio)",
                   FormatPgSize(max_wal))});
}

// 0.9 (the default since PostgreSQL 14) when the server has less, with
// what it changes: each cycle's dirtied blocks written over T x 0.9
// instead of T x the current target.
void RecommendCompletionTarget(const Workload& w, double timeout,
                               std::vector<SettingChange>* out) {
  const int version = Version(w);
  const double default_target = version > 0 && version < 140000 ? 0.5 : 0.9;
  const double target =
      NumberSetting(w, "checkpoint_completion_target", default_target);
  if (std::fabs(target - kCheckpointCompletionTarget) <= 1e-9) return;
  std::string reason = fmt::format(
      "spread timed checkpoint writes over {} x {} = {} of each {} cycle "
      "instead of {} x {} = {} (the default since PostgreSQL 14; the "
      "forecast counts it)",
      FormatDuration(timeout), kCheckpointCompletionTarget,
      FormatDuration(timeout * kCheckpointCompletionTarget),
      FormatDuration(timeout), FormatDuration(timeout), target,
      FormatDuration(timeout * target));
  const double blocks = DirtiedBlocksPerCycle(w, timeout);
  if (blocks > 0 && target > 0) {
    reason += fmt::format(
        ": the relations dirty {:.0f} blocks per cycle, written at {:.0f} "
        "IOPS instead of {:.0f}",
        blocks, blocks / (timeout * kCheckpointCompletionTarget),
        blocks / (timeout * target));
  }
  out->push_back({"checkpoint_completion_target",
                  fmt::format("{}", kCheckpointCompletionTarget),
                  w.Setting("checkpoint_completion_target").value_or(""),
                  reason});
}

void RecommendLogCheckpoints(const Workload& w,
                             std::vector<SettingChange>* out) {
  const std::string log = w.Setting("log_checkpoints").value_or("");
  if (log != "on" && log != "true") {
    out->push_back({"log_checkpoints", "on", log,
                    "'checkpoint starting: wal' in the log marks a requested "
                    "checkpoint, 'time' a scheduled one: the way to verify "
                    "max_wal_size over a day or a week"});
  }
}

double Round2(double value) { return std::round(value * 100) / 100; }

std::string Number(double value) {
  if (value == std::trunc(value)) return fmt::format("{:.0f}", value);
  return fmt::format("{}", Round2(value));
}

double SeqPagesPerSecond(const DeviceModel& m) {
  return m.read_mbps() > 0 ? m.read_mbps() * 1e6 / kPageSize
                           : m.read_capacity();
}

int Concurrency(const DeviceModel& m) {
  return static_cast<int>(std::clamp(std::round(m.parallelism()), 1.0, 1000.0));
}

// PostgreSQL's defaults, for settings the workload did not record:
// recommending the default would be noise.
std::string DefaultValue(const std::string& name, int version) {
  const bool pg18 = version == 0 || version >= 180000;
  if (name == "random_page_cost") return "4";
  if (name == "effective_io_concurrency") return pg18 ? "16" : "1";
  if (name == "maintenance_io_concurrency") return pg18 ? "16" : "10";
  if (name == "io_workers") return "3";
  if (name == "io_combine_limit" || name == "io_max_combine_limit") {
    return "128kB";
  }
  return "";
}

// Little's law at low IOPS asks for 1-3 I/Os in flight, under PostgreSQL's
// own default (maintenance_io_concurrency 10 before 18, 16 from 18): that
// is no measured reason to go below it, so the default is the floor.
int AtLeastTheDefault(const std::string& name, int value, int version) {
  const std::string def = DefaultValue(name, version);
  return def.empty() ? value : std::max(value, std::stoi(def));
}

void Set(const Workload* w, const std::string& name, const std::string& value,
         const std::string& reason, std::vector<SettingChange>* out) {
  std::string previous = w ? w->Setting(name).value_or("") : "";
  if (previous.empty() && w != nullptr) {
    previous = DefaultValue(name, Version(*w));
  }
  if (previous == value) return;
  out->push_back({name, value, previous, reason});
}

void RecommendCombineLimit(const IoInput& in, std::vector<SettingChange>* out) {
  if (in.server_version_num < 170000 || in.stripe_width == 0) return;
  const uint64_t max =
      in.server_version_num >= 180000 ? kMiB : 256 * kKiB;  // PG17: 32 blocks
  const uint64_t value = std::min(max, std::max(128 * kKiB, in.stripe_width));
  const std::string why = fmt::format(
      "a striped data volume serves reads up to {} in parallel; PostgreSQL "
      "{} combines sequential reads up to {}",
      HumanSize(static_cast<double>(in.stripe_width)),
      in.server_version_num >= 180000 ? "18" : "17", FormatPgSize(max));
  if (in.server_version_num >= 180000 && value > 128 * kKiB) {
    Set(in.workload, "io_max_combine_limit", FormatPgSize(value),
        "caps io_combine_limit (default 128kB); needs a restart", out);
  }
  Set(in.workload, "io_combine_limit", FormatPgSize(value), why, out);
}

void RecommendIoWorkers(const IoInput& in, std::vector<SettingChange>* out) {
  if (in.server_version_num < 180000) return;
  const std::string method =
      in.workload ? in.workload->Setting("io_method").value_or("worker")
                  : "worker";
  if (method != "worker") return;
  const double in_flight = in.read_iops * in.read_latency_us / 1e6;
  const int workers =
      static_cast<int>(std::clamp(std::ceil(in_flight), 3.0, 32.0));
  Set(in.workload, "io_workers", fmt::format("{}", workers),
      fmt::format("io_method=worker issues one I/O per worker at a time; "
                  "{:.0f} reads/s x {:.0f} us = {:.1f} in flight (Little's "
                  "law), within PostgreSQL's 3..32",
                  in.read_iops, in.read_latency_us, in_flight),
      out);
}

}  // namespace

double CheckpointTimeoutSeconds(const Workload& w) {
  std::optional<std::string> text = w.Setting("checkpoint_timeout");
  double seconds = 0;
  if (text && ParseDuration(*text, &seconds).ok() && seconds > 0) {
    return seconds;
  }
  return kDefaultCheckpointTimeout;
}

std::vector<SettingChange> RecommendCheckpoints(const CheckpointInput& in) {
  std::vector<SettingChange> out;
  const Workload& w = *in.workload;
  CheckpointCycle cycle;
  cycle.timeout_seconds = CheckpointTimeoutSeconds(w);
  cycle.rate =
      EstimateWalRate(in, WalSizeSetting(w, "max_wal_size", kDefaultMaxWalSize),
                      kCheckpointCompletionTarget);
  RecommendCheckpointTimeout(in, &cycle, &out);
  uint64_t max_wal = 0;
  RecommendMaxWal(in, cycle, &out, &max_wal);
  RecommendMinWal(w, max_wal, &out);
  RecommendCompletionTarget(w, cycle.timeout_seconds, &out);
  RecommendLogCheckpoints(w, &out);
  return out;
}

std::map<std::string, std::string> TablespaceOptions(
    const DeviceModel& volume, const DeviceModel* reference,
    int server_version_num) {
  const DeviceModel& ref = reference ? *reference : volume;
  const double seq = std::clamp(
      Round2(SeqPagesPerSecond(ref) / SeqPagesPerSecond(volume)), 0.25, 4.0);
  const double ratio =
      std::clamp(SeqPagesPerSecond(volume) / volume.read_capacity(), 1.1, 4.0);
  const int version = server_version_num > 0 ? server_version_num : 180000;
  auto depth = [&](const char* name) {
    return fmt::format("{}",
                       AtLeastTheDefault(name, Concurrency(volume), version));
  };
  std::map<std::string, std::string> options = {
      {"seq_page_cost", Number(seq)},
      {"random_page_cost", Number(Round2(seq * ratio))},
      {"effective_io_concurrency", depth("effective_io_concurrency")}};
  if (version >= 130000) {
    options["maintenance_io_concurrency"] = depth("maintenance_io_concurrency");
  }
  return options;
}

std::vector<SettingChange> RecommendIo(const IoInput& in) {
  std::vector<SettingChange> out;
  if (in.default_volume != nullptr) {
    const DeviceModel& m = *in.default_volume;
    std::map<std::string, std::string> o =
        TablespaceOptions(m, nullptr, in.server_version_num);
    const std::string where = fmt::format("pg_default's volume {}", m.name());
    Set(in.workload, "random_page_cost", o["random_page_cost"],
        fmt::format("{}: {:.0f} sequential pages/s vs {:.0f} random IOPS, "
                    "within [1.1, 4]",
                    where, SeqPagesPerSecond(m), m.read_capacity()),
        &out);
    const std::string depth = fmt::format(
        "{} needs {} reads in flight to reach {:.0f} IOPS at {:.0f} us "
        "(Little's law)",
        where, Concurrency(m), m.read_capacity(), m.unloaded_read_latency_us());
    auto why = [&](const std::string& value) {
      return value == fmt::format("{}", Concurrency(m))
                 ? depth
                 : depth + "; PostgreSQL's default " + value + " is the floor";
    };
    for (const char* name :
         {"effective_io_concurrency", "maintenance_io_concurrency"}) {
      if (o.count(name)) Set(in.workload, name, o[name], why(o[name]), &out);
    }
  }
  RecommendCombineLimit(in, &out);
  RecommendIoWorkers(in, &out);
  return out;
}

std::string InstanceFamily(const std::string& instance_type) {
  return instance_type.substr(0, instance_type.find('.'));
}

BackupReadSize ChooseBackupReadSize(const Volume& volume) {
  constexpr uint64_t kPerMember = 1 * kMiB;
  BackupReadSize r;
  r.volume = volume.name;
  r.measured = volume.stripe_read_size;
  const StripeGeometry g = FullStripe(volume);
  r.full_stripe = g.width;
  const StripeReadCheck check = CheckStripeReadSize(volume);
  const std::string stripe =
      g.chunk > 0 ? fmt::format("{} ({} chunk x {})", Size(g.width),
                                Size(g.chunk), g.width / g.chunk)
                  : Size(g.width);
  if (check.trusted) {
    r.source = check.declared ? "declared" : "measured";
    r.bytes = g.width > 0 ? CeilDiv(r.measured, g.width) * g.width : r.measured;
    r.why = fmt::format(
        "{}'s stripe-wide read size {}: {}{}", volume.name, Size(r.measured),
        check.why,
        r.bytes != r.measured
            ? fmt::format("; rounded up to whole stripes of {}", Size(g.width))
            : "");
    return r;
  }
  const std::string not_used =
      r.measured > 0 ? fmt::format("its {} {} is not used: {}",
                                   check.declared ? "declared" : "measured",
                                   Size(r.measured), check.why)
                     : "no stripe-wide read size was measured";
  if (g.width > 0) {
    r.source = "geometry";
    const uint64_t stripes =
        g.chunk > 0 ? std::max<uint64_t>(1, CeilDiv(kPerMember, g.chunk)) : 1;
    r.bytes = stripes * g.width;
    r.why = fmt::format(
        "{}'s geometry: {} whole stripe{} of {}, at least 1 MiB per member; "
        "{}",
        volume.name, stripes, stripes == 1 ? "" : "s", stripe, not_used);
    return r;
  }
  r.source = "rule";
  const int members = std::max(volume.members, 1);
  r.bytes = kPerMember * static_cast<uint64_t>(members);
  r.why = fmt::format(
      "1 MiB per member disk x {} on {}: its geometry is not known and {}",
      members, volume.name, not_used);
  return r;
}

BackupAdvice RecommendBackup(const Host& host, const BackupReadSize& read) {
  BackupAdvice a;
  a.read_size = read;
  a.walg["WALG_DIRECT_IO"] = "true";
  a.walg["WALG_DIRECT_IO_BLOCK_COUNT"] =
      fmt::format("{}", CeilDiv(read.bytes, kDirectIoBlock));
  a.walg["WALG_COMPRESSION_METHOD"] = "lz4";
  a.walg["CPUWeight"] = "25";
  a.pgbackrest["compress-type"] = "lz4";
  a.pgbackrest["CPUWeight"] = "25";
  a.reasons.push_back(fmt::format(
      "direct reads keep the page cache for queries but lose readahead, so "
      "each read must span the whole stripe: {} = {} blocks of 4 KiB, {} "
      "({})",
      Size(read.bytes), CeilDiv(read.bytes, kDirectIoBlock),
      read.source == "rule"       ? "by the rule"
      : read.source == "declared" ? "as declared"
      : read.source == "geometry" ? "from the geometry"
                                  : "as measured",
      read.why));
  a.reasons.push_back(
      "run the backup in a cgroup with CPUWeight=25 (queries keep 100) and "
      "compress with lz4; keep upload buffers under 5% of RAM");
  if (host.vcpus <= 0) {
    a.reasons.push_back(
        "vCPUs unknown: set WALG_UPLOAD_DISK_CONCURRENCY to "
        "vCPUs/2 (all vCPUs on i8g/i8ge/i7i/i7ie)");
    return a;
  }
  const std::string family = InstanceFamily(host.instance_type);
  const bool dense = family == "i8g" || family == "i8ge" || family == "i7i" ||
                     family == "i7ie";
  const int readers =
      dense || host.vcpus <= 2 ? host.vcpus : std::max(1, host.vcpus / 2);
  a.walg["WALG_UPLOAD_DISK_CONCURRENCY"] = fmt::format("{}", readers);
  a.pgbackrest["process-max"] = fmt::format("{}", std::max(1, host.vcpus / 2));
  a.reasons.push_back(fmt::format(
      "{} direct-I/O readers: {}", readers,
      dense ? fmt::format("{} is a dense-NVMe family, so all {} vCPUs", family,
                          host.vcpus)
      : host.vcpus <= 2 ? "2 vCPUs or fewer, so all of them"
                        : fmt::format("{} vCPUs / 2", host.vcpus)));
  a.reasons.push_back(fmt::format(
      "pgBackRest reads through the page cache (no direct-I/O option), so "
      "process-max = vCPUs/2 = {}",
      std::max(1, host.vcpus / 2)));
  return a;
}

}  // namespace pglayout::planner
