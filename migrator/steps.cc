#include "migrator/steps.h"

#include <fmt/format.h>

#include <algorithm>

#include "common/ddl.h"
#include "common/text.h"
#include "common/units.h"
#include "migrator/sql_util.h"
#include "pg/sql.h"

namespace pglayout::migrator {
namespace {

std::string Quoted(const TableFacts& t) {
  return QuoteIdent(t.schema) + "." + QuoteIdent(t.name);
}

double LockSeconds(uint64_t bytes, double mbps) {
  return mbps > 0 ? static_cast<double>(bytes) / (mbps * 1e6) : 0;
}

void AddTablespaceSteps(const Plan& plan, const ServerFacts& server,
                        std::vector<Step>* steps) {
  for (const TablespaceSpec& ts : plan.tablespaces) {
    Step s;
    s.key = "tablespace:" + ts.name;
    s.kind = StepKind::kCreateTablespace;
    s.tablespace = &ts;
    s.outside_transaction = true;
    s.title = fmt::format("create tablespace {} at {}", ts.name, ts.path);
    s.sql = {CreateTablespaceSql(ts)};
    if (server.FindTablespace(ts.name)) {
      s.note = "exists already at the same location: nothing to do";
    }
    steps->push_back(std::move(s));
    std::string options = AlterTablespaceOptionsSql(ts);
    if (options.empty()) continue;
    Step o;
    o.key = "tablespace-options:" + ts.name;
    o.kind = StepKind::kTablespaceOptions;
    o.tablespace = &ts;
    o.title = "set options of tablespace " + ts.name;
    o.sql = {options};
    steps->push_back(std::move(o));
  }
}

Step OfflineMoveStep(const Placement& p, const TableFacts& t,
                     const StepOptions& options) {
  Step s;
  s.key = "move:" + p.relation;
  s.kind = StepKind::kMoveOffline;
  s.placement = &p;
  const std::string& ts = p.tablespaces[0];
  s.title = fmt::format("move {} to tablespace {} (offline)", p.relation, ts);
  s.objects.emplace_back(t.kind, Quoted(t));
  s.bytes = t.kind == 'i' ? t.storage.heap_size
                          : t.storage.heap_size + t.storage.toast_size;
  if (t.kind != 'i') {
    for (const IndexFacts& i : t.indexes) {
      s.objects.emplace_back('i',
                             QuoteIdent(t.schema) + "." + QuoteIdent(i.name));
      s.bytes += i.size;
    }
  }
  for (const auto& [kind, name] : s.objects) {
    s.sql.push_back(SetTablespaceSql(kind, name, ts));
  }
  s.note = OfflineLockForecast(t, options.offline_rate_mbps) +
           "; lock waits are bounded by lock_timeout and retried";
  if (t.storage.tablespace == ts ||
      (ts == "pg_default" && t.storage.tablespace.empty())) {
    s.note += "; the relation is already there (statements are no-ops)";
  }
  return s;
}

Step OnlineIndexStep(const Placement& p, const TableFacts& t) {
  Step s;
  s.key = "move:" + p.relation;
  s.kind = StepKind::kMoveIndexOnline;
  s.placement = &p;
  s.outside_transaction = true;
  s.title = fmt::format("rebuild index {} in tablespace {} (online)",
                        p.relation, p.tablespaces[0]);
  s.sql = {ReindexConcurrentlySql(Quoted(t), p.tablespaces[0])};
  s.bytes = t.storage.heap_size;
  s.note =
      "REINDEX CONCURRENTLY does not block reads or writes; an "
      "interrupted rebuild leaves an invalid _ccnew index that a "
      "resumed run drops";
  return s;
}

// The locks of a partition's swap and how long they are held
// (docs/online-migration.md#moving-a-partition).
std::string PartitionSwapNote(const TableFacts& t, const OnlineNames& names) {
  std::string default_part =
      t.partition.default_partition.empty()
          ? ""
          : fmt::format(
                " and on the DEFAULT partition {}, which ATTACH {}",
                t.partition.default_partition,
                t.partition.default_partition_partitioned
                    ? "scans under that lock (it is partitioned, so no "
                      "constraint spares the scan)"
                    : "does not scan (a validated constraint says no row "
                      "of it falls within the bounds)");
  return fmt::format(
      "the partition stays readable and writable through {0} and directly "
      "during the copy; the swap is one transaction holding ACCESS "
      "EXCLUSIVE on {0} (DETACH PARTITION needs it: every query through the "
      "parent waits; its other partitions read directly do not), on the "
      "partition and its copy{1}, for the replay of the last changes "
      "(at most 10,000 by default) and catalog changes only: ATTACH "
      "PARTITION scans "
      "nothing (the copy carries a validated CHECK equal to the partition "
      "constraint, and the parent's foreign keys already validated); the "
      "old partition is kept, detached, as {2} until --finalize",
      t.partition.parent, default_part, names.QualifiedOld());
}

Step OnlineCopyStep(const Placement& p, const TableFacts& t,
                    const ServerFacts& server, const StepOptions& options) {
  Step s;
  s.kind = StepKind::kOnlineCopy;
  s.placement = &p;
  s.bytes = t.total_size();
  s.target = TargetOf(p, t);
  s.key = PlacementStepKey(p);
  if (s.target.parent_modulus > 0) {
    s.title = fmt::format(
        "split {} (hash partition {} of {} of {}) into {} partitions of "
        "modulus {} by ({}) over {} (online copy, then detach and attach the "
        "copy)",
        p.relation, s.target.parent_remainder, s.target.parent_modulus,
        t.partition.parent, p.partitions, TargetModulus(s.target),
        JoinComma(p.key), JoinComma(p.tablespaces));
  } else if (p.strategy == Strategy::kHashPartition) {
    s.title = fmt::format(
        "convert {} to {} hash partitions by ({}) over {} "
        "(online)",
        p.relation, p.partitions, JoinComma(p.key), JoinComma(p.tablespaces));
  } else if (!t.partition.parent.empty()) {
    s.title = fmt::format(
        "move {} (a partition of {}) to tablespace {} (online copy, then "
        "detach and attach the copy)",
        p.relation, t.partition.parent, p.tablespaces[0]);
  } else {
    s.title = fmt::format("move {} to tablespace {} (online copy and swap)",
                          p.relation, p.tablespaces[0]);
  }
  OnlineNames names = MakeOnlineNames(t, s.target);
  auto append = [&s](const std::vector<std::string>& more) {
    for (const std::string& sql : more) {
      if (!sql.empty()) s.sql.push_back(sql);
    }
  };
  s.sql.push_back("-- 1. shadow table and change capture, one transaction:");
  append(ShadowCreateSql(t, s.target, names, server.version_num));
  bool by_blocks =
      options.copy_by_blocks && HasTidRangeScans(server.version_num);
  append(CaptureCreateSql(t, names, 0, by_blocks));
  if (by_blocks) {
    s.sql.push_back(fmt::format(
        "-- 2. copy ranges of heap blocks (about {} rows each) into the "
        "shadow, which has no index yet, each with its journal row ($3: the "
        "oldest transaction running when the capture was installed):",
        options.batch_rows));
    append(CopyByXminSettingsSql());
    s.sql.push_back(
        CopyTidRangeSql(t, names, BlockCopyFilter::kLoggedSinceXmin));
  } else {
    s.sql.push_back(
        fmt::format("-- 2. copy in key order, batches of {} rows, into the "
                    "shadow, which has no index yet, each with its journal "
                    "row:",
                    options.batch_rows));
    s.sql.push_back(CopyBatchSql(t, names, options.batch_rows, false));
  }
  s.sql.push_back("-- 3. the indexes, the row key's first:");
  for (const ShadowIndex& index : ShadowIndexSql(t, s.target, names)) {
    append(index.sql);
  }
  std::vector<AttachPrep> preps = AttachPrepSql(t, names);
  if (!preps.empty()) {
    s.sql.push_back(
        "-- what ATTACH PARTITION would scan for, each added NOT VALID (a "
        "brief lock) and validated (not blocking writes):");
  }
  for (const AttachPrep& prep : preps) append({prep.add, prep.validate});
  s.sql.push_back("-- 4. replay captured keys, repeatedly:");
  ReplaySql replay = MakeReplaySql(t, names);
  append({replay.take, replay.remove, replay.insert});
  if (options.verify) {
    s.sql.push_back(fmt::format(
        "-- 5. verify in one snapshot: count + sum of row hashes of the "
        "source and of the copy{}, less those of the logged keys:",
        by_blocks ? ", block range by block range" : ""));
    VerifyScope scope =
        by_blocks ? VerifyScope::kBlockRange : VerifyScope::kAll;
    s.sql.push_back(
        VerifySumSql(t, names, "ONLY " + names.QualifiedTable(), scope));
    s.sql.push_back(VerifySumSql(t, names, names.QualifiedShadow(), scope));
    s.sql.push_back(VerifySumSql(t, names, "ONLY " + names.QualifiedTable(),
                                 VerifyScope::kLoggedKeys));
  } else {
    s.sql.push_back(
        "-- 5. no verification (--verify off): the copy is not compared "
        "with the table");
  }
  s.sql.push_back(
      "-- 6. swap, one transaction; each lock under lock_timeout, retried "
      "with backoff:");
  s.sql.push_back(SwapLockSql(t, names));
  append(SwapSql(t, s.target, names, SwapInputs()));
  s.sql.push_back("-- 7. after the swap:");
  std::vector<std::string> not_valid = NotValidForeignKeys(t);
  append(PostSwapSql(t, names, {not_valid.begin(), not_valid.end()}));
  append(CaptureDropSql(names, false));
  s.note = fmt::format(
      "the table stays readable and writable; the swap holds ACCESS "
      "EXCLUSIVE for a moment; the old table is kept as {} until "
      "--finalize",
      names.QualifiedOld());
  if (!t.partition.parent.empty()) s.note = PartitionSwapNote(t, names);
  return s;
}

void AddPlacementSteps(const Plan& plan, const ServerFacts& server,
                       const std::map<std::string, TableFacts>& tables,
                       const StepOptions& options, std::vector<Step>* offline,
                       std::vector<Step>* online) {
  for (const Placement& p : plan.placements) {
    if (p.strategy == Strategy::kStay) continue;
    auto it = tables.find(p.relation);
    if (it == tables.end() || !it->second.exists) continue;
    const TableFacts& t = it->second;
    if (t.placed_as_planned) continue;
    if (MovesOffline(p, t)) {
      offline->push_back(OfflineMoveStep(p, t, options));
    } else if (p.strategy == Strategy::kMove && t.kind == 'i') {
      online->push_back(OnlineIndexStep(p, t));
    } else {
      online->push_back(OnlineCopyStep(p, t, server, options));
    }
  }
}

Step GuardRaiseStep(const GuardDecision& d) {
  Step raise;
  raise.key = "guard:raise";
  raise.kind = StepKind::kGuardRaise;
  raise.outside_transaction = true;
  raise.guard_value = FormatPgSize(d.target);
  raise.title = fmt::format("checkpoint guard: raise max_wal_size {} -> {}",
                            FormatPgSize(d.current), raise.guard_value);
  raise.sql = {AlterSystemSetSql("max_wal_size", raise.guard_value),
               ReloadConfSql()};
  raise.note = d.reason +
               "; the original is journaled first (and once per cluster, in "
               "postgresql.auto.conf) and restored at the end, on --abort and "
               "when a killed run resumes";
  return raise;
}

Step GuardRestoreStep(const Plan& plan, const GuardDecision& d) {
  Step restore;
  restore.key = "guard:restore";
  restore.kind = StepKind::kGuardRestore;
  restore.outside_transaction = true;
  bool plan_sets = std::any_of(
      plan.settings.begin(), plan.settings.end(),
      [](const SettingChange& s) { return s.name == "max_wal_size"; });
  restore.title = plan_sets
                      ? "checkpoint guard: max_wal_size is left to the plan's "
                        "[settings]"
                      : "checkpoint guard: restore max_wal_size to " +
                            FormatPgSize(d.current);
  restore.sql = {
      "-- once WAL since the last checkpoint is back under the "
      "original limit (so lowering it forces no checkpoint); SET "
      "instead of RESET when postgresql.auto.conf had a value:",
      AlterSystemResetSql("max_wal_size"), ReloadConfSql()};
  return restore;
}

// The guard's steps. The original is the journaled one when there is one
// (a resumed run sees its own raised value on the server), and a raise
// journaled but not yet restored keeps its restore step even when nothing
// is left to raise (the raise itself is done in the journal).
void AddGuardSteps(const Plan& plan, const ServerFacts& server,
                   uint64_t bulk_bytes, const StepOptions& options,
                   std::vector<Step>* before, std::vector<Step>* after) {
  const bool pending = options.guard_restore_pending;
  if (!pending && (!options.checkpoint_guard || bulk_bytes == 0)) return;
  double cct = 0.9;
  auto c = server.settings.find("checkpoint_completion_target");
  if (c != server.settings.end()) cct = std::strtod(c->second.c_str(), nullptr);
  const uint64_t original = options.guard_original
                                ? options.guard_original
                                : SettingOr(server, "max_wal_size", kGiB);
  GuardDecision d =
      DecideMaxWalSize(original, bulk_bytes, cct, options.wal_free_bytes,
                       options.max_wal_size_cap);
  if (!d.raise && !pending) return;
  if (d.raise) before->push_back(GuardRaiseStep(d));
  after->push_back(GuardRestoreStep(plan, d));
}

void AddSettingsStep(const Plan& plan, const ServerFacts& server,
                     std::vector<Step>* steps) {
  if (plan.settings.empty()) return;
  Step s;
  s.key = "settings";
  s.kind = StepKind::kPlanSettings;
  s.outside_transaction = true;
  s.title = "apply the plan's [settings] with ALTER SYSTEM";
  std::vector<std::string> restart;
  for (const SettingChange& c : plan.settings) {
    s.sql.push_back(AlterSystemSetSql(c.name, c.value));
    auto ctx = server.setting_contexts.find(c.name);
    if (ctx != server.setting_contexts.end() && ctx->second == "postmaster") {
      restart.push_back(c.name);
    }
  }
  s.sql.push_back(ReloadConfSql());
  if (!restart.empty()) {
    s.note = fmt::format(
        "{} take effect after a restart, which pglayout never "
        "does: run `pg_ctl restart` (or your service "
        "manager) in a maintenance window",
        JoinComma(restart));
  }
  steps->push_back(std::move(s));
}

}  // namespace

std::string PlacementStepKey(const Placement& p) {
  return (p.strategy == Strategy::kHashPartition ? "partition:" : "move:") +
         p.relation;
}

const char* StepKindName(StepKind kind) {
  switch (kind) {
    case StepKind::kCreateTablespace:
      return "create-tablespace";
    case StepKind::kTablespaceOptions:
      return "tablespace-options";
    case StepKind::kGuardRaise:
      return "guard-raise";
    case StepKind::kMoveOffline:
      return "move-offline";
    case StepKind::kMoveIndexOnline:
      return "move-index-online";
    case StepKind::kOnlineCopy:
      return "online-copy";
    case StepKind::kGuardRestore:
      return "guard-restore";
    case StepKind::kPlanSettings:
      return "settings";
    case StepKind::kVerify:
      return "verify";
  }
  return "?";
}

bool MovesOffline(const Placement& placement, const TableFacts& table) {
  return placement.strategy == Strategy::kMove &&
         (!placement.online || table.kind == 'm');
}

uint64_t SettingOr(const ServerFacts& server, const std::string& name,
                   uint64_t fallback) {
  auto v = server.settings.find(name);
  if (v == server.settings.end()) return fallback;
  auto u = server.setting_units.find(name);
  uint64_t bytes =
      SettingBytes(v->second, u == server.setting_units.end() ? "" : u->second);
  return bytes ? bytes : fallback;
}

uint64_t SettingBytes(const std::string& setting, const std::string& unit) {
  if (setting.empty()) return 0;
  uint64_t bytes = 0;
  std::string text = setting + unit;
  // pg_settings units look like "MB", "kB" or "8kB".
  if (!unit.empty() && std::isdigit(static_cast<unsigned char>(unit[0]))) {
    uint64_t per = 0;
    if (!ParseSize(unit, &per).ok()) return 0;
    return static_cast<uint64_t>(std::strtod(setting.c_str(), nullptr)) * per;
  }
  return ParseSize(text, &bytes).ok() ? bytes : 0;
}

double ProjectedWal(const RestoreCheck& check) {
  return check.wal_since_redo + std::max(check.wal_rate, 0.0) *
                                    std::max(check.seconds_to_next_start, 0.0);
}

double RequestThreshold(uint64_t original, double completion_target) {
  return static_cast<double>(original) /
         (1.0 + std::clamp(completion_target, 0.0, 1.0));
}

double ForegroundCycleWal(const RestoreCheck& check) {
  if (!check.rate_measured) return 0;
  return std::max(check.wal_rate, 0.0) * std::max(check.cycle_seconds, 0.0);
}

namespace {

// Where the guard restores: 90% of the request threshold.
double Room(uint64_t original, double completion_target) {
  return 0.9 * RequestThreshold(original, completion_target);
}

}  // namespace

bool ForegroundOutgrows(uint64_t original, double completion_target,
                        const RestoreCheck& check) {
  return check.rate_measured &&
         ForegroundCycleWal(check) >= Room(original, completion_target);
}

RestoreVerdict DecideRestore(uint64_t original, double completion_target,
                             const RestoreCheck& check) {
  if (ProjectedWal(check) < Room(original, completion_target)) {
    return RestoreVerdict::kRestore;
  }
  // No checkpoint can make room for a cycle's WAL that alone exceeds it.
  if (check.checkpoint_since_wait ||
      ForegroundOutgrows(original, completion_target, check)) {
    return RestoreVerdict::kCannot;
  }
  return RestoreVerdict::kWait;
}

GuardDecision DecideMaxWalSize(uint64_t current, uint64_t bulk_bytes,
                               double completion_target,
                               uint64_t wal_free_bytes, uint64_t cap) {
  GuardDecision d;
  d.current = current;
  double factor = 1.0 + std::clamp(completion_target, 0.0, 1.0);
  // The ordinary workload already fits in current / factor per cycle; the
  // copy's WAL has to fit on top of it.
  double extra = static_cast<double>(bulk_bytes) * kWalPerByte * factor;
  uint64_t target = current + static_cast<uint64_t>(extra);
  std::string bound;
  if (wal_free_bytes > 0 && target > wal_free_bytes / 2) {
    target = wal_free_bytes / 2;
    bound = fmt::format(", bounded by half the free WAL space ({})",
                        HumanSize(static_cast<double>(wal_free_bytes)));
  }
  if (cap > 0 && target > cap) {
    target = cap;
    bound = ", bounded by --max-wal-size";
  }
  target =
      (target + kMiB - 1) / kMiB * kMiB;  // whole MB, as PostgreSQL keeps it
  d.target = target;
  // A copy that adds under 5% to the budget cannot force a checkpoint
  // worth a server-wide change.
  d.raise = target > current && extra > 0.05 * static_cast<double>(current);
  d.reason = fmt::format(
      "the copies write about {} of WAL; a requested checkpoint starts when "
      "WAL since the last one reaches max_wal_size / {:.1f}{}",
      HumanSize(static_cast<double>(bulk_bytes) * kWalPerByte), factor, bound);
  if (!d.raise) d.reason += "; the current value is already enough";
  return d;
}

std::vector<Step> BuildSteps(const Plan& plan, const ServerFacts& server,
                             const std::map<std::string, TableFacts>& tables,
                             const StepOptions& options) {
  std::vector<Step> steps, offline, online, guard_before, guard_after;
  AddTablespaceSteps(plan, server, &steps);
  AddPlacementSteps(plan, server, tables, options, &offline, &online);
  uint64_t bulk = 0;
  for (const Step& s : offline) bulk += s.bytes;
  for (const Step& s : online) bulk += s.bytes;
  AddGuardSteps(plan, server, bulk, options, &guard_before, &guard_after);
  for (auto* group : {&guard_before, &offline, &online, &guard_after}) {
    for (Step& s : *group) steps.push_back(std::move(s));
  }
  AddSettingsStep(plan, server, &steps);
  Step verify;
  verify.key = "verify";
  verify.kind = StepKind::kVerify;
  verify.title =
      "check every moved relation, partition, index and TOAST "
      "table is in its planned tablespace; no leftover triggers, "
      "invalid indexes or unrestored settings";
  steps.push_back(std::move(verify));
  // Names in titles come from the plan and the catalogs: one line each,
  // control characters escaped (a title reaches messages, the journal and
  // the terminal).
  for (Step& s : steps) s.title = DisplayName(s.title);
  return steps;
}

std::string FormatSteps(const std::vector<Step>& steps) {
  std::string out;
  for (size_t i = 0; i < steps.size(); ++i) {
    const Step& s = steps[i];
    out +=
        fmt::format("Step {}: {}{}\n", i + 1, s.title,
                    s.outside_transaction ? "  [outside a transaction]" : "");
    if (!s.note.empty()) out += "  note: " + s.note + "\n";
    for (const std::string& sql : s.sql) {
      out += sql.starts_with("--") ? "  " + sql + "\n" : "  " + sql + ";\n";
    }
    out += "\n";
  }
  return out;
}

std::string OfflineLockForecast(const TableFacts& t, double mbps) {
  uint64_t heap = t.kind == 'i' ? t.storage.heap_size
                                : t.storage.heap_size + t.storage.toast_size;
  uint64_t bytes = heap, largest = heap;
  for (const IndexFacts& i : t.indexes) {
    if (t.kind != 'i') bytes += i.size;
    largest = std::max(largest, i.size);
  }
  return fmt::format(
      "each statement holds ACCESS EXCLUSIVE on the table while it copies: "
      "{} in all, the longest about {:.1f} s at {:.0f} MB/s",
      HumanSize(static_cast<double>(bytes)), LockSeconds(largest, mbps), mbps);
}

}  // namespace pglayout::migrator
