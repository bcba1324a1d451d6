// SPDX-License-Identifier: MIT
//
// Each network interface's link: net.link.<iface>.{up,carrier,mtu,tx_queue_len,carrier_changes,
// carrier_up_count,carrier_down_count,flags,type,speed}, what `ip link` and ethtool show and
// node_exporter's netclass collector serves (node_network_up, node_network_mtu_bytes,
// node_network_speed_bytes, ...): whether the interface is up, whether it has a carrier, how
// often the carrier came and went, how fast it is. The speed takes an ioctl an interface. And
// as text, net.link.<iface>.{operstate,address,broadcast,duplex,alias}: node_network_info's
// labels.
//
// /sys/class/net/<iface>/ holds these a file each, two dozen files an interface; and carrier and
// speed fail (EINVAL) while an interface is down. One rtnetlink(7) dump of the links (RTM_GETLINK,
// the address families' counters left out with RTEXT_FILTER_SKIP_STATS) answers for every
// interface at once: on a host with a hundred container interfaces, one request and a few
// receives a scrape instead of a thousand reads. The reader renders the answer as keyed lines,
// the interface's name first
// ("eth0 1 1 1500 1000 2 1 1 69699 1 - up 02:fc:00:00:00:01 ff:ff:ff:ff:ff:ff unknown -"), which
// are located and converted as any file's lines are; an alias's blanks are octal escapes.
// An interface that comes or goes changes the lines, which a snapshot notices. The dump is of
// this process's network namespace, whatever the proc root.
//
// The messages are walked with the kernel's own macros (<linux/netlink.h>, <linux/rtnetlink.h>),
// as iproute2 walks them: libmnl, the library for it, has no static archive in Debian, and kstat
// links static.

#include <array>
#include <cerrno>
#include <cstring>
#include <iterator>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <atomic>

#include <linux/ethtool.h>
#include <linux/if.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sockios.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include <fmt/compile.h>
#include <fmt/format.h>

#include "emitter.hpp"

// The netlink macros are C, their casts C casts, from char to a message or an attribute: aligned,
// as the kernel pads each to 4 bytes in a buffer malloc aligned (clang's -Wcast-align cannot know).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wold-style-cast"
#pragma GCC diagnostic ignored "-Wcast-align"

