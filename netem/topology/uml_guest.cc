#include "netem/topology/uml_guest.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <thread>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

#include "common/install_paths.h"
#include "process/child_process.h"
#include "process/command_runner.h"
#include "process/process_cpu.h"

#ifndef RPCLAB_NETEM_BIN_DIR
#define RPCLAB_NETEM_BIN_DIR ""
#endif

namespace rpclab::netem {

namespace {

constexpr const char* kModulesRoot = "/usr/lib/uml/modules";
constexpr const char* kShimName = "rpclab-uml-xstate.so";
// The shim restores only UML's 832-byte XSTATE prefix per guest thread, so
// the upper AVX-512 registers are shared between guest processes: guest
// glibc must never pick its AVX-512/EVEX string functions (which also use
// ymm16-31). See docs/uml-netem.md.
constexpr const char* kGuestTunables =
    "glibc.cpu.hwcaps=-AVX512F,-AVX512VL,-AVX512BW,-AVX512DQ,-AVX512CD,-AVX512ER,-AVX512PF";

bool exists(const std::string& path) { return ::access(path.c_str(), F_OK) == 0; }

double now_ms(clockid_t clock) {
  timespec ts{};
  ::clock_gettime(clock, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string q(const std::string& s) { return process::shell_line({s}); }

struct GuestFiles {
  std::string init, console, console_err, exit_code, boot_time, uml_dir, out, err;
};

GuestFiles files_in(const GuestOptions& o) {
  const std::string& d = o.work_dir;
  return {d + "/guest-init.sh", d + "/console.log", d + "/console.stderr", d + "/exit-code", d + "/boot-time",
          d + "/uml", o.stdout_path.empty() ? d + "/command.stdout" : o.stdout_path,
          o.stderr_path.empty() ? d + "/command.stderr" : o.stderr_path};
}

// The guest's pid 1: mounts what the host's / lacks for a kernel of its
// own, loads netem, veth and what a partition needs, runs the command,
// leaves its exit code in a file (the guest's own exit status carries
// nothing), syncs hostfs, halts.
// modprobe reads lib/modules/<version> under its -d root: a tree in the
// guest's /run links that to the UML modules dir, and a wrapper given to
// /proc/sys/kernel/modprobe lets the kernel's own requests find it too.
std::string modprobe_lines(const std::vector<std::string>& modules, const std::string& version) {
  if (modules.empty()) return "";
  const std::string root = "/run/rpclab-modules";
  std::string s = fmt::format("mkdir -p {0}/lib/modules && ln -s {1} {0}/lib/modules/{2}\n", root,
                              q(std::string(kModulesRoot) + "/" + version), q(version));
  s += fmt::format("printf '#!/bin/sh\\nexec /sbin/modprobe -d {0} \"$@\"\\n' > {0}/modprobe && chmod 755 {0}/modprobe\n", root);
  s += fmt::format("echo {0}/modprobe > /proc/sys/kernel/modprobe\n", root);
  s += fmt::format("/sbin/modprobe -d {} -a {}\n", root, process::shell_line(modules));
  return s;
}

std::string init_script(const std::vector<std::string>& argv, const GuestFiles& f, const std::string& version,
                        const std::string& cwd, const std::vector<std::string>& modules) {
  std::string m = std::string(kModulesRoot) + "/" + version + "/kernel";
  std::string s = "#!/bin/sh\n# Written by rpclab run_in_guest (docs/uml-netem.md).\n";
  s += "export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root\n";
  s += fmt::format("export GLIBC_TUNABLES={}\n", kGuestTunables);
  s += "mount -t proc proc /proc\nmount -t sysfs sysfs /sys\nmount -t tmpfs tmpfs /run\n";
  // sch_ingress, cls_matchall and act_gact: a partition under netem (link_event_rules.h).
  for (const char* mod : {"drivers/net/veth.ko", "net/sched/sch_netem.ko", "net/sched/sch_ingress.ko",
                          "net/sched/cls_matchall.ko", "net/sched/act_gact.ko"})
    s += fmt::format("insmod {0} 2>/dev/null || busybox insmod {0}\n", q(m + "/" + mod));
  s += modprobe_lines(modules, version);
  s += fmt::format("date +%s.%N > {}\n", q(f.boot_time));
  s += fmt::format("cd {}\n", q(cwd));
  std::string err = f.err == f.out ? "2>&1" : "2> " + q(f.err);
  s += fmt::format("{} > {} {}\n", process::shell_line(argv), q(f.out), err);
  s += fmt::format("echo $? > {0}.tmp && mv {0}.tmp {0}\n", q(f.exit_code));
  s += "sync\nbusybox poweroff -f\n";
  return s;
}

std::vector<std::string> boot_argv(const GuestOptions& o, const GuestFiles& f) {
  std::vector<std::string> argv;
  // As root, the guest is pid 1 of a PID namespace: if it dies (SIGKILL
  // from PDEATHSIG when its caller dies, or from a timeout) the kernel
  // kills every host process linux.uml made, with nothing left behind.
  if (::geteuid() == 0) argv = {"unshare", "--pid", "--fork", "--kill-child"};
  argv.insert(argv.end(), {kUmlKernel, fmt::format("mem={}M", o.memory_mb), "root=/dev/root", "rootfstype=hostfs",
                           "rootflags=/", "rw", "init=" + f.init, "uml_dir=" + f.uml_dir, "quiet", "con=null",
                           "con0=null,fd:1"});
  return argv;
}

std::string console_tail(const std::string& path) {
  std::string text = read_file(path);
  size_t panic = text.find("Kernel panic");
  if (panic != std::string::npos) return text.substr(panic, text.find('\n', panic) - panic);
  if (text.size() > 400) text = text.substr(text.size() - 400);
  return text;
}

// Until every pid in `pids` has ended, or `limit` passes.
void wait_ended(const std::vector<pid_t>& pids, std::chrono::milliseconds limit) {
  auto deadline = std::chrono::steady_clock::now() + limit;
  for (pid_t p : pids)
    while (!process::process_ended(p) && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));  // polling a condition
}

}  // namespace

std::string find_uml_modules_version() {
  std::vector<std::string> versions;
  if (DIR* d = ::opendir(kModulesRoot)) {
    while (dirent* e = ::readdir(d)) {
      std::string base = std::string(kModulesRoot) + "/" + e->d_name + "/kernel/";
      if (e->d_name[0] != '.' && exists(base + "net/sched/sch_netem.ko") && exists(base + "drivers/net/veth.ko"))
        versions.push_back(e->d_name);
    }
    ::closedir(d);
  }
  std::sort(versions.begin(), versions.end());
  return versions.empty() ? "" : versions.back();
}

std::string find_xstate_shim() {
  if (const char* env = std::getenv("RPCLAB_XSTATE_SHIM"); env && exists(env)) return env;
  try {
    if (std::string beside = program_dir() + "/" + kShimName; exists(beside)) return beside;  // the build tree
  } catch (const std::runtime_error&) {
  }
  if (std::string installed = installed_helper(kShimName); !installed.empty()) return installed;
  std::string built = std::string(RPCLAB_NETEM_BIN_DIR) + "/" + kShimName;
  return exists(built) ? built : "";
}

GuestRun run_in_guest(const std::vector<std::string>& argv, const GuestOptions& options, process::CommandLog& log) {
  GuestRun r;
  if (argv.empty() || argv[0].empty() || argv[0][0] != '/')
    throw process::CommandError("run_in_guest: argv[0] must be an absolute path (the guest sees the host's /)");
  if (options.work_dir.empty() || options.work_dir[0] != '/')
    throw process::CommandError("run_in_guest: work_dir must be an absolute path");
  ::mkdir(options.work_dir.c_str(), 0755);
  GuestFiles f = files_in(options);
  r.console_path = f.console;
  std::string version = find_uml_modules_version();
  if (version.empty()) {
    r.failure = std::string("no sch_netem.ko + veth.ko under ") + kModulesRoot + " (apt-get install user-mode-linux)";
    return r;
  }
  char cwd[4096] = "/";
  if (!::getcwd(cwd, sizeof cwd)) std::strcpy(cwd, "/");
  for (const auto& p : {f.exit_code, f.boot_time}) ::unlink(p.c_str());
  std::ofstream(f.init) << init_script(argv, f, version, cwd, options.modules);
  ::chmod(f.init.c_str(), 0755);

  process::SpawnOptions spawn;
  spawn.stdin_path = "/dev/null";
  spawn.stdout_path = f.console;
  spawn.stderr_path = f.console_err;
  std::string shim = options.shim_path.empty() ? find_xstate_shim() : options.shim_path;
  if (!shim.empty()) spawn.env.push_back("LD_PRELOAD=" + shim);
  else log.comment("no rpclab-uml-xstate.so: linux.uml may panic at boot on AVX-512 hosts");
  log.comment("user-mode-linux guest running: " + process::shell_line(argv) + " (init script " + f.init + ")");

  double start_real = now_ms(CLOCK_REALTIME), start = now_ms(CLOCK_MONOTONIC);
  process::ChildProcess guest(boot_argv(options, f), spawn, log);
  auto deadline = std::chrono::steady_clock::now() + options.timeout;
  std::optional<int> status;
  bool stopped = false;
  // The command's exit code written, the guest only syncs and halts; a
  // linux.uml that printed "reboot: System halted" and then spun for 10
  // minutes on a loaded host (2026-12-07) is stopped after kHaltGrace.
  constexpr auto kHaltGrace = std::chrono::seconds(30);
  std::optional<std::chrono::steady_clock::time_point> halting;
  while (!status && std::chrono::steady_clock::now() < deadline) {
    status = guest.wait_for(std::chrono::milliseconds(100));
    if (!status && options.stop && options.stop->load()) {
      stopped = true;
      break;
    }
    if (!status && !halting && ::access(f.exit_code.c_str(), F_OK) == 0) halting = std::chrono::steady_clock::now();
    if (!status && halting && std::chrono::steady_clock::now() - *halting > kHaltGrace) {
      log.comment("the guest wrote its exit code but did not halt within 30 s: stopped");
      break;
    }
  }
  if (!status) {
    // linux.uml is unshare's child, SIGKILLed by --kill-child once unshare
    // dies: a moment after guest.stop() returns. Wait for it, so that
    // nothing of a stopped or timed-out guest outlives this call.
    std::vector<pid_t> inner = process::child_pids(guest.pid());
    guest.stop(std::chrono::milliseconds(0));
    wait_ended(inner, std::chrono::seconds(10));
  }
  r.total_ms = now_ms(CLOCK_MONOTONIC) - start;

  std::string boot = read_file(f.boot_time);
  if (!boot.empty()) r.boot_ms = std::strtod(boot.c_str(), nullptr) * 1e3 - start_real;
  std::string code = read_file(f.exit_code);
  if (!code.empty()) {
    r.completed = true;
    r.exit_code = std::atoi(code.c_str());
  } else if (stopped) {
    r.failure = "stopped: the run was interrupted";
  } else if (!status) {
    r.failure = fmt::format("guest timed out after {} s; console {}: {}", options.timeout.count(), f.console,
                            console_tail(f.console));
  } else {
    r.failure = fmt::format("guest {} without running the command to its end; console {}: {}",
                            process::describe_wait_status(*status), f.console, console_tail(f.console));
  }
  std::error_code ignored;
  std::filesystem::remove_all(f.uml_dir, ignored);  // UML's mconsole/pid files, useless once it stopped
  return r;
}

}  // namespace rpclab::netem
