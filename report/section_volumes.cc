// The volumes section: per volume, its key figures and measured curves,
// with the knee and the plan's operating point marked.

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "common/stripe_read.h"
#include "common/units.h"
#include "report/chart.h"
#include "report/curves.h"
#include "report/format.h"
#include "report/sections.h"

namespace pglayout::report::internal {
namespace {

std::string TopologyText(const Volume& v) {
  if (!v.topology) {
    if (v.members > 1) {
      return fmt::format("{} members, chunk {}", v.members, Bytes(v.chunk));
    }
    return "";
  }
  const Topology& t = *v.topology;
  std::string layout = !t.raid_level.empty() ? t.raid_level : t.dm_target;
  std::string text = t.device.empty() ? "device" : t.device;
  if (!layout.empty()) text += ": " + layout;
  if (!t.members.empty()) {
    text += fmt::format(" over {} members ({})", t.members.size(),
                        Join(t.members, ", "));
  }
  if (t.chunk > 0) text += ", chunk " + Bytes(static_cast<double>(t.chunk));
  if (!t.filesystem.empty()) text += ", " + t.filesystem;
  if (!t.model.empty()) text += ", " + t.model;
  if (t.rotational) text += ", rotational";
  return text;
}

std::string PairText(const std::string& a_name, double a,
                     const std::string& b_name, double b,
                     std::string (*format)(double)) {
  std::vector<std::string> parts;
  if (a > 0) parts.push_back(a_name + " " + format(a));
  if (b > 0) parts.push_back(b_name + " " + format(b));
  return Join(parts, " · ");
}

std::string StripeText(const Volume& v) {
  uint64_t width = FullStripe(v).width;
  if (width == 0) return "";
  // A non-zero width means a chunk is known, on the volume or its topology.
  uint64_t chunk = v.chunk != 0 ? v.chunk : v.topology->chunk;
  return fmt::format("{} ({} × {} chunk)", Bytes(static_cast<double>(width)),
                     width / chunk, Bytes(static_cast<double>(chunk)));
}

// What the plan puts on volume |name|: WAL, tablespaces.
std::vector<std::string> RolesOf(const std::string& name, const Plan& plan) {
  std::vector<std::string> roles;
  if (plan.wal_volume == name) roles.push_back("WAL");
  for (const TablespaceSpec& t : plan.tablespaces) {
    if (t.volume == name) roles.push_back("tablespace " + t.name);
  }
  return roles;
}

// The volume's own roles, then those of each stripe it is a member of
// (the plan places the WAL or a tablespace on the stripe, not on it).
std::string PlannedRole(const Volume& v, const Plan* plan) {
  if (plan == nullptr) return "";
  std::vector<std::string> roles = RolesOf(v.name, *plan);
  for (const Stripe& s : plan->stripes) {
    if (std::find(s.members.begin(), s.members.end(), v.name) ==
        s.members.end()) {
      continue;
    }
    std::vector<std::string> via = RolesOf(s.name, *plan);
    std::string what = via.empty() ? "" : Join(via, ", ") + " on ";
    roles.push_back(what + "stripe " + s.name);
  }
  return Join(roles, ", ");
}

void RenderVolumeFacts(const Volume& v, const Plan* plan, Markup* out) {
  std::string capacity = Bytes(static_cast<double>(v.capacity));
  if (v.free_bytes > 0) {
    capacity += " (" + Bytes(static_cast<double>(v.free_bytes)) + " free)";
  }
  RenderFacts(
      {{"Capacity", capacity},
       {"Path", v.path},
       {"Topology", TopologyText(v)},
       {"Random 8 KiB reads at saturation",
        v.read_iops > 0 ? Iops(v.read_iops) : ""},
       {"Random 8 KiB writes at saturation",
        v.write_iops > 0 ? Iops(v.write_iops) : ""},
       {"Sequential",
        PairText("read", v.read_mbps, "write", v.write_mbps, Mbps)},
       {"Read latency at depth 1", PairText("p50", v.read_latency_us, "p99",
                                            v.read_latency_p99_us, Latency)},
       {"WAL commit latency (8 KiB write + fdatasync)",
        PairText("p50", v.sync_write_latency_us, "p99",
                 v.sync_write_latency_p99_us, Latency)},
       {"Full stripe", StripeText(v)},
       {"Stripe-wide read size",
        v.stripe_read_size > 0
            ? Bytes(static_cast<double>(v.stripe_read_size)) +
                  " per read (90% of the plateau's MB/s)"
            : ""},
       {"Readers to saturate", v.readers_to_saturate > 0
                                   ? fmt::format("{}", v.readers_to_saturate)
                                   : ""},
       {"Shares a device with", Join(v.shares_device_with, ", ")},
       {"In the plan", PlannedRole(v, plan)}},
      out);
}

const ForecastEntry* FindForecast(const Plan* plan, const std::string& name) {
  if (plan == nullptr) return nullptr;
  for (const ForecastEntry& f : plan->forecast) {
    if (f.volume == name) return &f;
  }
  return nullptr;
}

// The load before and after the plan, placed at utilisation x saturation
// IOPS; the plan's predicted latency, or the curve's when it gave none.
void AddOperatingPoints(const Volume& v, const ForecastEntry& f,
                        LineChartSpec* spec) {
  double saturation = SaturationIops(v);
  auto point = [&](double utilization, double latency, const char* when,
                   bool filled) {
    double iops = utilization * saturation;
    if (latency <= 0) latency = MedianLatencyAt(v, iops).value_or(0);
    spec->highlights.push_back(
        {iops, latency,
         fmt::format("{} {} · {}", when, Percent(utilization),
                     Latency(latency)),
         filled});
  };
  if (f.utilization_before > 0) {
    point(f.utilization_before, f.read_latency_us_before, "today", false);
  }
  point(f.utilization_after, f.read_latency_us_after, "planned", true);
}

void RenderLatencyCurve(const Volume& v, const std::string& id,
                        const Plan* plan, Markup* out) {
  LineChartSpec spec;
  spec.id = id + "-latency";
  spec.title = v.name + ": read latency against IOPS";
  spec.x_label = "IOPS (8 KiB random reads)";
  spec.y_label = "latency per read";
  spec.x_format = [](double x) { return Compact(x); };
  spec.y_format = [](double y) { return Latency(y); };
  LineSeries p50{"p50 (median)", palette::kBlue, Marker::kCircle, false, {}};
  LineSeries p99{"p99", palette::kVermillion, Marker::kTriangle, true, {}};
  std::vector<Row> rows;
  for (const RandomReadPoint& p : v.randread) {
    p50.points.push_back(
        {p.iops, p.p50_us, fmt::format("QD{}", p.queue_depth)});
    if (p.p99_us > 0) p99.points.push_back({p.iops, p.p99_us, ""});
    rows.push_back({fmt::format("{}", p.queue_depth), Iops(p.iops),
                    Latency(p.p50_us), p.p99_us > 0 ? Latency(p.p99_us) : "—",
                    p.cpu_us_per_io > 0 ? Latency(p.cpu_us_per_io) : "—"});
  }
  spec.series.push_back(std::move(p50));
  if (!p99.points.empty()) spec.series.push_back(std::move(p99));
  std::string knee_text;
  if (std::optional<size_t> knee = KneeIndex(v)) {
    const RandomReadPoint& k = v.randread[*knee];
    knee_text = fmt::format(" The knee is at queue depth {} ({}, median {}).",
                            k.queue_depth, Iops(k.iops), Latency(k.p50_us));
    spec.rules.push_back(
        {k.iops, fmt::format("knee: QD{} · {}", k.queue_depth, Iops(k.iops)),
         false});
  }
  if (const ForecastEntry* f = FindForecast(plan, v.name)) {
    AddOperatingPoints(v, *f, &spec);
  }
  spec.description = fmt::format(
      "Median and 99th-percentile latency of 8 KiB random reads against the "
      "IOPS reached at each queue depth (QD).{}{}",
      knee_text,
      spec.highlights.empty()
          ? ""
          : " Diamonds mark the load today (hollow) and as planned (filled).");
  OpenFigure("Read latency against load (depth 1 to " +
                 fmt::format("{})", v.randread.back().queue_depth),
             out);
  RenderLineChart(spec, out);
  RenderFigureData({{"queue depth", true},
                    {"IOPS", true},
                    {"p50", true},
                    {"p99", true},
                    {"CPU per I/O", true}},
                   rows, out);
  out->Close();
}

void RenderSequentialCurve(const Volume& v, const std::string& id,
                           Markup* out) {
  LineChartSpec spec;
  spec.id = id + "-seq";
  spec.title = v.name + ": sequential read MB/s against request size";
  spec.x_label = "request size (one direct read)";
  spec.y_label = "MB/s";
  spec.x_log2 = true;
  spec.x_format = [](double x) { return Bytes(x); };
  spec.y_format = [](double y) { return Mbps(y); };
  // One series per queue depth, each with its own marker and colour.
  static constexpr const char* kColors[] = {palette::kBlue, palette::kOrange,
                                            palette::kGreen, palette::kPurple};
  static constexpr Marker kMarkers[] = {Marker::kCircle, Marker::kSquare,
                                        Marker::kTriangle, Marker::kDiamond};
  std::map<int, std::vector<ChartPoint>> by_depth;
  std::vector<Row> rows;
  for (const SequentialReadPoint& p : v.seqread) {
    by_depth[p.queue_depth].push_back(
        {static_cast<double>(p.request_size), p.mbps, ""});
    rows.push_back({Bytes(static_cast<double>(p.request_size)),
                    fmt::format("{}", p.queue_depth), Mbps(p.mbps)});
  }
  size_t i = 0;
  for (auto& [depth, points] : by_depth) {
    spec.series.push_back({CountOf(depth, "reader", "readers"), kColors[i % 4],
                           kMarkers[i % 4], i >= 4, std::move(points)});
    ++i;
  }
  std::string marks;
  if (uint64_t width = FullStripe(v).width; width > 0) {
    spec.rules.push_back({static_cast<double>(width),
                          "full stripe " + Bytes(static_cast<double>(width)),
                          false});
    marks += " The dashed line marks one full stripe.";
  }
  if (v.stripe_read_size > 0 && v.stripe_read_size != FullStripe(v).width) {
    spec.rules.push_back({static_cast<double>(v.stripe_read_size),
                          "90% of the plateau at " +
                              Bytes(static_cast<double>(v.stripe_read_size)),
                          true});
    marks +=
        " The dotted line marks the smallest read reaching 90% of the "
        "plateau (the median of the three largest reads).";
  }
  spec.description =
      "Sequential direct-read bandwidth against the size of each read." + marks;
  OpenFigure("Sequential reads against request size", out);
  RenderLineChart(spec, out);
  RenderFigureData({{"request size", true}, {"readers", true}, {"MB/s", true}},
                   rows, out);
  out->Close();
}

void RenderWriteCurve(const Volume& v, const std::string& id, Markup* out) {
  LineChartSpec spec;
  spec.id = id + "-write";
  spec.title = v.name + ": durable write latency against IOPS";
  spec.description =
      "Median and 99th-percentile latency of 8 KiB writes each followed by "
      "fdatasync, as a WAL commit does, against the IOPS reached.";
  spec.x_label = "IOPS (8 KiB writes + fdatasync)";
  spec.y_label = "latency per write";
  spec.x_format = [](double x) { return Compact(x); };
  spec.y_format = [](double y) { return Latency(y); };
  LineSeries p50{"p50 (median)", palette::kBlue, Marker::kCircle, false, {}};
  LineSeries p99{"p99", palette::kVermillion, Marker::kTriangle, true, {}};
  std::vector<Row> rows;
  for (const RandomWritePoint& p : v.randwrite) {
    p50.points.push_back(
        {p.iops, p.p50_us, fmt::format("QD{}", p.queue_depth)});
    if (p.p99_us > 0) p99.points.push_back({p.iops, p.p99_us, ""});
    rows.push_back({fmt::format("{}", p.queue_depth), Iops(p.iops),
                    Latency(p.p50_us), p.p99_us > 0 ? Latency(p.p99_us) : "—"});
  }
  spec.series.push_back(std::move(p50));
  if (!p99.points.empty()) spec.series.push_back(std::move(p99));
  OpenFigure("Durable writes (WAL commit) against load", out);
  RenderLineChart(spec, out);
  RenderFigureData(
      {{"queue depth", true}, {"IOPS", true}, {"p50", true}, {"p99", true}},
      rows, out);
  out->Close();
}

bool HasCurves(const Volume& v) {
  return !v.randread.empty() || !v.seqread.empty() || !v.randwrite.empty();
}

void RenderVolume(const Volume& v, size_t index, const Plan* plan,
                  Markup* out) {
  const std::string id = fmt::format("volume-{}", index + 1);
  out->Open("article", {{"class", "volume"}, {"id", id}});
  out->Open("h3");
  out->Text(v.name);
  if (!v.kind.empty()) out->Element("span", {{"class", "tag"}}, v.kind);
  out->Close();
  RenderVolumeFacts(v, plan, out);
  out->Open("div", {{"class", "figures"}});
  if (!v.randread.empty()) RenderLatencyCurve(v, id, plan, out);
  if (!v.seqread.empty()) RenderSequentialCurve(v, id, out);
  if (!v.randwrite.empty()) RenderWriteCurve(v, id, out);
  out->Close();
  out->Close();
}

// Every volume side by side, measured or declared: the table a capacity
// planner compares first.
void RenderOverview(const VolumeSet& set, const Plan* plan, Markup* out) {
  std::vector<Row> rows;
  for (const Volume& v : set.volumes) {
    uint64_t stripe = FullStripe(v).width;
    rows.push_back(
        {v.name, OrDash(v.kind), Bytes(static_cast<double>(v.capacity)),
         v.read_iops > 0 ? Iops(v.read_iops) : "—",
         v.read_mbps > 0 ? Mbps(v.read_mbps) : "—",
         v.read_latency_us > 0 ? Latency(v.read_latency_us) : "—",
         v.sync_write_latency_us > 0 ? Latency(v.sync_write_latency_us) : "—",
         stripe > 0 ? Bytes(static_cast<double>(stripe)) : "—",
         OrDash(PlannedRole(v, plan))});
  }
  RenderTable("Volumes at a glance",
              {{"volume", false},
               {"kind", false},
               {"capacity", true},
               {"random reads", true},
               {"sequential read", true},
               {"read latency p50", true},
               {"commit latency p50", true},
               {"full stripe", true},
               {"in the plan", false}},
              rows, out);
}

std::string HostText(const Host& h) {
  std::vector<std::string> parts;
  if (!h.instance_type.empty()) parts.push_back(h.instance_type);
  if (h.vcpus > 0) parts.push_back(fmt::format("{} vCPU", h.vcpus));
  if (h.memory > 0)
    parts.push_back(Bytes(static_cast<double>(h.memory)) + " RAM");
  if (h.bandwidth_cap_mbps > 0) {
    parts.push_back("storage cap " + Mbps(h.bandwidth_cap_mbps));
  }
  if (h.iops_cap > 0) parts.push_back("IOPS cap " + Iops(h.iops_cap));
  return Join(parts, " · ");
}

}  // namespace

void RenderVolumesSection(const ReportInput& input, Markup* out) {
  const VolumeSet& set = *input.volumes;
  OpenSection("volumes", "Volumes", input.volumes_source, out);
  if (std::string host = HostText(set.host); !host.empty()) {
    out->Element("p", "Host: " + host);
  }
  RenderOverview(set, input.plan, out);
  std::vector<std::string> declared;
  for (size_t i = 0; i < set.volumes.size(); ++i) {
    if (HasCurves(set.volumes[i])) {
      RenderVolume(set.volumes[i], i, input.plan, out);
    } else {
      declared.push_back(set.volumes[i].name);
    }
  }
  if (!declared.empty()) {
    out->Element("p", {{"class", "note"}},
                 fmt::format("Declared figures only, no measured curves: {}. "
                             "`pglayout probe` measures them.",
                             Join(declared, ", ")));
  }
  out->Close();
}

}  // namespace pglayout::report::internal