namespace opskit::counters {

namespace {

constexpr ColumnSpec k_link_fields[] = {
    {"up", Kind::gauge, "", "1 when the interface's operational state is up, else 0"},
    {"carrier", Kind::gauge, "", "1 when the interface is up and its link has a carrier, else 0"},
    {"mtu", Kind::gauge, "bytes", "Largest packet the interface sends (MTU)"},
    {"tx_queue_len", Kind::gauge, "packets", "Length of the transmit queue"},
    {"carrier_changes", Kind::counter, "changes", "Times the link's carrier came or went"},
    {"carrier_up_count", Kind::counter, "changes", "Times the link's carrier came up"},
    {"carrier_down_count", Kind::counter, "changes", "Times the link's carrier went down"},
    {"flags", Kind::gauge, "",
     "Interface flags as ip link shows them (IFF_UP 0x1, IFF_LOOPBACK 0x8, IFF_RUNNING 0x40, "
     "IFF_LOWER_UP 0x10000, ...)"},
    {"type", Kind::gauge, "", "Link type (ARPHRD_*: 1 Ethernet, 772 loopback, 65534 none, ...)"},
    {"speed", Kind::gauge, "bytes", "Speed of the link, in bytes a second"},
    {"operstate", Kind::text, "",
     "Operational state (RFC 2863): up, down, lowerlayerdown, dormant, testing, notpresent, "
     "unknown"},
    {"address", Kind::text, "", "Link-layer (MAC) address"},
    {"broadcast", Kind::text, "", "Link-layer broadcast address"},
    {"duplex", Kind::text, "", "Duplex of the link, as ethtool gives it: full, half, unknown"},
    {"alias",
     Kind::text,
     "",
     "The interface's alias (ip link set IFACE alias TEXT)",
     {.octal_escapes = true}},
};

// A dump answers in batches of up to 32 KiB (the kernel's most for one receive of a dump).
constexpr std::size_t k_receive_room = 32768;

// One link's figures from its RTM_NEWLINK message, or -1 where an attribute is missing.
struct Link {
  // The rendered columns, in k_link_fields' order.
  enum Column : std::size_t {
    up,
    carrier,
    mtu,
    tx_queue_len,
    carrier_changes,
    carrier_up_count,
    carrier_down_count,
    flags,
    type,
    speed
  };
  std::string_view name;
  std::array<long long, speed + 1> values; // the numeric columns
  // The text columns, empty where not given.
  std::string_view operstate;
  std::span<const unsigned char> address, broadcast; // as the kernel gives them
  std::string_view duplex;
  std::string_view alias;
};

// RFC 2863's operational states, by IFLA_OPERSTATE's number (IF_OPER_*), as sysfs writes them.
constexpr std::string_view k_operstates[] = {"unknown", "notpresent", "down", "lowerlayerdown",
                                             "testing", "dormant",    "up"};

// The bytes of an attribute.
std::span<const unsigned char> bytes_of(const rtattr* rta) {
  return {static_cast<const unsigned char*>(RTA_DATA(rta)), RTA_PAYLOAD(rta)};
}

// A text attribute, up to its terminating NUL.
std::string_view text_attribute(const rtattr* rta) {
  const auto* text = static_cast<const char*>(RTA_DATA(rta));
  return {text, ::strnlen(text, RTA_PAYLOAD(rta))};
}

template <typename T>
long long attribute(const rtattr* rta) {
  if (RTA_PAYLOAD(rta) < sizeof(T))
    return -1;
  T v;
  std::memcpy(&v, RTA_DATA(rta), sizeof v);
  return static_cast<long long>(v);
}

// Whether link_of() reads attribute `type`: a link's line is rendered from these and its
// ifinfomsg alone, and a dump keeps no other. link_of() skips any other, so that one it reads
// and this list lacks shows at once (its value is never read), not as a link whose line stays
// as it was when that value changes.
constexpr bool rendered_attribute(unsigned type) noexcept {
  switch (type) {
  case IFLA_IFNAME:
  case IFLA_OPERSTATE:
  case IFLA_ADDRESS:
  case IFLA_BROADCAST:
  case IFLA_IFALIAS:
  case IFLA_CARRIER:
  case IFLA_MTU:
  case IFLA_TXQLEN:
  case IFLA_CARRIER_CHANGES:
  case IFLA_CARRIER_UP_COUNT:
  case IFLA_CARRIER_DOWN_COUNT:
    return true;
  default:
    return false;
  }
}

Link link_of(const nlmsghdr* message) {
  const auto* info = static_cast<const ifinfomsg*>(NLMSG_DATA(message));
  Link link{};
  link.values.fill(-1);
  link.values[Link::flags] = info->ifi_flags;
  link.values[Link::type] = info->ifi_type;
  int room = static_cast<int>(IFLA_PAYLOAD(message));
  for (const auto* rta = IFLA_RTA(info); RTA_OK(rta, room); rta = RTA_NEXT(rta, room)) {
    if (!rendered_attribute(rta->rta_type))
      continue;
    switch (rta->rta_type) {
    case IFLA_IFNAME:
      link.name = text_attribute(rta);
      break;
    case IFLA_OPERSTATE: {
      long long state = attribute<std::uint8_t>(rta);
      link.values[Link::up] = state == IF_OPER_UP ? 1 : 0;
      if (state >= 0 && static_cast<std::size_t>(state) < std::size(k_operstates))
        link.operstate = k_operstates[state];
      break;
    }
    case IFLA_ADDRESS:
      link.address = bytes_of(rta);
      break;
    case IFLA_BROADCAST:
      link.broadcast = bytes_of(rta);
      break;
    case IFLA_IFALIAS:
      link.alias = text_attribute(rta);
      break;
    case IFLA_CARRIER: // stale while the interface is set down (sysfs refuses to say it): 0
      link.values[Link::carrier] =
          (info->ifi_flags & IFF_UP) != 0 ? attribute<std::uint8_t>(rta) : 0;
      break;
    case IFLA_MTU:
      link.values[Link::mtu] = attribute<std::uint32_t>(rta);
      break;
    case IFLA_TXQLEN:
      link.values[Link::tx_queue_len] = attribute<std::uint32_t>(rta);
      break;
    case IFLA_CARRIER_CHANGES:
      link.values[Link::carrier_changes] = attribute<std::uint32_t>(rta);
      break;
    case IFLA_CARRIER_UP_COUNT:
      link.values[Link::carrier_up_count] = attribute<std::uint32_t>(rta);
      break;
    case IFLA_CARRIER_DOWN_COUNT:
      link.values[Link::carrier_down_count] = attribute<std::uint32_t>(rta);
      break;
    default:
      break;
    }
  }
  return link;
}

// A text column: "-" for none, and blanks, backslashes and a lone "-" written as octal escapes
// ("\040"), as mountinfo writes a path, which the column's conversion undoes.
void put_text(std::string_view text, std::string& out) {
  out.push_back(' ');
  if (text.empty())
    out.push_back('-');
  else
    append_octal_escaped(out, text, text == "-" ? "-" : " \t\n\\");
}

// A link-layer address as sysfs writes it ("02:fc:00:00:00:01"); "-" for none.
void put_address(std::span<const unsigned char> bytes, std::string& out) {
  static constexpr char k_hex[] = "0123456789abcdef";
  if (bytes.empty()) {
    out.append(" -");
    return;
  }
  std::size_t at = out.size();
  out.resize(at + 3 * bytes.size()); // " 02:fc:00:..."
  char separator = ' ';
  for (unsigned char byte : bytes) {
    out[at] = std::exchange(separator, ':');
    out[at + 1] = k_hex[byte >> 4];
    out[at + 2] = k_hex[byte & 15];
    at += 3;
  }
}

void render(const Link& link, std::string& out) {
  if (link.name.empty())
    return;
  auto at = std::back_inserter(out);
  at = fmt::format_to(at, FMT_COMPILE("{}"), link.name);
  for (long long v : link.values)
    at = v < 0 ? fmt::format_to(at, FMT_COMPILE(" -")) : fmt::format_to(at, FMT_COMPILE(" {}"), v);
  put_text(link.operstate, out);
  put_address(link.address, out);
  put_address(link.broadcast, out);
  put_text(link.duplex, out);
  put_text(link.alias, out);
  out.push_back('\n');
}

} // namespace

namespace detail {

// A dump's links as read_links() rendered them: what each one's line is rendered from, of its
// message as the kernel sent it (append_rendered_part()), its settings, and its line in the
// rendering. A link whose message and settings are those of the same link in the dump before is
// its line again: a host's links read the same scrape after scrape but for their counters, which
// a link's walk, rendering and settings call took 2,500 instructions and a syscall each to find.
struct LinkDump {
  struct Entry {
    std::size_t message_at, message_size, line_at, line_size;
    LinkSettings settings;
  };
  std::string messages;
  std::vector<Entry> links;
};
struct LinkDumps {
  LinkDump last, next; // `last` is of the source's rendered_from, `next` of its buffer
};

namespace {

// Appends what a link's line is rendered from to `out`: RTM_NEWLINK `message`'s ifinfomsg and
// the attributes link_of() reads. Not the rest, a kilobyte a link, and not the interface's
// counters (IFLA_STATS, IFLA_STATS64), which the kernel sends whatever the request's filter and
// which move with every packet: loopback's with every scrape over it.
void append_rendered_part(const nlmsghdr* message, std::string& out) {
  const auto* info = static_cast<const ifinfomsg*>(NLMSG_DATA(message));
  out.append(reinterpret_cast<const char*>(info), sizeof *info);
  int room = static_cast<int>(IFLA_PAYLOAD(message));
  for (const auto* rta = IFLA_RTA(info); RTA_OK(rta, room); rta = RTA_NEXT(rta, room))
    if (rendered_attribute(rta->rta_type))
      out.append(reinterpret_cast<const char*>(rta), rta->rta_len);
}

// Renders the link of RTM_NEWLINK `message` into the source's buffer: the line of the same link
// (the same place in the dump) in the last rendering, where what it is rendered from and its
// settings are the same.
void render_link(Source& source, const nlmsghdr* message) {
  LinkDumps& dumps = *source.link_dumps;
  std::size_t message_at = dumps.next.messages.size();
  append_rendered_part(message, dumps.next.messages);
  std::string_view sent = std::string_view(dumps.next.messages).substr(message_at);
  std::size_t k = dumps.next.links.size();
  const LinkDump::Entry* before = k < dumps.last.links.size() ? &dumps.last.links[k] : nullptr;
  std::string_view line;
  if (before != nullptr &&
      dumps.last.messages.compare(before->message_at, before->message_size, sent) == 0)
    line = std::string_view(source.rendered_from).substr(before->line_at, before->line_size);
  Link link{};
  if (line.empty())
    link = link_of(message);
  // A link that had no settings, its message as before, is not asked again: the call takes the
  // kernel's rtnl lock, which every change to the host's links waits for.
  auto settings = !line.empty() && before->settings.none
                      ? before->settings
                      : link_settings(source.fd.get(),
                                      line.empty() ? link.name : line.substr(0, line.find(' ')));
  std::size_t line_at = source.buffer.size();
  if (!line.empty() && settings == before->settings) {
    source.buffer.append(line);
  } else {
    if (!line.empty())
      link = link_of(message);
    if (settings.mbps >= 0)
      link.values[Link::speed] = settings.mbps * 125000; // node_exporter's bytes a second
    // sysfs says a link's duplex only while it is up, and node_exporter serves sysfs'
    if ((link.values[Link::flags] & IFF_UP) != 0)
      link.duplex = settings.duplex;
    render(link, source.buffer);
  }
  dumps.next.links.push_back(
      {message_at, sent.size(), line_at, source.buffer.size() - line_at, settings});
}

} // namespace

bool request_links(int fd, std::uint32_t seq) {
  struct {
    nlmsghdr header;
    ifinfomsg info;
    rtattr mask_attribute;
    std::uint32_t mask;
  } ask{};
  ask.header.nlmsg_len = sizeof ask;
  ask.header.nlmsg_type = RTM_GETLINK;
  ask.header.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
  ask.header.nlmsg_seq = seq;
  ask.info.ifi_family = AF_UNSPEC;
  ask.mask_attribute.rta_len = RTA_LENGTH(sizeof ask.mask);
  ask.mask_attribute.rta_type = IFLA_EXT_MASK;
  ask.mask = RTEXT_FILTER_SKIP_STATS;
  return ::send(fd, &ask, sizeof ask, 0) == static_cast<ssize_t>(sizeof ask);
}

LinkSettings link_settings(int fd, std::string_view name) {
  // The call says how many words its link-mode masks take by answering a request of the wrong
  // size with the right size, negated; the size is the kernel's, kept.
  static std::atomic<int> words = 0;
  if (name.size() >= IFNAMSIZ)
    return {};
  // The settings, then three masks of at most 127 words.
  alignas(ethtool_link_settings) std::array<char, sizeof(ethtool_link_settings) + 3 * 127 * 4> room;
  ifreq request{};
  std::memcpy(request.ifr_name, name.data(), name.size());
  request.ifr_data = room.data();
  for (int attempt = 0; attempt < 2; ++attempt) {
    ethtool_link_settings settings{};
    settings.cmd = ETHTOOL_GLINKSETTINGS;
    settings.link_mode_masks_nwords = static_cast<std::int8_t>(words.load());
    std::memcpy(room.data(), &settings, sizeof settings);
    if (::ioctl(fd, SIOCETHTOOL, &request) != 0)
      return {.mbps = -1, .duplex = {}, .none = errno == EOPNOTSUPP};
    std::memcpy(&settings, room.data(), sizeof settings);
    if (settings.link_mode_masks_nwords > 0) {
      std::uint32_t mbps = settings.speed;
      return {mbps == static_cast<std::uint32_t>(SPEED_UNKNOWN) ? -1 : static_cast<long long>(mbps),
              settings.duplex == DUPLEX_FULL   ? "full"
              : settings.duplex == DUPLEX_HALF ? "half"
                                               : "unknown"};
    }
    words = -settings.link_mode_masks_nwords;
  }
  return {};
}

bool read_links(Source& source) {
  auto fail = [&](std::string_view what, int err) {
    source.read_error = Error::from_errno(what, source.path, err);
    source.fd.reset(); // a dump cut short leaves its rest queued: start afresh next time
    return false;
  };
  if (!source.fd) {
    source.fd = UniqueFd(::socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE));
    if (!source.fd)
      return fail("socket", errno);
  }
  std::uint32_t seq = ++source.sequence;
  if (!request_links(source.fd.get(), seq))
    return fail("send", errno);
  source.raw.resize(k_receive_room);
  if (!source.link_dumps)
    source.link_dumps = std::make_shared<LinkDumps>();
  std::swap(source.buffer, source.rendered_from); // the last rendering, to compare this one with
  std::swap(source.link_dumps->last, source.link_dumps->next);
  source.buffer.clear();
  source.link_dumps->next.messages.clear();
  source.link_dumps->next.links.clear();
  for (;;) {
    iovec room{source.raw.data(), source.raw.size()};
    msghdr message{};
    message.msg_iov = &room;
    message.msg_iovlen = 1;
    ssize_t n = ::recvmsg(source.fd.get(), &message, 0);
    if (n <= 0)
      return fail("recvmsg", n < 0 ? errno : EPROTO);
    if ((message.msg_flags & MSG_TRUNC) != 0)
      return fail("recvmsg", EMSGSIZE);
    auto left = static_cast<unsigned>(n);
    for (const auto* header = reinterpret_cast<const nlmsghdr*>(source.raw.data());
         NLMSG_OK(header, left); header = NLMSG_NEXT(header, left)) {
      if (header->nlmsg_seq != seq)
        continue; // an answer to an earlier request
      if (header->nlmsg_type == NLMSG_DONE) {
        source.text = source.buffer;
        source.unchanged = source.buffer == source.rendered_from;
        return true;
      }
      if (header->nlmsg_type == NLMSG_ERROR) {
        const auto* error = static_cast<const nlmsgerr*>(NLMSG_DATA(header));
        return fail("RTM_GETLINK", error->error < 0 ? -error->error : EPROTO);
      }
      if (header->nlmsg_type == RTM_NEWLINK && header->nlmsg_len >= NLMSG_LENGTH(sizeof(ifinfomsg)))
        render_link(source, header);
    }
  }
}

} // namespace detail

void find_links(const Roots& roots, std::string_view prefix, std::vector<Field>& out) {
  if (!related(prefix, "net.link"))
    return;
  detail::Source dump;
  dump.path = std::string(k_links_source);
  if (!detail::read_links(dump))
    return;
  Emitter emitter(roots, dump.path, k_lines, prefix, out, Reader::links);
  emit_columns(dump.text, "net.link", k_link_fields, emitter); // "-": carrier_up_count before 4.20
}

} // namespace opskit::counters

#pragma GCC diagnostic pop
