#include "harness/causes/wire_record.h"

#include <fmt/format.h>

#include "common/byte_codec.h"
#include "netem/faults/nft_rules.h"

namespace rpclab::harness {
namespace {

constexpr uint32_t kVersion = 1;
constexpr uint32_t kHeaderBytes = 32;
constexpr uint32_t kRecordBytes = 16;

uint16_t be16(const unsigned char* p) { return static_cast<uint16_t>(p[0] << 8 | p[1]); }
uint32_t be32(const unsigned char* p) { return uint32_t{be16(p)} << 16 | be16(p + 2); }
uint64_t be64(const unsigned char* p) { return uint64_t{be32(p)} << 32 | be32(p + 4); }
uint16_t host16(const unsigned char* p) { return static_cast<uint16_t>(p[0] | p[1] << 8); }  // NFLOG TLVs: host order

struct NflogRecord {
  const unsigned char* ip = nullptr;  // the IPv4 packet
  size_t len = 0;
  uint32_t mark = 0;  // the packet's mark (NFULA_MARK, present when not 0)
  int64_t stamp_ns = 0;  // NFULA_TIMESTAMP: when the hook saw it (0: none)
};

// The IPv4 packet in an NFLOG record's payload TLV, and its mark. On a
// netdev egress hook the kernel logs from the link-layer header on (the
// record names an output device and no input device): an Ethernet header
// (the veth's) is skipped.
NflogRecord nflog_record(const unsigned char* d, size_t len) {
  // NFULA_MARK, NFULA_TIMESTAMP, NFULA_IFINDEX_INDEV, NFULA_IFINDEX_OUTDEV, NFULA_PAYLOAD
  constexpr uint16_t kMark = 2, kTimestamp = 3, kIndev = 4, kOutdev = 5, kPayload = 9;
  constexpr size_t kEthernetHeader = 14;
  NflogRecord r;
  bool indev = false, outdev = false;
  size_t at = 4;  // family, version, resource id
  while (at + 4 <= len) {
    size_t tlv_len = host16(d + at);
    uint16_t type = host16(d + at + 2) & 0x7fff;  // without NLA_F_NESTED
    if (tlv_len < 4 || at + tlv_len > len) break;
    if (type == kPayload) r.ip = d + at + 4, r.len = tlv_len - 4;
    if (type == kMark && tlv_len >= 8) r.mark = be32(d + at + 4);
    if (type == kTimestamp && tlv_len >= 20)  // two big-endian 64-bit fields: seconds, microseconds
      r.stamp_ns = static_cast<int64_t>(be64(d + at + 4) * 1'000'000'000 + be64(d + at + 12) * 1000);
    indev |= type == kIndev;
    outdev |= type == kOutdev;
    at += (tlv_len + 3) & ~size_t{3};
  }
  if (!r.ip || !(outdev && !indev)) return r;
  if (r.len < kEthernetHeader || be16(r.ip + 12) != 0x0800) return {};
  r.ip += kEthernetHeader;
  r.len -= kEthernetHeader;
  return r;
}

}  // namespace

std::optional<WirePacket> wire_packet_from_nflog(const unsigned char* data, size_t len, uint16_t server_port,
                                                 int64_t realtime_ns) {
  NflogRecord r = nflog_record(data, len);
  const unsigned char* ip = r.ip;
  size_t n = r.len;
  // The duplication rule marks its copies (netem/faults/nft_rules.h).
  bool copy = r.mark == netem::kNftDupMark;
  if (!ip || n < 20 || (ip[0] >> 4) != 4 || ip[9] != 17) return std::nullopt;  // IPv4, UDP
  size_t ihl = size_t{ip[0] & 0x0fu} * 4;
  bool fragment = (be16(ip + 6) & 0x1fff) != 0;
  if (fragment || n < ihl + 8 + 4) return std::nullopt;
  const unsigned char* udp = ip + ihl;
  uint16_t sport = be16(udp), dport = be16(udp + 2);
  WirePacket p;
  p.xid = be32(udp + 8);
  // libpcap stamps a record when it reads the netlink batch, up to a second
  // late; the kernel's own stamp is when the hook saw the packet.
  p.realtime_ns = r.stamp_ns ? r.stamp_ns : realtime_ns;
  if (dport == server_port) {
    p.kind = copy ? WireKind::kCopy : WireKind::kSent;
    p.client_port = sport;
  } else if (sport == server_port) {
    p.kind = WireKind::kReply;
    p.client_port = dport;
  } else {
    return std::nullopt;
  }
  return p;
}

void CopiesAfterOriginals::add(const WirePacket& p, std::vector<WirePacket>& out) {
  if (p.kind == WireKind::kCopy) {
    held_.push_back(p);
    return;
  }
  out.push_back(p);
  if (p.kind != WireKind::kSent) return;
  for (auto it = held_.begin(); it != held_.end();) {
    if (it->client_port == p.client_port && it->xid == p.xid) {
      out.push_back(*it);
      it = held_.erase(it);
    } else {
      ++it;
    }
  }
}

void CopiesAfterOriginals::flush(std::vector<WirePacket>& out) {
  out.insert(out.end(), held_.begin(), held_.end());
  held_.clear();
}

std::string format_wire(const Wire& wire) {
  ByteWriter w;
  w.bytes(kWireMagic);
  w.u32(kVersion);
  w.u32(kRecordBytes);
  w.u64(wire.packets.size());
  w.u64(wire.drops);
  for (const WirePacket& p : wire.packets) {
    w.u64(static_cast<uint64_t>(p.realtime_ns));
    w.u32(p.xid);
    w.u32(uint32_t{p.client_port} | uint32_t{static_cast<uint8_t>(p.kind)} << 16);
  }
  return w.take();
}

Wire parse_wire(std::string_view bytes) {
  try {
    ByteReader r(bytes);
    if (r.bytes(kWireMagic.size()) != kWireMagic) throw WireError("not a wire record (bad magic)");
    uint32_t version = r.u32(), record_bytes = r.u32();
    if (version != kVersion || record_bytes != kRecordBytes)
      throw WireError(fmt::format("wire record version {} with {}-byte records: this reader knows {} with {}",
                                  version, record_bytes, kVersion, kRecordBytes));
    uint64_t count = r.u64();
    Wire wire;
    wire.drops = r.u64();
    if ((bytes.size() - kHeaderBytes) / kRecordBytes != count || (bytes.size() - kHeaderBytes) % kRecordBytes)
      throw WireError(fmt::format("wire record says {} packets but holds {} bytes of them", count,
                                  bytes.size() - kHeaderBytes));
    for (uint64_t i = 0; i < count; ++i) {
      WirePacket p;
      p.realtime_ns = static_cast<int64_t>(r.u64());
      p.xid = r.u32();
      uint32_t port_dir = r.u32();
      p.client_port = static_cast<uint16_t>(port_dir & 0xffff);
      uint32_t kind = port_dir >> 16;
      if (kind < 1 || kind > 3) throw WireError(fmt::format("packet {}: unknown kind {}", i, kind));
      p.kind = static_cast<WireKind>(kind);
      wire.packets.push_back(p);
    }
    return wire;
  } catch (const TruncatedInput&) {
    throw WireError("wire record ends early");
  }
}

}  // namespace rpclab::harness
