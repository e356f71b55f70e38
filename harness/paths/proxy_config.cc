#include "harness/paths/proxy_config.h"

#include <fmt/format.h>

#include <sstream>
#include <stdexcept>


namespace rpclab::harness {
namespace {

void replace_all(std::string& s, const std::string& from, const std::string& to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) s.replace(at, from.size(), to);
}

}  // namespace

std::string render_proxy_config(const PathRow& path, Carriage carriage, const ProxyConfigInput& in) {
  std::string text = read_template(std::string(path.proxy->template_for(carriage)));
  std::istringstream lines(text);
  std::string out;
  for (std::string line; std::getline(lines, line);) {
    if (line.find("@REPLICA_ADDR@") == std::string::npos) {
      out += line + "\n";
      continue;
    }
    for (size_t k = 1; k <= in.replica_addrs.size(); ++k) {
      std::string one = line;
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
  if (size_t at = out.find('@'); at != std::string::npos) {
    size_t end = out.find('@', at + 1);
    std::string field = out.substr(at, end == std::string::npos ? 20 : end - at + 1);
    if (field.find_first_of(" \n\t") == std::string::npos)
      throw std::runtime_error(fmt::format("template {} leaves {} unfilled", path.proxy->template_for(carriage), field));
  }
  return out;
}

}  // namespace rpclab::harness
