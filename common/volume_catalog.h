// The volume catalog of `pglayout plan --catalog`: cloud block-volume types
// with their limits, how performance scales with size, and monthly prices,
// in the units the provider quotes. Read from TOML by ReadCatalogFile
// (common/files.h; format: examples/catalog/README.md), which refuses a
// figure that is neither sourced nor listed as assumed.
// Why: docs/planning.md#the-catalogs-figures.

#ifndef PGLAYOUT_COMMON_VOLUME_CATALOG_H_
#define PGLAYOUT_COMMON_VOLUME_CATALOG_H_

#include <cstdint>
#include <string>
#include <vector>

namespace pglayout {

// Where some figures of a volume type come from.
struct CatalogSource {
  std::vector<std::string> figures;  // keys of the type it covers
  std::string ref;                   // URL or document name
  std::string date;                  // YYYY-MM-DD: read on, or page date
  std::string note;                  // optional: quote, region, caveat
};

// One price step for provisioned IOPS: IOPS beyond the previous tier's
// `up_to` and up to this one's cost `price` each per month. The last tier
// has up_to = 0 (no limit). Tiers count the IOPS paid for, i.e. above the
// included ones.
struct PriceTier {
  double up_to = 0;
  double price = 0;
};

struct VolumeType {
  std::string name;         // unique: "aws-gp3"
  std::string provider;     // a chosen set never mixes providers: "aws"
  std::string kind;         // Volume::kind of planned volumes: "aws-ebs"
  std::string description;  // for people

  uint64_t min_size = 0;            // bytes
  uint64_t max_size = 0;            // bytes
  uint64_t size_step = 1ull << 30;  // sizes are multiples of this

  // IOPS included with a size: min(iops_max, iops_base + iops_per_gib x
  // GiB). Provisioning (iops_provisioned) buys more, up to iops_max and up
  // to iops_max_per_gib x GiB (0 = no ratio limit).
  double iops_base = 0;
  double iops_per_gib = 0;
  double iops_max = 0;
  double iops_max_per_gib = 0;
  bool iops_provisioned = false;

  // Throughput included, in throughput_unit: min(throughput_max,
  // throughput_base + throughput_per_gib x GiB + throughput_per_iops x
  // IOPS). Provisioning (throughput_provisioned) buys more, up to
  // throughput_max and up to throughput_max_per_iops x IOPS (0 = no
  // ratio limit).
  std::string throughput_unit = "MB/s";  // "MB/s" or "MiB/s"
  double throughput_base = 0;
  double throughput_per_gib = 0;
  double throughput_per_iops = 0;
  double throughput_max = 0;
  double throughput_max_per_iops = 0;
  bool throughput_provisioned = false;

  // Unloaded latencies, microseconds (8 KiB read; 8 KiB write + fdatasync).
  double read_latency_us = 0;
  double sync_write_latency_us = 0;

  // Monthly prices: per GiB of size, per IOPS beyond the included (tiers),
  // per throughput unit beyond the included.
  double price_per_gib = 0;
  std::vector<PriceTier> iops_price;
  double price_per_throughput = 0;

  std::vector<CatalogSource> sources;
  std::vector<std::string> assumed;  // figures nobody could source

  // Bytes per second of one throughput unit (1e6 or 1048576).
  double ThroughputUnitBytes() const;
  // |value| in this type's throughput unit, in MB/s of 10^6 bytes: the one
  // unit pglayout prints rates in.
  double Mbps(double value) const {
    return value * ThroughputUnitBytes() / 1e6;
  }
  // True when |figure| is listed in |assumed|.
  bool IsAssumed(const std::string& figure) const;
};

struct Catalog {
  std::string currency = "USD";
  std::string note;  // e.g. the regions the prices are for
  std::vector<VolumeType> types;
};

}  // namespace pglayout

#endif  // PGLAYOUT_COMMON_VOLUME_CATALOG_H_
