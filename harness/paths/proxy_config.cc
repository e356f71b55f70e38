#include "harness/paths/proxy_config.h"

#include <fmt/format.h>

#include <regex>
#include <sstream>
#include <stdexcept>

namespace rpclab::harness {
namespace {

void replace_all(std::string& s, const std::string& from, const std::string& to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) s.replace(at, from.size(), to);
}

// The first @NAME@ left on a line that is not a comment, or "". Every
// template's header comment names the fields as "@NAME@", and a proxy
// ignores its comments; any other '@' (a Caddyfile's named matcher, a mail
// address) is not a field's unless it closes a run of capitals.
std::string unfilled_field(const std::string& text) {
  static const std::regex field("@[A-Z][A-Z0-9_]*@");
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    size_t first = line.find_first_not_of(" \t");
    if (first == std::string::npos || line[first] == '#') continue;
    std::smatch m;
    if (std::regex_search(line, m, field)) return m.str();
  }
  return "";
}

}  // namespace

std::string render_proxy_config(const PathRow& path, Carriage carriage, const ProxyConfigInput& in) {
  std::string name(path.proxy->template_for(carriage));
  return render_proxy_template(name, read_template(name), path, in);
}

std::string render_proxy_template(const std::string& name, const std::string& text, const PathRow& path,
                                  const ProxyConfigInput& in) {
  std::istringstream lines(text);
  std::string out;
  for (std::string line; std::getline(lines, line);) {
    if (line.find("@REPLICA_ADDR@") == std::string::npos) {
      out += line + "\n";
      continue;
    }
    bool marks_down = line.find("@DOWN@") != std::string::npos;
    for (size_t k = 1; k <= in.replica_addrs.size(); ++k) {
      bool gone = k <= in.out_of_pool.size() && in.out_of_pool[k - 1];
      if (gone && !marks_down) continue;
      std::string one = line;
      replace_all(one, "@DOWN@", gone ? " down" : "");
      replace_all(one, "@REPLICA_ADDR@", in.replica_addrs[k - 1]);
      replace_all(one, "@REPLICA_PORT@", std::to_string(in.replica_port));
      replace_all(one, "@K@", std::to_string(k));
      out += one + "\n";
    }
  }
  replace_all(out, "@DIR@", in.dir);
  replace_all(out, "@LOG@", in.log_path);
  replace_all(out, "@LISTEN_ADDR@", in.listen_addr);
  replace_all(out, "@LISTEN_PORT@", std::to_string(in.listen_port));
  replace_all(out, "@UPSTREAM_TIMEOUT_MS@", std::to_string(kUpstreamTimeoutMs));
  replace_all(out, "@RETRIES@", std::string(path.retries));
  replace_all(out, "@NEXT_UPSTREAM@", std::string(path.retries));
  if (std::string field = unfilled_field(out); !field.empty())
    throw std::runtime_error(fmt::format("template {} leaves {} unfilled", name, field));
  return out;
}

}  // namespace rpclab::harness
