// The pure parts of the remote host's checks: deps.sh's runtime list, the
// remote dpkg's answer about it, and the message that stops a run.
#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>

#include "harness/remote/remote_packages.h"
#include "harness/remote/remote_watchdog.h"

namespace rpclab::harness {
namespace {

bool has(const std::vector<std::string>& v, const std::string& x) { return std::find(v.begin(), v.end(), x) != v.end(); }

TEST(RemotePackages, TheListIsDepsShsRuntimeList) {
  const auto& list = runtime_packages();
  auto need_of = [&](const std::string& name) {
    for (const PackageNeed& p : list)
      if (p.name == name) return p.need;
    return std::string("absent");
  };
  EXPECT_EQ(need_of("libtirpc3"), "required");
  EXPECT_EQ(need_of("nftables"), "faults");
  EXPECT_EQ(need_of("rpcbind"), "optional");
  EXPECT_EQ(need_of("cmake"), "absent") << "a build tool is not needed to run the server";
}

TEST(RemotePackages, ListLinesOfAnotherFormAreRefused) {
  EXPECT_EQ(parse_package_list("a required\n\nb optional\n").size(), 2u);
  EXPECT_THROW(parse_package_list("a\n"), std::invalid_argument);
  EXPECT_THROW(parse_package_list("a sometimes\n"), std::invalid_argument);
  EXPECT_THROW(parse_package_list("a required extra\n"), std::invalid_argument);
}

// Captured from Debian 12's dpkg-query with the line's format: removed
// packages whose configuration stays are listed too, and not installed.
const char* kDpkg =
    "libtirpc3:amd64 install ok installed\n"
    "nftables deinstall ok config-files\n"
    "rpcbind hold ok installed\n";

TEST(RemotePackages, InstalledIsWhatDpkgSaysIsInstalled) {
  std::vector<PackageNeed> needs = {{"libtirpc3", "required"}, {"libgone", "required"}, {"nftables", "faults"},
                                    {"rpcbind", "optional"}, {"chrony", "optional"}};
  PackageReport with_faults = check_packages(needs, kDpkg, true);
  EXPECT_TRUE(with_faults.checked);
  EXPECT_EQ(with_faults.installed, (std::vector<std::string>{"libtirpc3", "rpcbind"}));
  EXPECT_EQ(with_faults.missing_required, (std::vector<std::string>{"libgone", "nftables"}));
  EXPECT_EQ(with_faults.missing_optional, (std::vector<std::string>{"chrony"}));
  PackageReport no_faults = check_packages(needs, kDpkg, false);
  EXPECT_EQ(no_faults.missing_required, (std::vector<std::string>{"libgone"}));
  EXPECT_TRUE(has(no_faults.missing_optional, "nftables")) << "without faults nftables is not needed";
}

TEST(RemotePackages, AMissingRequiredPackageIsOneMessageWithTheAptGetLine) {
  std::vector<PackageNeed> needs = {{"libtirpc3", "required"}, {"libgone", "required"}, {"nftables", "faults"}};
  std::string why = missing_packages_message("root@srv", check_packages(needs, kDpkg, true));
  EXPECT_NE(why.find("root@srv"), std::string::npos) << why;
  EXPECT_NE(why.find("apt-get install -y --no-install-recommends libgone nftables"), std::string::npos) << why;
  EXPECT_EQ(missing_packages_message("root@srv", check_packages({{"rpcbind", "optional"}, {"x", "optional"}}, kDpkg,
                                                                true)),
            "")
      << "only optional ones missing: recorded, not refused";
}

TEST(RemotePackages, TheQueryAsksDpkgForEachPackageAndToleratesUnknownOnes) {
  std::string line = dpkg_query_line({{"libtirpc3", "required"}, {"libgrpc++1.51", "required"}});
  EXPECT_EQ(line, "dpkg-query -W '-f=${Package} ${Status}\\n' libtirpc3 libgrpc++1.51 2>/dev/null; true");
}

TEST(RemoteWatchdog, SystemdRunOnlyWhereSystemdIsPid1WithSystemdRunAndRoot) {
  EXPECT_EQ(choose_watchdog("systemd-pid1\nsystemd-run\nroot\npid1-netns\n").kind, WatchdogKind::kSystemdRun);
  WatchdogChoice other_netns = choose_watchdog("systemd-pid1\nsystemd-run\nroot\n");  // this suite's ssh hosts
  EXPECT_EQ(other_netns.kind, WatchdogKind::kSetsid);
  EXPECT_NE(other_netns.reason.find("network namespace"), std::string::npos);
  WatchdogChoice no_systemd = choose_watchdog("systemd-run\nroot\n");  // installed, not running: a container
  EXPECT_EQ(no_systemd.kind, WatchdogKind::kSetsid);
  EXPECT_NE(no_systemd.reason.find("/run/systemd/system"), std::string::npos);
  EXPECT_EQ(choose_watchdog("systemd-pid1\nroot\n").kind, WatchdogKind::kSetsid);
  WatchdogChoice not_root = choose_watchdog("systemd-pid1\nsystemd-run\npid1-netns\n");
  EXPECT_EQ(not_root.kind, WatchdogKind::kSetsid);
  EXPECT_NE(not_root.reason.find("root"), std::string::npos);
  EXPECT_EQ(choose_watchdog("").kind, WatchdogKind::kSetsid);
  EXPECT_NE(watchdog_probe_line().find("/run/systemd/system"), std::string::npos);
}

TEST(RemoteWatchdog, TheSystemdTimerRunsCleanupAtTheDeadlineAndStopsByItsTimer) {
  std::string unit = watchdog_unit("20261126T044500-0a1b2c3d-cell-0-trial-1-1");
  EXPECT_EQ(unit, "rpclab-20261126T044500-0a1b2c3d-cell-0-trial-1-1");
  EXPECT_EQ(watchdog_unit("a b/c:d"), "rpclab-a_b_c_d");
  std::vector<std::string> run = systemd_run_argv("/tmp/rpclab-remote/r/t", unit, 15);
  ASSERT_EQ(run.size(), 9u);
  EXPECT_EQ(std::vector<std::string>(run.begin(), run.begin() + 8),
            (std::vector<std::string>{"systemd-run", "--quiet", "--collect", "--unit=" + unit, "--on-active=15s",
                                      "--timer-property=AccuracySec=100ms", "/bin/sh", "-c"}));
  EXPECT_NE(run[8].find("sh /tmp/rpclab-remote/r/t/cleanup.sh"), std::string::npos) << run[8];
  EXPECT_NE(run[8].find(">> /tmp/rpclab-remote/r/t/watchdog.log"), std::string::npos) << run[8];
  EXPECT_EQ(systemd_cancel_argv(unit), (std::vector<std::string>{"systemctl", "stop", unit + ".timer"}));
  const WatchdogWay& way = watchdog_way(WatchdogKind::kSystemdRun);
  EXPECT_EQ(way.kind, WatchdogKind::kSystemdRun);
  EXPECT_NE(way.arm("/d", unit, 15).find("systemd-run --quiet"), std::string::npos);
  EXPECT_NE(way.cancel("/d", unit).find("systemctl stop " + unit + ".timer"), std::string::npos);
}

TEST(RemoteWatchdog, TheSetsidWatchdogSleepsInItsOwnSessionAndDiesWithItsGroup) {
  const WatchdogWay& way = watchdog_way(WatchdogKind::kSetsid);
  EXPECT_EQ(way.kind, WatchdogKind::kSetsid);
  std::string arm = way.arm("/d", "unused", 15);
  EXPECT_EQ(arm.rfind("rm -f /d/watchdog.pid; setsid sh -c ", 0), 0u) << arm;
  EXPECT_NE(arm.find("sleep 15;"), std::string::npos) << arm;
  EXPECT_NE(arm.find("sh /d/cleanup.sh"), std::string::npos) << arm;
  EXPECT_EQ(way.cancel("/d", "unused"), "kill -TERM -- -$(cat /d/watchdog.pid) 2>/dev/null; true");
  EXPECT_STRNE(way.name, watchdog_way(WatchdogKind::kSystemdRun).name);
}

}  // namespace
}  // namespace rpclab::harness
