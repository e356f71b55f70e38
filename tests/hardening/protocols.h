// How the wire-abuse tests speak each transport's protocol: one row per
// row of the transport table (src/transport_table.cc). protocol_of()
// throws for a transport with no row, so a new transport fails these
// tests loudly until it has one (ProtocolTable.CoversEveryTransport).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "forge.h"

namespace rpclab::test {

struct Protocol {
  std::string_view transport;
  uint64_t seed;                                       // the forge's, so each protocol's garbage repeats
  std::string (Forge::*mutated)(std::string* kind);    // one request, mutated: a datagram or a connection's bytes
  std::string (Forge::*valid_next)();                  // streams: one whole valid NEXT
  std::string (Forge::*partial)();                     // streams: the first part of a valid request
  bool replies_in_h2_frames;     // the reply to a call is a DATA frame on stream 1, after SETTINGS and HEADERS
  bool stalls_hold_the_server;   // one peer stopping mid-request holds the whole server (libtirpc's svc_vc)
  bool reads_past_a_datagram;    // libtirpc's svc_dg completes a short datagram from its buffer
  std::string_view out_of_descriptors_says;  // what the server prints when accept() fails with EMFILE
  bool accepts_after_out_of_descriptors;     // and whether it accepts again once descriptors are free
};

const std::vector<Protocol>& protocols();
const Protocol& protocol_of(const std::string& transport);  // throws std::invalid_argument

}  // namespace rpclab::test
