// The accept loop both xmlrpc-c servers run: rpclab accepts (resting when
// out of descriptors, AcceptRest) and serves each connection on a thread of
// its own with the library's one-connection server. xmlrpc-c's own loops
// do not fit: serverPstream::runSerial serves one connection at a time, and
// Abyss's ServerRun ends when accept() fails without saying why.
#pragma once

#include <atomic>
#include <functional>
#include <list>
#include <string>
#include <thread>

#include "server/accept_rest.h"
#include "server/request_origin.h"

namespace rpclab::xmlrpc {

// Serves one accepted connection until its peer closes or the socket is
// shut down; must not close `fd` (the loop does, after the thread ends).
using ServeConnection = std::function<void(int fd, const RequestOrigin& origin)>;

class ConnectionThreads {
 public:
  ConnectionThreads(int listen_fd, std::string transport, bool nodelay, ServeConnection serve_connection);
  ~ConnectionThreads();  // shuts every connection down, joins its thread

  // Accepts and hands out connections until `stop`.
  void serve(const std::atomic<bool>& stop);

 private:
  struct Connection {
    int fd = -1;
    RequestOrigin origin;
    std::atomic<bool> done{false};
    std::thread thread;
  };

  void accept_one();
  bool reap(bool all);  // joins the threads that are done (all when `all`); true if any

  int listen_fd_;
  bool nodelay_;
  ServeConnection serve_connection_;
  std::list<Connection> conns_;  // a list: each thread holds its element's address
  uint32_t connections_accepted_ = 0;
  AcceptRest accept_rest_;
};

}  // namespace rpclab::xmlrpc
