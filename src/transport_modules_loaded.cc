// The transport modules of rpclab-client and rpclab-server: each folder's
// shared object (rpclab-transport-<folder>.so), loaded the first time one
// of its rows is used, so a program starts with only the RPC stack its
// run needs (transport/transport_module.h). The objects sit in the build
// tree's transports/ beside the programs, or in the installed
// libexec/rpclab/transports/. The program exports its own symbols
// (ENABLE_EXPORTS): a module calls into the server core and the client
// code of the program that loaded it, never a copy of its own.
#include <dlfcn.h>

#include <map>
#include <mutex>
#include <string>

#include "common/install_paths.h"
#include "common/setup_error.h"
#include "transport/transport_module.h"

namespace rpclab {

const TransportModule& transport_module(std::string_view folder) {
  static std::mutex lock;
  static std::map<std::string, const TransportModule*, std::less<>> loaded;
  std::lock_guard<std::mutex> hold(lock);
  if (auto at = loaded.find(folder); at != loaded.end()) return *at->second;
  std::string dir = installed_libexec_or("transports", program_dir() + "/transports");
  std::string path = dir + "/rpclab-transport-" + std::string(folder) + ".so";
  // RTLD_NOW: a missing symbol is an error here, not a crash mid-call.
  // Never unloaded: a stack's threads may outlive its last client.
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    std::string why = dlerror();
    if (why.rfind(path + ": ", 0) == 0) why.erase(0, path.size() + 2);  // dlerror names the file too
    throw SetupError("cannot load transport module " + path + ": " + why +
                     " (make build builds it; an installed rpclab has it in libexec/rpclab/transports)");
  }
  std::string symbol = "rpclab_module_" + std::string(folder);
  auto* module = static_cast<const TransportModule*>(dlsym(handle, symbol.c_str()));
  if (!module) throw SetupError(path + " has no " + symbol + ": not an rpclab transport module");
  loaded.emplace(std::string(folder), module);
  return *module;
}

}  // namespace rpclab
