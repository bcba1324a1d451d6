// SPDX-License-Identifier: MIT
//
// InfiniBand and RDMA devices (RoCE network cards too), from <sys>/class/infiniband/<device>/
// (the kernel's drivers/infiniband/core/sysfs.c), under hw.infiniband:
//
//   hw.infiniband.<device>.{board_id,fw_ver,hca_type}       the card, as text
//   hw.infiniband.<device>.<port>.{state,phys_state}        ports/<port>/state ("4: ACTIVE")
//   hw.infiniband.<device>.<port>.rate                      ports/<port>/rate ("100 Gb/sec (4X
//   EDR)") hw.infiniband.<device>.<port>.<counter>                 ports/<port>/counters/<counter>
//
// A state is the number its file begins with; the rate its gigabits a second. The counters are
// the port's performance counters (the InfiniBand specification's PortCounters): packets and
// errors, and port_rcv_data and port_xmit_data, the data in 32-bit words. node_exporter's
// infiniband collector serves them all.

#include <algorithm>

#include <fmt/format.h>

#include "emitter.hpp"
#include "opskit/file.hpp"

namespace opskit::counters {

namespace {

constexpr HwFile k_port_counters[] = {
    {"excessive_buffer_overrun_errors", Kind::counter, "errors",
     "Times the port's receive buffer overran on consecutive flow control updates"},
    {"link_downed", Kind::counter, "events",
     "Times the link failed to recover from an error and went down"},
    {"link_error_recovery", Kind::counter, "events", "Times the link recovered from an error"},
    {"local_link_integrity_errors", Kind::counter, "errors",
     "Times the port's physical errors went past their threshold"},
    {"multicast_rcv_packets", Kind::counter, "packets",
     "Multicast packets received, errors included"},
    {"multicast_xmit_packets", Kind::counter, "packets",
     "Multicast packets transmitted, errors included"},
    {"port_rcv_constraint_errors", Kind::counter, "packets",
     "Packets received that the switch port's partition or filter discarded"},
    {"port_rcv_data", Kind::counter, "dwords",
     "Data received on all virtual lanes, in 32-bit words"},
    {"port_rcv_discards", Kind::counter, "packets",
     "Packets received and discarded: the port down or congested"},
    {"port_rcv_errors", Kind::counter, "packets", "Packets received with an error"},
    {"port_rcv_packets", Kind::counter, "packets",
     "Packets received on all virtual lanes, errors included"},
    {"port_rcv_remote_physical_errors", Kind::counter, "packets",
     "Packets received marked bad by the sender (EBP delimiter)"},
    {"port_rcv_switch_relay_errors", Kind::counter, "packets",
     "Packets received that the switch could not relay"},
    {"port_xmit_constraint_errors", Kind::counter, "packets",
     "Packets not transmitted: the switch port's partition or filter"},
    {"port_xmit_data", Kind::counter, "dwords",
     "Data transmitted on all virtual lanes, in 32-bit words"},
    {"port_xmit_discards", Kind::counter, "packets",
     "Packets to transmit discarded: the port down or congested"},
    {"port_xmit_packets", Kind::counter, "packets",
     "Packets transmitted on all virtual lanes, errors included"},
    {"port_xmit_wait", Kind::counter, "ticks",
     "Ticks in which the port had data to transmit and sent none (waiting for credits)"},
    {"symbol_error", Kind::counter, "errors", "Minor link errors detected on the physical lanes"},
    {"unicast_rcv_packets", Kind::counter, "packets", "Unicast packets received, errors included"},
    {"unicast_xmit_packets", Kind::counter, "packets",
     "Unicast packets transmitted, errors included"},
    {"VL15_dropped", Kind::counter, "packets", "Subnet management packets dropped (no buffer)"},
};

constexpr HwFile k_device_files[] = {
    {"board_id", Kind::text, "", "The card's board identifier"},
    {"fw_ver", Kind::text, "", "The card's firmware version"},
    {"hca_type", Kind::text, "", "The card's model (host channel adapter type)"},
};

// "4: ACTIVE": the number, then the words.
constexpr Layout k_numbered_state{.key_token = -1, .separators = ":"};
// "100 Gb/sec (4X EDR)": the gigabits first.
constexpr Layout k_first_word{.key_token = -1};

constexpr HwFile k_port_attributes[] = {
    {"state", Kind::gauge, "",
     "The port's logical state: 1 down, 2 init, 3 armed, 4 active, 5 active defer",
     k_numbered_state},
    {"phys_state", Kind::gauge, "",
     "The port's physical state: 1 sleep, 2 polling, 3 disabled, 4 port configuration "
     "training, 5 link up, 6 link error recovery, 7 phy test",
     k_numbered_state},
    {"rate", Kind::gauge, "Gb/s", "The port's signalling rate, in gigabits a second", k_first_word},
};

// Whether a port's counters read: one without a performance management agent (a virtual
// function's) answers "N/A (no PMA)" for each.
bool has_counters(const std::string& dir) {
  auto data = read_file(dir + "/port_rcv_data");
  return !data || !data->starts_with("N/A");
}

} // namespace

void find_infiniband(const Roots& roots, std::string_view prefix, std::vector<Field>& out) {
  if (!related(prefix, "hw.infiniband"))
    return;
  std::string infiniband = roots.sys + "/class/infiniband";
  auto devices = list_directory(infiniband).value_or(std::vector<std::string>());
  std::ranges::sort(devices);
  for (const auto& device : devices) {
    std::string dir = fmt::format("{}/{}", infiniband, device);
    std::string base = fmt::format("hw.infiniband.{}", component_of(device));
    if (!related(prefix, base))
      continue;
    emit_files(roots, prefix, dir, base, "hw.infiniband.*", k_device_files, {}, out);
    for (unsigned port : numbered(dir + "/ports", "")) {
      std::string port_dir = fmt::format("{}/ports/{}", dir, port);
      std::string port_base = fmt::format("{}.{}", base, port);
      emit_files(roots, prefix, port_dir, port_base, "hw.infiniband.*.*", k_port_attributes, {},
                 out);
      if (has_counters(port_dir + "/counters"))
        emit_files(roots, prefix, port_dir + "/counters", port_base, "hw.infiniband.*.*",
                   k_port_counters, {}, out);
    }
  }
}

} // namespace opskit::counters
