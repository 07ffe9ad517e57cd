#include "planner/bound.h"

// find_flow_cost.hpp is not self-contained in Boost 1.74: it uses
// bgl_named_params and detail::edge_weight_value without including them, so
// it must come after the SSP header, which does (before it, g++ fails with
// "'edge_weight_value' in namespace 'boost::detail' does not name a
// template type"). The order here is deliberate.
// clang-format off
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/successive_shortest_path_nonnegative_weights.hpp>
#include <boost/graph/find_flow_cost.hpp>
// clang-format on

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace pglayout::planner {
namespace {

// Segments per volume: enough that the PWL cost is within a few percent of
// the curve below the knee, few enough that SSP stays instant.
constexpr int kSegments = 64;
constexpr double kFlowScale = 10;    // flow units per read-equivalent IOPS
constexpr double kCostScale = 1000;  // cost units per microsecond

using Traits =
    boost::adjacency_list_traits<boost::vecS, boost::vecS, boost::directedS>;
using Graph = boost::adjacency_list<
    boost::vecS, boost::vecS, boost::directedS, boost::no_property,
    boost::property<
        boost::edge_capacity_t, int64_t,
        boost::property<
            boost::edge_residual_capacity_t, int64_t,
            boost::property<boost::edge_reverse_t, Traits::edge_descriptor,
                            boost::property<boost::edge_weight_t, int64_t>>>>>;
using Vertex = Graph::vertex_descriptor;

// Adds u->v with its zero-capacity, negated-cost twin (SSP's precondition).
void AddArc(Graph* g, Vertex u, Vertex v, int64_t capacity, int64_t cost) {
  auto forward = boost::add_edge(u, v, *g).first;
  auto backward = boost::add_edge(v, u, *g).first;
  boost::put(boost::edge_capacity, *g, forward, capacity);
  boost::put(boost::edge_capacity, *g, backward, 0);
  boost::put(boost::edge_weight, *g, forward, cost);
  boost::put(boost::edge_weight, *g, backward, -cost);
  boost::put(boost::edge_reverse, *g, forward, backward);
  boost::put(boost::edge_reverse, *g, backward, forward);
}

// Read-equivalents per write: the most favourable ratio of any volume.
double WriteWeight(const std::vector<BoundVolume>& volumes) {
  double best = 1e300;
  for (const BoundVolume& v : volumes) {
    best = std::min(best, v.model->read_capacity() / v.model->write_capacity());
  }
  return volumes.empty() ? 1 : best;
}

// Total latency (us x IOPS) of |x| read-equivalent IOPS on |v|.
double TotalLatency(const BoundVolume& v, double x) {
  const double u = x / v.model->read_capacity() + v.base_utilization;
  return x * v.model->ReadLatencyUs(u);
}

// Marginal costs of |v|'s segments, each at most the true marginal cost
// anywhere in its segment and non-decreasing.
std::vector<double> MarginalCosts(const BoundVolume& v, double segment) {
  std::vector<double> cost(kSegments);
  const double delta = segment * 1e-3;
  for (int k = 0; k < kSegments; ++k) {
    const double x = k * segment;
    cost[k] = (TotalLatency(v, x + delta) - TotalLatency(v, x)) / delta;
  }
  for (int k = kSegments - 2; k >= 0; --k) {
    cost[k] = std::min(cost[k], cost[k + 1]);
  }
  return cost;
}

// An arc's cost in integer units. A volume too slow to model (a read rate
// near 0 that the reader let through) gives an infinite or NaN marginal
// cost, and llround of that is negative: SSP would throw negative_edge.
// Such costs are capped at kMaxArcCost: the volume is never worth using.
constexpr double kMaxArcCost = 1e15;
int64_t ArcCost(double marginal_us) {
  const double c = marginal_us * kCostScale;
  if (!(c >= 0)) return c < 0 ? 0 : static_cast<int64_t>(kMaxArcCost);
  return std::llround(std::min(c, kMaxArcCost));
}

}  // namespace

Bound ComputeBound(double read_iops, double write_iops,
                   const std::vector<BoundVolume>& volumes) {
  Bound bound;
  const double demand = read_iops + write_iops * WriteWeight(volumes);
  double capacity = 0, base = 0;
  for (const BoundVolume& v : volumes) {
    capacity += v.model->read_capacity();
    base += v.base_utilization * v.model->read_capacity();
  }
  bound.max_utilization = capacity > 0 ? (demand + base) / capacity : 0;
  if (demand <= 0 || volumes.empty()) return bound;

  Graph g;
  const Vertex source = boost::add_vertex(g);
  const Vertex hub = boost::add_vertex(g);
  const Vertex sink = boost::add_vertex(g);
  // Capped so that the cast stays defined: 1e17 flow units is 1e16 IOPS.
  const auto supply =
      static_cast<int64_t>(std::min(std::ceil(demand * kFlowScale), 1e17));
  AddArc(&g, source, hub, supply, 0);
  for (const BoundVolume& v : volumes) {
    const double room = std::max(0.0, kMaxUtilization - v.base_utilization) *
                        v.model->read_capacity();
    if (room <= 0) continue;
    const double segment = room / kSegments;
    const Vertex node = boost::add_vertex(g);
    for (double c : MarginalCosts(v, segment)) {
      AddArc(&g, hub, node,
             std::max<int64_t>(
                 1, std::llround(std::min(segment * kFlowScale, 1e17))),
             ArcCost(c));
    }
    AddArc(&g, node, sink, supply, 0);
  }
  boost::successive_shortest_path_nonnegative_weights(g, source, sink);
  auto capacity_map = boost::get(boost::edge_capacity, g);
  auto residual = boost::get(boost::edge_residual_capacity, g);
  int64_t carried = 0;
  for (auto [e, end] = boost::out_edges(source, g); e != end; ++e) {
    carried += capacity_map[*e] - residual[*e];
  }
  bound.feasible = carried >= supply;
  const double cost = static_cast<double>(boost::find_flow_cost(g));
  bound.mean_latency_us = cost / kCostScale / static_cast<double>(carried);
  return bound;
}

double MeanLatencyUs(const std::vector<BoundVolume>& volumes,
                     const std::vector<double>& reads,
                     const std::vector<double>& writes,
                     const std::vector<double>& utilization) {
  const double weight = WriteWeight(volumes);
  double total = 0, io = 0;
  for (size_t i = 0; i < volumes.size(); ++i) {
    const double e = reads[i] + writes[i] * weight;
    total += e * volumes[i].model->ReadLatencyUs(utilization[i]);
    io += e;
  }
  return io > 0 ? total / io : 0;
}

}  // namespace pglayout::planner
