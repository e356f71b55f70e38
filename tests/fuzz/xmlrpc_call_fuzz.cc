// Target xmlrpc_call: one XML-RPC request body, as the xmlrpc and
// xmlrpc-pstream servers hand it to xmlrpc-c: the registry rpclab-server
// runs (src/xmlrpc/xmlrpc_service.cc) parses it with xmlrpc-c's XML parser,
// checks the parameters and calls rpclab's methods and ServerCore.
//
// processCall throws girerr::error when it cannot run a call at all (its
// documented failure; both servers then answer with an HTTP 500 or end the
// connection). Otherwise the answer must be an XML-RPC response xmlrpc-c's
// own client reads, and a call the core counted must have succeeded with
// the reply its method makes.
#include <xmlrpc-c/girerr.hpp>
#include <xmlrpc-c/xml.hpp>

#include <string>

#include "server/server_core.h"
#include "fuzz_targets.h"
#include "xmlrpc/xmlrpc_service.h"
#include "xmlrpc/xmlrpc_wire.h"

namespace rpclab::fuzz {
namespace {

constexpr size_t kLedgerBytes = size_t{4} << 20;

void check_reply(const xmlrpc_c::rpcOutcome& outcome, const ServerCounters& before, const ServerCounters& after) {
  bool ran_next = after.next_calls == before.next_calls + 1, ran_echo = after.echo_calls == before.echo_calls + 1;
  RPCLAB_FUZZ_CHECK(after.next_calls - before.next_calls <= 1 && after.echo_calls - before.echo_calls <= 1,
                    "one request ran more than one call");
  // Allman's methods: the core counts a call only once it accepted the
  // values, and then the method must answer it.
  bool ran_allman = after.allman_calls == before.allman_calls + 1;
  RPCLAB_FUZZ_CHECK(after.allman_calls - before.allman_calls <= 1, "one request ran more than one call");
  if (ran_allman) RPCLAB_FUZZ_CHECK(outcome.succeeded(), "an Allman call the core ran came back as a fault");
  // Kiraly's: a record the core handed out comes back as the record struct.
  RPCLAB_FUZZ_CHECK(after.record_calls - before.record_calls <= 1, "one request ran more than one call");
  if (after.record_calls == before.record_calls + 1) {
    RPCLAB_FUZZ_CHECK(outcome.succeeded(), "a GetRecord the core ran came back as a fault");
    KiralyRecord record;
    std::string why;
    RPCLAB_FUZZ_CHECK(xmlrpc::read_record(outcome.getResult(), &record, &why), why);
  }
  if (!ran_next && !ran_echo) return;
  RPCLAB_FUZZ_CHECK(outcome.succeeded(), "a call the core ran came back as a fault");
  if (ran_next) {
    NextReply reply;
    std::string why;
    RPCLAB_FUZZ_CHECK(xmlrpc::read_next_reply(outcome.getResult(), &reply, &why), why);
  }
  if (ran_echo)
    RPCLAB_FUZZ_CHECK(outcome.getResult().type() == xmlrpc_c::value::TYPE_BYTESTRING, "ECHO reply is not base64");
}

}  // namespace

int fuzz_xmlrpc_call(const uint8_t* data, size_t size) {
  static ServerCore core(kLedgerBytes);
  static xmlrpc_c::registryPtr registry = xmlrpc::make_registry(core);
  std::string call(reinterpret_cast<const char*>(data), size), response;
  ServerCounters before = core.counters();
  try {
    registry->processCall(call, &response);
  } catch (const girerr::error&) {
    return 0;
  }
  xmlrpc_c::rpcOutcome outcome;
  try {
    xmlrpc_c::xml::parseResponse(response, &outcome);
  } catch (const girerr::error& e) {
    throw FuzzCheckFailure(std::string("the server's response does not parse: ") + e.what());
  }
  check_reply(outcome, before, core.counters());
  return 0;
}

}  // namespace rpclab::fuzz
