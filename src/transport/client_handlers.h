// How an adapter's client answers RpcClient::call: a table of one handler
// per operation it carries, each a typed member function
// (CallStatus echo(const std::string& payload, std::string* reply)), so the
// adapter never sees OpArgs or OpReply:
//
//   constexpr ClientHandler<GrpcClient> kHandlers[] = {
//       {Operation::kNull, handle<&GrpcClient::null_call>},
//       {Operation::kEcho, handle<&GrpcClient::echo>}, ...};
//   CallStatus GrpcClient::call(Operation op, const OpArgs& a, OpReply* r) {
//     return dispatch(kHandlers, *this, op, a, r);
//   }
//
// operations_of(kHandlers) is what the transport carries: its row says so
// (static_assert'ed against the adapter's constant in its header).
#pragma once

#include <cstddef>
#include <string>
#include <type_traits>
#include <vector>

#include "ops/operation.h"
#include "transport/outcome.h"

namespace rpclab {

template <typename Client>
struct ClientHandler {
  Operation op;
  CallStatus (*call)(Client& client, const OpArgs& args, OpReply* reply);
};

namespace handler_detail {

template <typename Method>
struct Signature;
// CallStatus Client::method(Arg args, Reply* reply), Arg by value or const&.
template <typename C, typename Arg, typename R>
struct Signature<CallStatus (C::*)(Arg, R*)> {
  using Client = C;
  using Args = std::decay_t<Arg>;
  using Reply = R;
};

// Empties a reply kept from the previous call, keeping a buffer's capacity.
template <typename T>
void reset(T& value) {
  if constexpr (std::is_same_v<T, std::string> || std::is_same_v<T, std::vector<double>>)
    value.clear();
  else
    value = T{};
}

}  // namespace handler_detail

// The handler of `Method`: takes its arguments out of OpArgs and its reply
// into OpReply (emptied first, so no answer of an earlier call is left).
template <auto Method>
CallStatus handle(typename handler_detail::Signature<decltype(Method)>::Client& client, const OpArgs& args,
                  OpReply* reply) {
  using S = handler_detail::Signature<decltype(Method)>;
  const auto* in = std::get_if<typename S::Args>(&args);
  if (!in) return CallStatus::failure(ErrorKind::kOther, "arguments of another operation's shape");
  auto* out = std::get_if<typename S::Reply>(reply);
  if (out)
    handler_detail::reset(*out);
  else
    out = &reply->template emplace<typename S::Reply>();
  return (client.*Method)(*in, out);
}

template <typename Client, size_t N>
CallStatus dispatch(const ClientHandler<Client> (&handlers)[N], Client& client, Operation op, const OpArgs& args,
                    OpReply* reply) {
  for (const ClientHandler<Client>& h : handlers)
    if (h.op == op) return h.call(client, args, reply);
  return CallStatus::failure(ErrorKind::kOther,
                             "this transport does not carry operation " + std::string(operation_name(op)));
}

template <typename Client, size_t N>
constexpr OperationSet operations_of(const ClientHandler<Client> (&handlers)[N]) {
  OperationSet set;
  for (const ClientHandler<Client>& h : handlers) set.add(h.op);
  return set;
}

}  // namespace rpclab
