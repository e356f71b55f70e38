// The Debian packages a --server-host needs, checked there before anything
// runs and reported, never installed: the list is tools/deps.sh's own
// (`deps.sh --list runtime`, read into the build), asked of the remote's
// dpkg over the ssh session. A missing required package (or one faults
// need, when a cell has faults) stops the run with the apt-get line to run
// there; a missing optional one is only recorded (hosts.server.packages).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace rpclab::harness {

struct PackageNeed {
  std::string name;
  std::string need;  // "required" | "faults" | "optional"
};

// "<package> <need>" lines, as deps.sh --list runtime prints them.
// Throws std::invalid_argument on a line of another form.
std::vector<PackageNeed> parse_package_list(const std::string& text);
// deps.sh's runtime list, as it was when this build was configured.
const std::vector<PackageNeed>& runtime_packages();

// The shell line that asks dpkg about `needs` there: one "<package>
// <status words>" line per package dpkg knows (Debian's dpkg-query -W).
std::string dpkg_query_line(const std::vector<PackageNeed>& needs);

struct PackageReport {
  bool checked = false;   // false: no dpkg-query there
  std::string how;        // what was asked
  std::vector<std::string> installed, missing_required, missing_optional;
  nlohmann::json to_json() const;
};

// From the dpkg-query line's output: a package is there when its status
// ends in "installed" (dpkg also lists removed ones with their config).
// Packages needed for faults count as required when `faults`, else optional.
PackageReport check_packages(const std::vector<PackageNeed>& needs, const std::string& dpkg_output, bool faults);

// "" when nothing required is missing; else one message naming the
// packages and the apt-get line to run on `host`.
std::string missing_packages_message(const std::string& host, const PackageReport& report);

}  // namespace rpclab::harness
