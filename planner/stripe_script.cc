#include "planner/stripe_script.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <vector>

#include "planner/demand.h"

namespace pglayout::planner {
namespace {

std::string DeviceOf(const Volume* v, const std::string& name) {
  if (v != nullptr && v->topology && !v->topology->disk.empty()) {
    return "/dev/" + v->topology->disk;
  }
  if (v != nullptr && v->topology && !v->topology->device.empty()) {
    return "/dev/" + v->topology->device;
  }
  return "/dev/DISK_OF_" + name;  // a placeholder the person replaces
}

// The stripe's tablespace lives in a directory under its mount point.
std::string MountPoint(const Plan& plan, const Stripe& s) {
  for (const TablespaceSpec& ts : plan.tablespaces) {
    if (ts.volume != s.name) continue;
    const size_t slash = ts.path.find_last_of('/');
    if (slash != std::string::npos && slash > 0)
      return ts.path.substr(0, slash);
  }
  return "/mnt/" + s.name;
}

void MdadmCommands(const Stripe& s, const std::vector<std::string>& devices,
                   const std::string& mount, std::string* out) {
  const uint64_t chunk_kib = s.chunk / 1024;
  *out += fmt::format(
      "# mdadm --create /dev/md/{0} --level=0 --raid-devices={1} "
      "--chunk={2}K {3}\n"
      "# mkfs.xfs -d su={2}k,sw={1} /dev/md/{0}\n"
      "# mdadm --detail --scan >> /etc/mdadm/mdadm.conf && update-initramfs "
      "-u\n"
      "# mkdir -p {4} && mount -o noatime /dev/md/{0} {4}\n"
      "# echo \"/dev/md/{0} {5} xfs noatime,nofail 0 0\" >> /etc/fstab\n",
      s.name, devices.size(), chunk_kib, fmt::join(devices, " "),
      ShellQuote(mount), mount);
}

void LvmCommands(const Stripe& s, const std::vector<std::string>& devices,
                 const std::string& mount, std::string* out) {
  const uint64_t chunk_kib = s.chunk / 1024;
  *out += fmt::format(
      "# pvcreate {3}\n"
      "# vgcreate {0}_vg {3}\n"
      "# lvcreate --type striped --stripes {1} --stripesize {2}k --extents "
      "100%FREE --name {0} {0}_vg\n"
      "# mkfs.xfs /dev/{0}_vg/{0}    # xfs reads the stripe geometry from "
      "LVM\n"
      "# mkdir -p {4} && mount -o noatime /dev/{0}_vg/{0} {4}\n"
      "# echo \"/dev/{0}_vg/{0} {5} xfs noatime,nofail 0 0\" >> /etc/fstab\n",
      s.name, devices.size(), chunk_kib, fmt::join(devices, " "),
      ShellQuote(mount), mount);
}

void StripeSection(const Plan& plan, const VolumeSet& volumes, const Stripe& s,
                   std::string* out) {
  std::vector<std::string> devices;
  for (const std::string& m : s.members) {
    devices.push_back(DeviceOf(volumes.Find(m), m));
  }
  const std::string mount = MountPoint(plan, s);
  *out += fmt::format(
      "\n# --- stripe {}: RAID0 of {} ({}). DESTROYS everything on these "
      "devices;\n# check each device name first (lsblk -o "
      "NAME,SIZE,SERIAL,MOUNTPOINT).\n# {}\n",
      s.name, fmt::join(s.members, ", "), s.tool, s.reason);
  if (s.tool == "mdadm") {
    MdadmCommands(s, devices, mount, out);
    *out += "# (or with LVM:)\n";
    LvmCommands(s, devices, mount, out);
  } else {
    LvmCommands(s, devices, mount, out);
    *out += "# (or with mdadm:)\n";
    MdadmCommands(s, devices, mount, out);
  }
}

void TablespaceSection(const Plan& plan, std::string* out) {
  if (plan.tablespaces.empty()) return;
  *out +=
      "\n# --- tablespace directories: must exist, be empty and belong "
      "to postgres\n";
  for (const TablespaceSpec& ts : plan.tablespaces) {
    *out += fmt::format(
        "# install -d -o postgres -g postgres -m 700 {}    # {} on {}\n",
        ShellQuote(ts.path), ts.name, ts.volume);
  }
}

const Stripe* FindStripe(const Plan& plan, const std::string& name) {
  for (const Stripe& s : plan.stripes) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

// Where pg_wal goes: the WAL volume's directory, or the mount point of the
// WAL's stripe (built above in the file); "" when unknown.
std::string WalDirectory(const Plan& plan, const VolumeSet& volumes) {
  if (const Stripe* s = FindStripe(plan, plan.wal_volume); s != nullptr) {
    return MountPoint(plan, *s);
  }
  const Volume* wal = volumes.Find(plan.wal_volume);
  return wal == nullptr ? "" : wal->path;
}

// The move the plan wrote out: from where pg_wal is now, needing a
// restart.
void WalMoveSection(const Plan& plan, std::string* out) {
  const WalMove& m = *plan.wal_move;
  *out += fmt::format(
      "\n# --- WAL: pg_wal moves from {} ({}) to {} ({}).\n"
      "# NEEDS A RESTART: the server is down between stop and start. "
      "pglayout migrate\n# never does this step.\n",
      m.from_path, m.from_volume.empty() ? "no declared volume" : m.from_volume,
      m.to_path, plan.wal_volume);
  for (const std::string& line : WalMoveCommands(m)) *out += "# " + line + "\n";
}

void WalSection(const Plan& plan, const VolumeSet& volumes,
                const std::string& data_directory, std::string* out) {
  if (plan.wal_move) return WalMoveSection(plan, out);
  if (!plan.wal_now.empty()) return;  // known, and where the plan wants it
  const std::string directory = WalDirectory(plan, volumes);
  if (directory.empty()) return;
  const DataLocation where{"data_directory", "", data_directory, std::nullopt};
  if (!data_directory.empty() &&
      VolumeOfLocation(volumes, where).volume == plan.wal_volume) {
    return;  // pg_wal is probably already on that volume
  }
  const std::string data =
      data_directory.empty() ? "$PGDATA" : ShellQuote(data_directory);
  const std::string target = ShellQuote(directory + "/pg_wal");
  *out += fmt::format(
      "\n# --- WAL on {} ({}). Skip if pg_wal is already a link "
      "there.\n"
      "# A new cluster: initdb --waldir={}\n"
      "# An existing one (a short outage):\n"
      "# pg_ctl stop -D {} -m fast\n"
      "# mv {}/pg_wal {} && ln -s {} {}/pg_wal\n"
      "# pg_ctl start -D {}\n",
      plan.wal_volume, plan.wal_reason, target, data, data, target, target,
      data, data);
}

}  // namespace

namespace {

// Every line but the shebang and "exit 0" is a comment, whatever text a
// hand-edited plan or volumes file carries (a newline in a reason must not
// turn into a command).
std::string CommentOut(const std::string& text) {
  std::string out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    const bool keep = line.empty() || line.starts_with('#') || line == "exit 0";
    out += (keep ? line : "# " + line) + "\n";
    start = end + 1;
  }
  return out;
}

}  // namespace

std::string StripeScript(const Plan& plan, const VolumeSet& volumes,
                         const std::string& data_directory) {
  std::string out =
      "#!/bin/sh\n"
      "# pglayout stripe.sh: commands for a person to review, adapt and run "
      "as root.\n"
      "# pglayout never runs them. Every command is commented out on "
      "purpose:\n"
      "# uncomment one at a time, after checking the device names.\n"
      "exit 0\n";
  for (const Stripe& s : plan.stripes) StripeSection(plan, volumes, s, &out);
  TablespaceSection(plan, &out);
  WalSection(plan, volumes, data_directory, &out);
  if (plan.stripes.empty() && plan.tablespaces.empty()) {
    out +=
        "\n# Nothing to prepare: this plan needs no stripe and no new "
        "tablespace.\n";
  }
  return CommentOut(out);
}

}  // namespace pglayout::planner
