// SPDX-License-Identifier: MIT
//
// Fibre Channel host bus adapters' ports, from <sys>/class/fc_host/<host>/ (the kernel's
// drivers/scsi/scsi_transport_fc.c), under hw.fibrechannel:
//
//   hw.fibrechannel.<host>.{speed,port_state,port_type,symbolic_name,node_name,port_id,
//                           port_name,fabric_name,dev_loss_tmo,supported_classes,supported_speeds}
//       the port, as text; the names and the port's id in hexadecimal digits, without "0x"
//   hw.fibrechannel.<host>.<counter>
//       statistics/<counter>: frames and words sent and received, errors, link failures and
//       losses of sync and signal, in hexadecimal ("0x1f"); a counter the driver does not keep
//       reads as all ones and is left out.
//
// node_exporter's fibrechannel collector serves them.

#include <algorithm>

#include <fmt/format.h>

#include "emitter.hpp"
#include "opskit/file.hpp"
#include "opskit/text.hpp"

namespace opskit::counters {

namespace {

// The port's texts; its names and address in hexadecimal, read as their digits.
constexpr Convert k_digits{.hex = true};
constexpr HwFile k_port_files[] = {
    {"speed", Kind::text, "", "The port's speed (\"16 Gbit\")"},
    {"port_state", Kind::text, "", "The port's state: Online, Linkdown, ..."},
    {"port_type", Kind::text, "", "The port's type: NPort (fabric via point-to-point), LPort, ..."},
    {"symbolic_name", Kind::text, "",
     "The port's symbolic name: the adapter, its firmware and driver"},
    {"node_name", Kind::text, "", "The node's World Wide Name", k_one_value, k_digits},
    {"port_id", Kind::text, "", "The port's Fibre Channel address", k_one_value, k_digits},
    {"port_name", Kind::text, "", "The port's World Wide Name", k_one_value, k_digits},
    {"fabric_name", Kind::text, "", "The fabric's World Wide Name", k_one_value, k_digits},
    {"dev_loss_tmo", Kind::text, "",
     "Seconds a remote port may be gone before its devices are removed"},
    {"supported_classes", Kind::text, "", "The classes of service the port supports"},
    {"supported_speeds", Kind::text, "", "The speeds the port supports"},
};

struct Statistic {
  std::string_view file;
  std::string_view unit;
  std::string_view description;
};
constexpr Statistic k_statistics[] = {
    {"dumped_frames", "frames", "Frames the port dropped"},
    {"error_frames", "frames", "Frames received with an error"},
    {"invalid_crc_count", "frames", "Frames received with a wrong CRC"},
    {"rx_frames", "frames", "Frames received"},
    {"rx_words", "words", "Words received"},
    {"tx_frames", "frames", "Frames transmitted"},
    {"tx_words", "words", "Words transmitted"},
    {"seconds_since_last_reset", "seconds", "Seconds since the statistics were last reset"},
    {"invalid_tx_word_count", "words", "Invalid transmission words received"},
    {"link_failure_count", "events", "Times the link failed"},
    {"loss_of_sync_count", "events", "Times the port lost synchronization"},
    {"loss_of_signal_count", "events", "Times the port lost the signal"},
    {"nos_count", "events", "Not-operational sequences received"},
    {"fcp_packet_aborts", "exchanges", "FCP exchanges aborted"},
};

// Whether a statistics file holds a count: hexadecimal, as a read converts it, and not all ones
// (not kept).
bool kept_count(const std::string& path) {
  auto text = read_file(path);
  auto count = text ? convert(trim(*text), {.hex = true}) : std::nullopt;
  return count && *count != Value(~std::uint64_t{0});
}

// The statistics the driver keeps.
void emit_statistics(Emitter& emitter, const std::string& dir, const std::string& base) {
  for (const auto& s : k_statistics) {
    std::string path = fmt::format("{}/statistics/{}", dir, s.file);
    if (!kept_count(path))
      continue;
    if (Info* info = emitter.with_source(path, k_one_value)
                         .emit(fmt::format("{}.{}", base, s.file),
                               fmt::format("hw.fibrechannel.*.{}", s.file), Kind::counter, s.unit,
                               {}, {.hex = true}))
      info->description = s.description;
  }
}

} // namespace

void find_fibrechannel(const Roots& roots, std::string_view prefix, std::vector<Field>& out) {
  if (!related(prefix, "hw.fibrechannel"))
    return;
  std::string fc = roots.sys + "/class/fc_host";
  auto hosts = list_directory(fc).value_or(std::vector<std::string>());
  std::ranges::sort(hosts);
  for (const auto& host : hosts) {
    std::string base = fmt::format("hw.fibrechannel.{}", component_of(host));
    if (!related(prefix, base))
      continue;
    std::string dir = fmt::format("{}/{}", fc, host);
    emit_files(roots, prefix, dir, base, "hw.fibrechannel.*", k_port_files, {}, out);
    Emitter emitter(roots, dir, k_one_value, prefix, out);
    emit_statistics(emitter, dir, base);
  }
}

} // namespace opskit::counters
