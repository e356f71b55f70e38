// rpclab's programs ignore SIGPIPE (common/signal_watcher.cc). This test
// program makes Sun RPC calls in process, and libtirpc writes with
// write(2), so it must ignore it too or a server that drops a connection
// would kill the test run instead of failing one call.
#include <signal.h>

namespace {

const bool kSigpipeIgnored = [] { return ::signal(SIGPIPE, SIG_IGN) != SIG_ERR; }();

}  // namespace
