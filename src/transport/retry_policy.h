// What a client does after a call fails, with one meaning on every
// transport where it applies (docs/running.md, "Retry policies"):
//
//   none     the library's stock behaviour, nothing asked of it;
//   library  what the RPC library does by itself when asked: gRPC's
//            service-config retryPolicy on UNAVAILABLE. Each transport's row
//            says what its library does (LibraryRetry below);
//   app      the loop applications write above the transport (app_retry.h):
//            after a timeout or a broken connection, a new handle and the
//            same (client id, seq) again, up to K times with backoff.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "transport/outcome.h"

namespace rpclab {

enum class RetryPolicy { kNone, kLibrary, kApp };
std::string_view retry_policy_name(RetryPolicy policy);  // "none" | "library" | "app"
std::optional<RetryPolicy> parse_retry_policy(std::string_view name);

struct AppRetryOptions {
  int retries = 3;            // attempts after the first (K)
  int backoff_ms = 50;        // wait before the first retry, doubled before each next one
  int backoff_max_ms = 1000;  // the most it waits
};

// The outcomes after which the app policy tries again: the call may not
// have reached the server or its reply may have been lost (timeout), or
// the connection is gone (unavailable, cannot_send, cannot_receive). Not
// cannot_code or other: the same request would fail the same way.
bool app_retries_after(ErrorKind kind);

// A transport's trait: what its library does about a failed call by itself.
enum class LibraryRetry {
  kNone,       // never sends a call again (clnt_vc, the floor): `library` adds nothing, and is refused
  kAlwaysOn,   // re-sending is stock and always on (clnt_dg): in every policy; `library` is refused as the same as none
  kOnRequest,  // retries when asked (gRPC's retryPolicy): that is `library`
};
struct LibraryRetryTrait {
  LibraryRetry kind = LibraryRetry::kNone;
  std::string_view what;  // one line for records and messages
};

// Why `policy` does not apply on `transport`, whose library does `trait`
// (a usage error), or nullopt when it does.
std::optional<std::string> retry_policy_refusal(std::string_view transport, const LibraryRetryTrait& trait,
                                                RetryPolicy policy);

}  // namespace rpclab
