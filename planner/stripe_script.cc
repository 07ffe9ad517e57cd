#include "planner/stripe_script.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <vector>

#include "planner/demand.h"
#include "planner/file_text.h"

namespace pglayout::planner {
namespace {

// Every line stripe.sh writes goes through Note() or Run(): a note starts
// with "##" so that uncommenting the commands ("# " at the start) leaves
// it a comment; a command's words are single-quoted (ShellQuote) wherever a
// name or a path goes, so uncommenting it runs that command and no other.

std::string Note(const std::string& text) {
  return text.empty() ? "##\n" : "## " + Visible(text) + "\n";
}

// A command, commented out, with an optional note after it. A value with a
// control character cannot sit in one shell line: the command is written
// as a note instead, visibly escaped, for the person to write by hand.
std::string Run(const std::string& command, const std::string& note = "") {
  if (HasControl(command)) {
    return Note(
        "not written: a name or path in this command holds a control "
        "character (shown escaped); rename it or write the command by "
        "hand: " +
        command);
  }
  return "# " + command + (note.empty() ? "" : "    ## " + Visible(note)) +
         "\n";
}

std::string Words(const std::vector<std::string>& words) {
  std::vector<std::string> quoted;
  for (const std::string& w : words) quoted.push_back(ShellQuote(w));
  return fmt::format("{}", fmt::join(quoted, " "));
}

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

// A field of /etc/fstab: fstab(5) reads "\040" for a space; every byte
// that would end or break the field (space, tab, a line break, any
// control character) and the backslash itself are written as \ooo.
std::string FstabField(const std::string& text) {
  std::string out;
  for (char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte <= 0x20 || byte == 0x7f || c == '\\') {
      out += fmt::format("\\{:03o}", byte);
    } else {
      out += c;
    }
  }
  return out;
}

// printf, not echo: dash's echo would read the \040 of the line itself.
std::string FstabCommand(const std::string& device, const std::string& mount) {
  return fmt::format(
      "printf '%s\\n' {} >> /etc/fstab",
      ShellQuote(fmt::format("{} {} xfs noatime,nofail 0 0", FstabField(device),
                             FstabField(mount))));
}

std::string MountCommands(const std::string& device, const std::string& mount) {
  return Run(fmt::format("mkdir -p {0} && mount -o noatime {1} {0}",
                         ShellQuote(mount), ShellQuote(device))) +
         Run(FstabCommand(device, mount));
}

void MdadmCommands(const Stripe& s, const std::vector<std::string>& devices,
                   const std::string& mount, std::string* out) {
  const uint64_t chunk_kib = s.chunk / 1024;
  const std::string md = "/dev/md/" + s.name;
  *out += Run(fmt::format(
      "mdadm --create {} --level=0 --raid-devices={} --chunk={}K {}",
      ShellQuote(md), devices.size(), chunk_kib, Words(devices)));
  *out += Run(fmt::format("mkfs.xfs -d su={}k,sw={} {}", chunk_kib,
                          devices.size(), ShellQuote(md)));
  *out +=
      Run("mdadm --detail --scan >> /etc/mdadm/mdadm.conf && update-initramfs "
          "-u");
  *out += MountCommands(md, mount);
}

void LvmCommands(const Stripe& s, const std::vector<std::string>& devices,
                 const std::string& mount, std::string* out) {
  const uint64_t chunk_kib = s.chunk / 1024;
  const std::string vg = s.name + "_vg";
  const std::string lv = "/dev/" + vg + "/" + s.name;
  *out += Run("pvcreate " + Words(devices));
  *out += Run(fmt::format("vgcreate {} {}", ShellQuote(vg), Words(devices)));
  *out += Run(fmt::format(
      "lvcreate --type striped --stripes {} --stripesize {}k --extents "
      "100%FREE --name {} {}",
      devices.size(), chunk_kib, ShellQuote(s.name), ShellQuote(vg)));
  *out += Run("mkfs.xfs " + ShellQuote(lv),
              "xfs reads the stripe geometry from LVM");
  *out += MountCommands(lv, mount);
}

void StripeSection(const Plan& plan, const VolumeSet& volumes, const Stripe& s,
                   std::string* out) {
  std::vector<std::string> devices;
  for (const std::string& m : s.members) {
    devices.push_back(DeviceOf(volumes.Find(m), m));
  }
  const std::string mount = MountPoint(plan, s);
  *out += "\n";
  *out += Note(fmt::format(
      "--- stripe {}: RAID0 of {} ({}). DESTROYS everything on these "
      "devices;",
      s.name, fmt::join(s.members, ", "), s.tool));
  *out += Note(
      "check each device name first (lsblk -o "
      "NAME,SIZE,SERIAL,MOUNTPOINT).");
  *out += Note(s.reason);
  if (s.tool == "mdadm") {
    MdadmCommands(s, devices, mount, out);
    *out += Note("(or with LVM:)");
    LvmCommands(s, devices, mount, out);
  } else {
    LvmCommands(s, devices, mount, out);
    *out += Note("(or with mdadm:)");
    MdadmCommands(s, devices, mount, out);
  }
}

void TablespaceSection(const Plan& plan, std::string* out) {
  if (plan.tablespaces.empty()) return;
  *out += "\n";
  *out += Note(
      "--- tablespace directories: must exist, be empty and belong to "
      "postgres");
  for (const TablespaceSpec& ts : plan.tablespaces) {
    *out +=
        Run("install -d -o postgres -g postgres -m 700 " + ShellQuote(ts.path),
            fmt::format("{} on {}", ts.name, ts.volume));
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
  *out += "\n";
  *out += Note(
      fmt::format("--- WAL: pg_wal moves from {} ({}) to {} ({}).", m.from_path,
                  m.from_volume.empty() ? "no declared volume" : m.from_volume,
                  m.to_path, plan.wal_volume));
  *out += Note(
      "NEEDS A RESTART: the server is down between stop and start. "
      "pglayout migrate");
  *out += Note("never does this step.");
  for (const std::string& line : WalMoveCommands(m)) *out += Run(line);
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
      data_directory.empty() ? "\"$PGDATA\"" : ShellQuote(data_directory);
  const std::string target = ShellQuote(directory + "/pg_wal");
  *out += "\n";
  *out += Note(
      fmt::format("--- WAL on {} ({}). Skip if pg_wal is already a link there.",
                  plan.wal_volume, plan.wal_reason));
  *out += Note("A new cluster: initdb --waldir=" + target);
  *out += Note("An existing one (a short outage):");
  *out += Run(fmt::format("pg_ctl stop -D {} -m fast", data));
  *out += Run(
      fmt::format("mv {0}/pg_wal {1} && ln -s {1} {0}/pg_wal", data, target));
  *out += Run(fmt::format("pg_ctl start -D {}", data));
}

// The last guard: a line that is neither a comment, empty, the shebang nor
// "exit 0" becomes a note (every line above is built as one already).
std::string CommentOut(const std::string& text) {
  std::string out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    const bool keep = line.empty() || line.starts_with('#') || line == "exit 0";
    out += (keep ? line : "## " + line) + "\n";
    start = end + 1;
  }
  return out;
}

}  // namespace

std::string StripeScript(const Plan& plan, const VolumeSet& volumes,
                         const std::string& data_directory) {
  std::string out =
      "#!/bin/sh\n"
      "## pglayout stripe.sh: commands for a person to review, adapt and "
      "run as root.\n"
      "## pglayout never runs them. Every command is commented out on "
      "purpose (\"# \"):\n"
      "## uncomment one at a time, after checking the device names. Lines "
      "starting\n"
      "## with \"##\" are notes.\n"
      "exit 0\n";
  for (const Stripe& s : plan.stripes) StripeSection(plan, volumes, s, &out);
  TablespaceSection(plan, &out);
  WalSection(plan, volumes, data_directory, &out);
  if (plan.stripes.empty() && plan.tablespaces.empty()) {
    out += "\n";
    out += Note(
        "Nothing to prepare: this plan needs no stripe and no new "
        "tablespace.");
  }
  return CommentOut(out);
}

}  // namespace pglayout::planner
