#include "core/accept_rest.h"

#include <cstdio>
#include <cstring>

namespace rpclab {
namespace {

constexpr auto kRest = std::chrono::milliseconds(100);

}  // namespace

void AcceptRest::rest(int err) {
  until_ = std::chrono::steady_clock::now() + kRest;
  if (episode_) return;
  episode_ = true;
  std::fprintf(stderr,
               "rpclab-server: %s: cannot accept a connection: %s; new connections wait in the backlog until some "
               "close (raise the limit with ulimit -n)\n",
               transport_.c_str(), std::strerror(err));
}

void AcceptRest::end() {
  until_ = {};
  if (!episode_) return;
  episode_ = false;
  std::fprintf(stderr, "rpclab-server: %s: accepting connections again\n", transport_.c_str());
}

}  // namespace rpclab
