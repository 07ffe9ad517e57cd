// Remedies for a relation too hot for any one volume: hash partitioning
// across tablespaces, or a stripe (RAID0) of several volumes.
//
// Hash partitioning (k partitions, one per tablespace) spreads one table's
// I/O evenly by the hash of its key. It can be done online on a live server
// (pglayout migrate copies with change capture), but PostgreSQL puts
// conditions on it; CheckHashPartitioning reads them from the workload's
// facts. A stripe makes k volumes one device: every object on it benefits
// and nothing about the schema changes, but it is built from empty volumes
// (mdadm/LVM destroy what is on them), and losing one member loses all.

#ifndef PGLAYOUT_PLANNER_REMEDY_H_
#define PGLAYOUT_PLANNER_REMEDY_H_

#include <string>
#include <vector>

#include "common/hash_rule.h"
#include "common/model.h"

namespace pglayout::planner {

// The server version assumed when the workload does not carry
// server_version_num (a new build): the newest release pglayout supports.
inline constexpr int kAssumedServerVersion = 180000;

struct PartitionCheck {
  std::vector<std::string> key;       // the hash key columns
  std::vector<std::string> blockers;  // why it cannot be done; empty = can
  std::vector<std::string> cautions;  // what migrate must take care of
  bool feasible() const { return blockers.empty(); }
};

// The facts of |table| for the rule both the planner and migrate's
// preflight apply (common/hash_rule.h); a file written before observe
// recorded them gives the keys it has, unnamed, and lists the rest as
// unknown. |server_version_num| 0: kAssumedServerVersion.
HashRuleFacts RuleFacts(const Relation& table, int server_version_num);

// Why |table| of a live workload |w| cannot be judged at all: observe
// read none of its facts (it reads those of its --facts hottest tables
// only and the persistence of every table), or "" when it did, or when
// |w| did not come from a live server.
std::string FactsNotReadReason(const Relation& table, const Workload& w);

// Judges hash partitioning of |table| on |key| (empty: the primary key) for
// a server of |server_version_num|: the shared rule's CheckHashConversion
// and CheckOnlineSwap (the same reasons as the preflight's), and
//  - not already partitioned, not a materialized view, not temporary or
//    unlogged (migrate's online copy would not survive a crash);
//  - facts an older workload.toml lacks are named in a caution;
//  - incoming foreign keys, triggers, identity columns, row security,
//    views and replica identity are cautions: migrate re-creates them at
//    the swap.
PartitionCheck CheckHashPartitioning(const Relation& table,
                                     const std::vector<std::string>& key,
                                     int server_version_num);

// Why no partition of |root| can be detached and attached again online
// for the foreign keys that reference it, judged by the shared rule
// (CheckParentReferencers), or "": a key of a plain table is dropped and
// added back around the swap; a partitioned referencer before 18, or the
// root's key to itself, is not; a workload.toml that does not say which
// referencers are partitioned gets no guess.
std::string ParentReferencersReason(const Relation& root, int server_version);

// Judges splitting hash partition |leaf| of |parent| (PartitionParent();
// null when workload.toml does not hold it) into partitions of its own by
// the parent's key (docs/online-migration.md#splitting-a-hash-partition):
// the parent must be partitioned by HASH on plain columns
// (Relation::partition_key), the keys that reference the parent or |root|
// (the tree's root, Relation::partition_of; may be |parent| or null) must
// be ones the swap can drop and add back (ParentReferencersReason), no
// identity column, and the shared rule as for a conversion, less the
// foreign keys it has from either. |key| is the parent's, whatever was
// asked.
inline bool IsLeafPartition(const Relation& r) {
  return r.partitioned && r.kind != RelationKind::kPartitioned;
}
PartitionCheck CheckHashSplit(const Relation& leaf, const Relation* parent,
                              const Relation* root, int server_version_num);
// The first ParentReferencersReason() of |parent| and |root| (either may be
// null, or the same), or "".
std::string AncestorsReferencersReason(const Relation* parent,
                                       const Relation* root,
                                       int server_version);

// The key rules of the above alone (a key is needed; every unique key, the
// primary key among them, must contain every key column): what hash
// partitioning and a Citus distribution column (citus_plan.h) share.
PartitionCheck CheckHashKey(const Relation& table,
                            const std::vector<std::string>& key);

// The stripe chunk pglayout proposes: 512 KiB, mdadm's default and the
// chunk of the NVMe array of docs/source-scenarios.md#striped-nvme-backup
// (docs/device-model.md#striping); larger than PostgreSQL's
// largest combined read (io_combine_limit <= 1 MB spans at most two
// members), small enough that an 8 KiB random read touches one member.
inline constexpr uint64_t kStripeChunk = 512 * 1024;
// The chunk of a stripe for pg_wal: WAL is written sequentially in flushes
// of 8 KiB to a few MiB (group commit, wal_buffers up to 16 MiB); with 64
// KiB chunks a flush of k x 64 KiB keeps every member busy, where 512 KiB
// would leave most flushes on one member. LVM's and the Red Hat guide's
// common stripe size (-I64).
inline constexpr uint64_t kWalStripeChunk = 64 * 1024;

}  // namespace pglayout::planner

#endif  // PGLAYOUT_PLANNER_REMEDY_H_
