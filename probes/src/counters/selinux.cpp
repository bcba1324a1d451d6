// SPDX-License-Identifier: MIT
//
// SELinux's state, as node_exporter's selinux collector serves it:
//
//   kern.selinux.enabled       1 when SELinux is on (its file system, selinuxfs, has an enforce
//                              file: <sys>/fs/selinux/enforce), else 0: on every machine
//   kern.selinux.current_mode  <sys>/fs/selinux/enforce: 1 enforcing, 0 permissive
//   kern.selinux.config_mode   the mode the machine boots in, SELINUX= of /etc/selinux/config
//                              (under the rootfs): 1 enforcing, 0 permissive, -1 disabled
//
// The last two only where SELinux is on. Whether it is cannot change until a reboot (the kernel
// has not let it be turned off at run time since Linux 6.4, and before that only until a
// policy was loaded): it is looked up once (Reader::exists).

#include <unistd.h>

#include <fmt/format.h>

#include "emitter.hpp"
#include "opskit/text.hpp"

namespace opskit::counters {

namespace {

constexpr std::string_view k_modes[] = {"disabled", "permissive", "enforcing"}; // -1, 0, 1

} // namespace

namespace detail {

std::string_view render_selinux_config(std::string_view raw, std::string& out) {
  int mode = -1; // none given: disabled, as libselinux reads it
  for (std::string_view rest = raw; !rest.empty();) {
    std::string_view line = trim(next_line(rest));
    if (!line.starts_with("SELINUX="))
      continue;
    std::string_view value = trim(line.substr(8));
    for (int m = 0; m < 3; ++m)
      if (iequals(value, k_modes[m]))
        mode = m - 1;
  }
  out = fmt::format("config_mode {}\n", mode);
  return out;
}

} // namespace detail

void find_selinux(const Roots& roots, std::string_view prefix, std::vector<Field>& out) {
  if (!related(prefix, "kern.selinux"))
    return;
  std::string enforce = roots.sys + "/fs/selinux/enforce";
  Emitter flag(roots, enforce, k_one_value, prefix, out, Reader::exists);
  if (Info* info = flag.emit("kern.selinux.enabled", "kern.selinux.enabled", Kind::gauge, "", {}))
    info->description = "1 when SELinux is enabled, else 0";
  if (::access(enforce.c_str(), R_OK) != 0)
    return;
  Emitter mode(roots, enforce, k_one_value, prefix, out);
  if (Info* info =
          mode.emit("kern.selinux.current_mode", "kern.selinux.current_mode", Kind::gauge, "", {}))
    info->description = "SELinux's mode now: 1 enforcing, 0 permissive";
  std::string config = roots.rootfs + "/etc/selinux/config";
  if (::access(config.c_str(), R_OK) != 0)
    return;
  Emitter booted(roots, config, k_fixed_lines, prefix, out, Reader::selinux_config);
  if (Info* info = booted.emit("kern.selinux.config_mode", "kern.selinux.config_mode", Kind::gauge,
                               "", {"config_mode", 0, 0}))
    info->description =
        "SELinux's mode in /etc/selinux/config, at boot: 1 enforcing, 0 permissive, -1 disabled";
}

} // namespace opskit::counters
