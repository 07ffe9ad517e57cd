#include "migrator/throttle.h"

#include <fmt/format.h>

#include <algorithm>

namespace pglayout::migrator {
namespace {

// Below this the pause is noise: drop it so the copy runs flat out.
constexpr double kMinFactor = 0.05;
// Writes must be at least this share of the baseline's commits to stand
// for the foreground's pace.
constexpr double kMinWriteShare = 0.5;
// What the estimate of the copy's cost starts from, as if one second at
// full duty had cost the foreground half its pace (about what a flat-out
// copy costs pgbench on two cores): one noisy first window cannot then
// make the copy look free, and a busy foreground's copy starts at the duty
// this prior calls for.
constexpr double kPriorCost = 0.5;
constexpr double kPriorSeconds = 1;

double PerSecond(int64_t from, int64_t to, double dt) {
  return dt > 0 ? static_cast<double>(to - from) / dt : 0;
}

double CommitRate(const ThrottleSample& from, const ThrottleSample& to) {
  return PerSecond(from.xact_commit, to.xact_commit, to.at_s - from.at_s);
}

double WriteRate(const ThrottleSample& from, const ThrottleSample& to) {
  return PerSecond(from.completed_xids, to.completed_xids, to.at_s - from.at_s);
}

double DutyOf(double factor) { return 1 / (1 + factor); }

}  // namespace

Status ParseThrottleMode(const std::string& text, ThrottleMode* mode) {
  if (text == "off") {
    *mode = ThrottleMode::kOff;
  } else if (text == "adaptive") {
    *mode = ThrottleMode::kAdaptive;
  } else {
    return Status::InvalidInput(
        "--throttle: '" + text +
        "' is not a throttle mode; use adaptive or off");
  }
  return Status::Ok();
}

const char* ThrottleModeName(ThrottleMode mode) {
  return mode == ThrottleMode::kOff ? "off" : "adaptive";
}

void AdaptiveThrottle::SetBaseline(const ThrottleSample& first,
                                   const ThrottleSample& second) {
  double commits = CommitRate(first, second);
  double writes = WriteRate(first, second);
  use_writes_ =
      writes >= limits_.min_baseline_tps && writes >= kMinWriteShare * commits;
  baseline_tps_ = use_writes_ ? writes : commits;
  duty_time_ = kPriorSeconds;
  lost_ = kPriorCost * kPriorSeconds;
  double start_duty = std::min(1.0, (1 - limits_.target_ratio) / kPriorCost);
  factor_ = baseline_tps_ >= limits_.min_baseline_tps ? 1 / start_duty - 1 : 0;
  window_start_ = second;
}

double AdaptiveThrottle::Window() const {
  return use_writes_ ? limits_.write_window_s : limits_.window_s;
}

double AdaptiveThrottle::PaceRatio(const ThrottleSample& now) const {
  if (baseline_tps_ < limits_.min_baseline_tps) return -1;
  double pace = use_writes_ ? WriteRate(*window_start_, now)
                            : CommitRate(*window_start_, now);
  return pace / baseline_tps_;
}

std::string AdaptiveThrottle::HardPressure(const ThrottleSample& now) const {
  if (now.requested_checkpoints > window_start_->requested_checkpoints) {
    return fmt::format(
        "{} requested checkpoint(s)",
        now.requested_checkpoints - window_start_->requested_checkpoints);
  }
  if (now.replica_lag_s > limits_.max_lag_s ||
      now.replica_lag_bytes > limits_.max_lag_bytes) {
    return fmt::format("replica lag {:.1f} s, {:.0f} MB", now.replica_lag_s,
                       now.replica_lag_bytes / 1e6);
  }
  return "";
}

void AdaptiveThrottle::BatchStarting(double at_s, int64_t completed_xids) {
  if (batch_end_) {
    pause_s_ += at_s - batch_end_->at_s;
    pause_writes_ += completed_xids - batch_end_->completed_xids;
  }
  batch_start_ = Mark{at_s, completed_xids};
}

void AdaptiveThrottle::OtherWorkDone() {
  batch_end_.reset();
  window_start_.reset();
  ResetWindow();
}

void AdaptiveThrottle::ResetWindow() {
  copy_s_ = pause_s_ = 0;
  copy_writes_ = pause_writes_ = 0;
}

void AdaptiveThrottle::Weigh(const ThrottleSample& now, double elapsed) {
  // At least this much pause in a window to measure the pace by (2.5
  // transactions per second of pause per 1% of resolution at 1000/s).
  constexpr double kMinPauseSeconds = 0.5;
  paired_ = use_writes_ && pause_s_ >= kMinPauseSeconds && copy_s_ > 0 &&
            pause_writes_ > 0;
  if (paired_) {
    double paused = static_cast<double>(pause_writes_) / pause_s_;
    double copying = static_cast<double>(copy_writes_) / copy_s_;
    last_ratio_ = copying / paused;
    pause_ratio_ = paused / baseline_tps_;
    lost_ += std::max(0.0, 1 - last_ratio_) * copy_s_;
    duty_time_ += copy_s_;
    return;
  }
  last_ratio_ = PaceRatio(now);
  if (last_ratio_ < 0) return;
  double duty_run = std::clamp(copy_s_ / elapsed, 0.01, 1.0);
  lost_ += std::max(0.0, 1 - last_ratio_) * elapsed;
  duty_time_ += duty_run * elapsed;
}

double AdaptiveThrottle::NextDuty() const {
  double duty = DutyOf(factor_);
  if (last_ratio_ < 0) return duty * 2;  // an idle foreground
  double cost = lost_ / duty_time_;
  double wanted = cost > 0 ? (1 - limits_.target_ratio) / cost : 1;
  return std::min(wanted, duty * 2);
}

double AdaptiveThrottle::Next(const ThrottleSample& now, double batch_s) {
  if (!window_start_) window_start_ = now;
  if (batch_start_) {
    copy_s_ += now.at_s - batch_start_->at_s;
    copy_writes_ += now.completed_xids - batch_start_->completed_xids;
  } else {
    copy_s_ += std::max(batch_s, 0.0);
  }
  batch_start_.reset();
  batch_end_ = Mark{now.at_s, now.completed_xids};
  double elapsed = now.at_s - window_start_->at_s;
  if (elapsed >= Window()) {
    last_reason_ = HardPressure(now);
    double duty;
    if (last_reason_.empty()) {
      Weigh(now, elapsed);
      duty = NextDuty();
    } else {
      duty = DutyOf(factor_) / 2;
    }
    duty = std::clamp(duty, DutyOf(limits_.max_pause_factor), 1.0);
    factor_ = 1 / duty - 1;
    if (factor_ < kMinFactor) factor_ = 0;
    window_start_ = now;
    ResetWindow();
    decided_ = true;
  }
  return factor_ * std::max(batch_s, 0.0);
}

std::string AdaptiveThrottle::Why() const {
  if (!decided_) return "measuring";
  if (!last_reason_.empty()) return last_reason_;
  if (paired_) {
    return fmt::format(
        "writes while copying {:.2f} of the pauses', pauses {:.2f} of "
        "baseline",
        last_ratio_, pause_ratio_);
  }
  if (last_ratio_ < 0) return "foreground idle";
  return fmt::format("{} {:.2f} of baseline", measure(), last_ratio_);
}

std::string AdaptiveThrottle::State() const {
  return fmt::format("pause {:.2f}x ({})", factor_, Why());
}

}  // namespace pglayout::migrator
