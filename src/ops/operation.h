// src/ops/: the operations a client calls and every server serves. Each is
// one row of the table below: its name, what --size counts, its payload
// bound, what a client sends and how it checks the reply. Allman's four
// (allman.h) and Kiraly's record (kiraly.h) keep their arithmetic and
// checks in files of their own. May include common/ only: transport/,
// client/, server/ and every adapter build on it.
//
// An operation's arguments and reply travel as one alternative each of
// OpArgs and OpReply (the shapes below), so RpcClient has one call() for
// all of them; each adapter lists a typed handler per operation it
// carries (transport/client_handlers.h). The wire formats are the IDLs'
// (idl/rpclab.x, idl/rpclab.proto, the XML-RPC and JSON-RPC method names),
// untouched by this.
//
// Adding an operation: its id and row here (and a shape below, if none
// fits), its procedure in each IDL, a ServerCore function, and one handler
// on each side of every transport that carries it; a transport whose
// adapter leaves it out does not carry it (its row says so, and
// rpclab-client refuses it before any call).
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "ops/kiraly.h"
#include "ops/next_reply.h"

namespace rpclab {

// The operations, in the table's order (the order of --help). Allman's
// four take --size as their N: the doubles sent or asked for (IsPrime
// ignores it); Kiraly's get-record takes it as the photo's bytes.
enum class Operation : uint8_t { kNull, kNext, kEcho, kIsPrime, kAverage, kGetRandNums, kLogTransform, kGetRecord };
inline constexpr size_t kOperationCount = 8;

// Which operations a transport carries.
class OperationSet {
 public:
  constexpr OperationSet() = default;
  constexpr OperationSet(std::initializer_list<Operation> ops) {
    for (Operation op : ops) bits_ |= bit(op);
  }
  static constexpr OperationSet every() {
    OperationSet s;
    s.bits_ = (uint32_t{1} << kOperationCount) - 1;
    return s;
  }
  constexpr bool has(Operation op) const { return (bits_ & bit(op)) != 0; }
  constexpr void add(Operation op) { bits_ |= bit(op); }
  constexpr bool operator==(const OperationSet& o) const { return bits_ == o.bits_; }

 private:
  static constexpr uint32_t bit(Operation op) { return uint32_t{1} << static_cast<unsigned>(op); }
  uint32_t bits_ = 0;
};

// The shapes of what a call sends and gets back. Operations share a shape
// where their values have the same type (Average and LogTransform both
// send doubles); the operation's id says which it is.
struct Empty {};  // NULL's arguments and reply
struct NextRequest {
  uint32_t client_id = 0;
  uint32_t seq = 0;
};
struct RecordRequest {  // Kiraly's GetRecord: the record `id`, its photo `photo_bytes` long (0 = without)
  int32_t id = 0;
  uint32_t photo_bytes = 0;
};
// ECHO's payload is the std::string; IsPrime's n and GetRandNums' count the int32_t.
using OpArgs = std::variant<Empty, NextRequest, std::string, int32_t, std::vector<double>, RecordRequest>;
using OpReply = std::variant<Empty, NextReply, std::string, bool, double, std::vector<double>, KiralyRecord>;

// What every call of one client sends and what its reply must be, made
// once before the clock starts (a 16 MiB payload is not made per call).
// `want` is Empty where the check needs only the arguments.
struct CallSetup {
  OpArgs args;
  OpReply want;
};

struct OperationRow {
  Operation op;
  std::string_view name;       // on the command line and in records: "get-record"
  std::string_view size_unit;  // what --size counts when not the payload's bytes ("doubles"), else ""
  // The largest payload one call carries either way for --size `size`:
  // what must fit a transport's max_payload; 0 when nothing is sized.
  size_t (*payload_bytes)(size_t size);
  // The arguments and expected reply of client `client_id`'s calls.
  CallSetup (*setup)(uint32_t client_id, size_t size);
  // For an operation whose calls carry the client's seq, which the server
  // checks and records in its ledger (NEXT): puts `seq` in the arguments.
  // Such calls number from --first-seq, and warm-up calls use NULL
  // instead, so that the ledger holds only recorded calls. Else nullptr.
  void (*set_seq)(OpArgs& args, uint32_t seq);
  // "" when `got` is the right reply to the call, else what is wrong (a
  // wrong result is an error, not a speed). Called after the clock stops.
  std::string (*check)(const CallSetup& setup, const OpReply& got);

  bool numbered() const { return set_seq != nullptr; }
};

// The table, in the order of --help; one row per Operation.
const std::vector<OperationRow>& operations();
const OperationRow& operation_row(Operation op);
std::optional<Operation> parse_operation(std::string_view name);
std::string_view operation_name(Operation op);
// What --size counts for `op` ("doubles", "photo bytes"), or "" when it is
// the payload's bytes or nothing.
std::string_view size_unit(Operation op);
size_t payload_bytes(Operation op, size_t size);
// "null | next | echo | is-prime | ...", for --help.
std::string operation_names();
// What --size counts, by operation, for --help: "bytes for echo; doubles
// for average, get-rand-nums, log-transform; ...".
std::string size_help();

}  // namespace rpclab
