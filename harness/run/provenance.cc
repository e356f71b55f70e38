#include "harness/run/provenance.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <climits>
#include <fstream>

#include "common/version.h"
#include "netem/topology/capabilities_report.h"
#include "harness/record/run_metadata.h"

namespace rpclab::harness {
namespace {

// The first "KEY<spaces>: value" line of /proc/cpuinfo with one of `keys`
// ("model name" on x86; ARM kernels name the CPU in other lines).
std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);) {
    size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string key = line.substr(0, colon), value = line.substr(colon + 1);
    key.erase(key.find_last_not_of(" \t") + 1);
    value.erase(0, value.find_first_not_of(" \t"));
    if (key == "model name" || key == "Model" || key == "cpu model" || key == "Hardware") return value;
  }
  return "unknown";
}

// PRETTY_NAME of /etc/os-release, e.g. "Debian GNU/Linux 12 (bookworm)".
std::string os_name() {
  std::ifstream in("/etc/os-release");
  const std::string key = "PRETTY_NAME=";
  for (std::string line; std::getline(in, line);) {
    if (line.compare(0, key.size(), key) != 0) continue;
    std::string value = line.substr(key.size());
    if (value.size() >= 2 && value.front() == '"' && value.back() == '"') value = value.substr(1, value.size() - 2);
    return value;
  }
  return "unknown";
}

}  // namespace

HostFacts host_facts() {
  char name[HOST_NAME_MAX + 1] = {};
  ::gethostname(name, sizeof name - 1);
  utsname u{};
  ::uname(&u);
  HostFacts h;
  h.hostname = name;
  h.os = os_name();
  h.kernel = HostFacts::Kernel{u.release, u.version, u.machine};
  h.cpu_model = cpu_model();
  h.cpu_count = ::sysconf(_SC_NPROCESSORS_ONLN);
  return h;
}

void add_provenance(RunMetadata& meta, const netem::Capabilities& caps) {
  meta.rpclab = BuildFacts{version(), git_commit()};
  meta.host = host_facts();
  meta.capabilities = netem::capabilities_json(caps);
}

std::string settle_title(const RunFolder& folder, bool resume, const std::string& given) {
  if (!given.empty() || !resume) return given;
  std::optional<RunMetadata> meta = read_run_metadata(folder.path("metadata.json"));
  return meta ? meta->title.value_or("") : "";
}

std::string with_title(const std::string& title, const std::string& report) {
  return title.empty() ? report : "Title: " + title + "\n\n" + report;
}

}  // namespace rpclab::harness
