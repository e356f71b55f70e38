// Real tc netem on a kernel without sch_netem: boot Debian's user-mode-linux
// kernel with the host's / as its root (hostfs), load sch_netem and veth from
// /usr/lib/uml/modules, run one command, power off. Results come back as
// files, since the guest's exit code does not carry them.
#pragma once

#include <atomic>
#include <chrono>
#include <string>
#include <vector>

#include "process/command_log.h"

namespace rpclab::netem {

struct GuestRun {
  bool completed = false;      // the command ran and its exit code was read back
  int exit_code = -1;          // the command's own exit code inside the guest
  double boot_ms = 0;          // start of linux.uml -> modules loaded, command starting
  double total_ms = 0;
  std::string console_path;    // the guest console, for when it did not complete
  std::string failure;         // why it did not complete (timeout, panic, ...)
};

struct GuestOptions {
  std::string work_dir;        // where the init script, console log and exit file go
  int memory_mb = 1024;
  std::chrono::seconds timeout{600};
  std::string stdout_path, stderr_path;  // the command's output (host paths)
  std::string shim_path;       // rpclab-uml-xstate.so; empty = find_xstate_shim()
  const std::atomic<bool>* stop = nullptr;  // set (Ctrl-C): power the guest off at once
  // Further modules by name ("nfsd"), loaded with their dependencies by
  // modprobe from the same modules dir before the command runs; the kernel
  // can then load what it asks for too. Empty (the netem guests): no
  // modprobe at all, so they boot as fast as before.
  std::vector<std::string> modules;
};

// The linux.uml binary, the version directory under /usr/lib/uml/modules
// that has both sch_netem.ko and veth.ko ("" when none does), and the
// ptrace shim that lets linux.uml boot on hosts whose XSTATE is larger than
// UML's buffer (AVX-512/AMX; see docs/uml-netem.md).
inline constexpr const char* kUmlKernel = "/usr/bin/linux.uml";
std::string find_uml_modules_version();
std::string find_xstate_shim();  // next to this program, else the build dir; "" if absent

// argv[0] must be an absolute path (the guest sees the host's /).
GuestRun run_in_guest(const std::vector<std::string>& argv, const GuestOptions& options, process::CommandLog& log);

}  // namespace rpclab::netem
