#include "harness/remote/remote_packages.h"

#include <set>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

#include "process/command_log.h"

namespace rpclab::harness {
namespace {

std::string joined(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& w : words) out += (out.empty() ? "" : " ") + w;
  return out;
}

}  // namespace

std::vector<PackageNeed> parse_package_list(const std::string& text) {
  static const std::set<std::string> kNeeds = {"required", "faults", "optional"};
  std::vector<PackageNeed> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    PackageNeed p;
    std::string extra;
    if (!(words >> p.name)) continue;  // blank line
    if (!(words >> p.need) || words >> extra || !kNeeds.count(p.need))
      throw std::invalid_argument("package list line '" + line + "' is not '<package> required|faults|optional'");
    out.push_back(p);
  }
  return out;
}

const std::vector<PackageNeed>& runtime_packages() {
  static const std::vector<PackageNeed> list = parse_package_list(
#include "runtime_packages.inc"
  );
  return list;
}

std::string dpkg_query_line(const std::vector<PackageNeed>& needs) {
  std::vector<std::string> argv = {"dpkg-query", "-W", "-f=${Package} ${Status}\\n"};
  for (const PackageNeed& p : needs) argv.push_back(p.name);
  // Unknown packages make dpkg-query say so on stderr and exit 1: the
  // answer is which lines came back.
  return process::shell_line(argv) + " 2>/dev/null; true";
}

PackageReport check_packages(const std::vector<PackageNeed>& needs, const std::string& dpkg_output, bool faults) {
  std::set<std::string> present;
  std::istringstream in(dpkg_output);
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    std::string name, status, last;
    words >> name;
    while (words >> status) last = status;
    if (last == "installed") present.insert(name.substr(0, name.find(':')));  // libc6:amd64 -> libc6
  }
  PackageReport r;
  r.checked = true;
  r.how = dpkg_query_line(needs);
  for (const PackageNeed& p : needs) {
    if (present.count(p.name))
      r.installed.push_back(p.name);
    else if (p.need == "required" || (p.need == "faults" && faults))
      r.missing_required.push_back(p.name);
    else
      r.missing_optional.push_back(p.name);
  }
  return r;
}

nlohmann::json PackageReport::to_json() const {
  return {{"checked", checked}, {"how", how}, {"installed", installed}, {"missing_required", missing_required},
          {"missing_optional", missing_optional}, {"list", "tools/deps.sh --list runtime"}};
}

std::string missing_packages_message(const std::string& host, const PackageReport& report) {
  if (report.missing_required.empty()) return "";
  return fmt::format("{} lacks the Debian packages rpclab-server needs there ({}): install them there as root "
                     "(`apt-get install -y --no-install-recommends {}`, or copy tools/deps.sh there and run "
                     "`tools/deps.sh runtime`), then run again; rpclab installs nothing on another machine",
                     host, joined(report.missing_required), joined(report.missing_required));
}

}  // namespace rpclab::harness
