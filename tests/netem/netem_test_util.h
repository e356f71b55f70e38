// What the netem tests share: one capability probe, the reasons to skip,
// the linux.uml processes alive on the host, a profile's error.
#pragma once

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <set>
#include <string>
#include <system_error>
#include <vector>

#include <gtest/gtest.h>

#include "common/atomic_file.h"
#include "common/sanitizer.h"
#include "netem/topology/capabilities.h"
#include "netem/config/fault_profile.h"
#include "netem/spec/fault_spec.h"
#include "netem/spec/spec_error.h"

namespace rpclab::netem::testing {

inline const Capabilities& caps() {
  static const Capabilities c = probe_capabilities();
  return c;
}

// Empty when the test can run; otherwise why it cannot.
inline std::string why_not_namespaces() {
  if (!caps().root) return "needs root (network namespaces, tc, nft); run the tests as root";
  if (!caps().netns) return "`ip netns add` does not work here";
  return "";
}
inline std::string why_not_nftables() {
  std::string r = why_not_namespaces();
  if (r.empty() && !caps().nftables) r = "nft netdev ingress/egress with numgen and dup does not work on this kernel";
  return r;
}
inline std::string why_not_uml() {
  std::string r = why_not_namespaces();
  if (r.empty() && !caps().uml)
    r = "user-mode-linux with sch_netem/veth modules and busybox not installed (apt-get install user-mode-linux "
        "busybox-static)";
  return r;
}

// For tests that run this project's binaries inside the guest.
inline std::string why_not_our_binaries_in_uml() {
  std::string r = why_not_uml();
#if RPCLAB_ASAN
  if (r.empty())
    r = "AddressSanitizer cannot place its shadow memory in a user-mode-linux guest's address space; "
        "the plain build (make test) runs this test";
#endif
  return r;
}

// The linux.uml processes whose command line names `work_dir` (every host
// process of a guest carries its init=<work_dir>/... argument), so that a
// test sees its own guest's and not those of tests running beside it.
inline std::set<pid_t> uml_processes(const std::string& work_dir) {
  std::set<pid_t> pids;
  DIR* d = ::opendir("/proc");
  if (!d) return pids;
  while (dirent* e = ::readdir(d)) {
    pid_t pid = std::atoi(e->d_name);
    if (pid <= 0) continue;
    char exe[256] = {};
    std::string link = std::string("/proc/") + e->d_name + "/exe";
    ssize_t n = ::readlink(link.c_str(), exe, sizeof exe - 1);
    if (n <= 0 || std::string(exe, n) != "/usr/bin/linux.uml") continue;
    // A process that exits while it is read makes the read fail with ESRCH
    // (a stream threw it as "underflow error reading the file" once:
    // UmlGuest.DiesWithASigkilledCaller, 2026-11-29). Gone is not listed.
    std::string args;
    try {
      args = read_whole_file(std::string("/proc/") + e->d_name + "/cmdline");
    } catch (const std::exception&) {
      continue;
    }
    if (args.find(work_dir) != std::string::npos) pids.insert(pid);
  }
  ::closedir(d);
  return pids;
}

// What parse_profile says of `profile`; "" when it takes it.
inline std::string profile_error(const std::string& profile) {
  try {
    parse_profile(profile, "t");
  } catch (const SpecError& e) {
    return e.what();
  }
  return "";
}

// A test's working folder, /tmp/rpclab-netem-test-PID-NAME. Every one the
// program made is removed when it exits (they were left behind, ~200 of
// them by 2026-11-28), unless a test failed: then they stay for reading
// and the program says where.
inline std::string temp_dir(const std::string& name) {
  struct Made {
    std::vector<std::string> dirs;
    ~Made() {
      bool failed = ::testing::UnitTest::GetInstance()->failed_test_count() > 0;
      for (const auto& d : dirs) {
        if (failed) {
          std::printf("[ KEPT     ] %s (a test failed)\n", d.c_str());
          continue;
        }
        std::error_code ec;
        std::filesystem::remove_all(d, ec);
      }
    }
  };
  static Made made;
  std::string dir = "/tmp/rpclab-netem-test-" + std::to_string(::getpid()) + "-" + name;
  ::mkdir(dir.c_str(), 0755);
  made.dirs.push_back(dir);
  return dir;
}

}  // namespace rpclab::netem::testing
