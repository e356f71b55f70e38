// Named fault profiles: netem/profiles/<name>.profile, KEY=VALUE lines.
#include <dirent.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "netem/fault_spec.h"

#ifndef RPCLAB_NETEM_PROFILES_DIR
#define RPCLAB_NETEM_PROFILES_DIR "netem/profiles"
#endif

namespace rpclab::netem {

namespace {

constexpr const char* kExtension = ".profile";

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

double parse_number(const std::string& key, std::string value) {
  if (!value.empty() && value.back() == '%') value.pop_back();  // "5%" reads as 5
  char* end = nullptr;
  errno = 0;
  double v = std::strtod(value.c_str(), &end);
  if (value.empty() || *end != '\0' || errno != 0)
    throw SpecError(fmt::format("{} = \"{}\": not a number", key, value));
  return v;
}

uint64_t parse_seed(const std::string& value) {
  char* end = nullptr;
  errno = 0;
  unsigned long long v = std::strtoull(value.c_str(), &end, 10);
  if (value.empty() || value[0] == '-' || *end != '\0' || errno != 0)
    throw SpecError(fmt::format("seed = \"{}\": must be a whole number from 0 to 2^64-1", value));
  return v;
}

void set_key(FaultSpec& s, const std::string& key, const std::string& value) {
  if (key == "loss") s.loss_pct = parse_number(key, value);
  else if (key == "loss_corr") s.loss_corr_pct = parse_number(key, value);
  else if (key == "ge_p") s.ge_p_pct = parse_number(key, value);
  else if (key == "ge_r") s.ge_r_pct = parse_number(key, value);
  else if (key == "ge_1h") s.ge_1h_pct = parse_number(key, value);
  else if (key == "ge_1k") s.ge_1k_pct = parse_number(key, value);
  else if (key == "dup") s.dup_pct = parse_number(key, value);
  else if (key == "delay_ms") s.delay_ms = parse_number(key, value);
  else if (key == "jitter_ms") s.jitter_ms = parse_number(key, value);
  else if (key == "reorder") s.reorder_pct = parse_number(key, value);
  else if (key == "corrupt") s.corrupt_pct = parse_number(key, value);
  else if (key == "rate") s.rate = value;
  else if (key == "seed") s.seed = parse_seed(value);
  else if (key == "direction") {
    auto d = parse_direction(value);
    if (!d) throw SpecError(fmt::format("direction = \"{}\": must be to-server, to-client or both", value));
    s.direction = *d;
  } else {
    throw SpecError(fmt::format("unknown key \"{}\" (known: loss, loss_corr, ge_p, ge_r, ge_1h, ge_1k, dup, "
                                "delay_ms, jitter_ms, reorder, corrupt, rate, direction, seed)", key));
  }
}

std::string available_profiles() {
  std::set<std::string> names;
  if (DIR* d = ::opendir(profiles_dir().c_str())) {
    while (dirent* e = ::readdir(d)) {
      std::string n = e->d_name;
      size_t ext = n.size() > 8 ? n.size() - 8 : std::string::npos;
      if (ext != std::string::npos && n.compare(ext, 8, kExtension) == 0) names.insert(n.substr(0, ext));
    }
    ::closedir(d);
  }
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out.empty() ? "(none found)" : out;
}

}  // namespace

FaultSpec parse_profile(const std::string& text, const std::string& name) {
  FaultSpec spec;
  spec.profile = name;
  std::istringstream in(text);
  std::string line;
  std::map<std::string, int> seen;  // key -> the line that gave it
  for (int number = 1; std::getline(in, line); ++number) {
    std::string body = trim(line.substr(0, line.find('#')));
    if (body.empty()) continue;
    auto where = [&] { return fmt::format("profile {} line {}: ", name, number); };
    size_t eq = body.find('=');
    if (eq == std::string::npos) throw SpecError(where() + "expected KEY=VALUE, got \"" + body + "\"");
    std::string key = trim(body.substr(0, eq));
    if (auto [it, fresh] = seen.emplace(key, number); !fresh)
      throw SpecError(where() + fmt::format("{} is given twice (first on line {}); keep one", key, it->second));
    try {
      set_key(spec, key, trim(body.substr(eq + 1)));
    } catch (const SpecError& e) {
      throw SpecError(where() + e.what());
    }
  }
  try {
    spec.validate();
  } catch (const SpecError& e) {
    throw SpecError("profile " + name + ": " + e.what());
  }
  return spec;
}

FaultSpec load_profile(const std::string& name_or_path) {
  std::string path = name_or_path;
  std::string name = name_or_path;
  if (name_or_path.find('/') == std::string::npos) {
    path = profiles_dir() + "/" + name_or_path + kExtension;
  } else {
    name = name_or_path.substr(name_or_path.rfind('/') + 1);
    if (name.size() > 8 && name.compare(name.size() - 8, 8, kExtension) == 0) name.resize(name.size() - 8);
  }
  std::ifstream in(path);
  if (!in)
    throw SpecError(fmt::format("no fault profile \"{}\" ({} not readable); profiles in {}: {}", name_or_path,
                                path, profiles_dir(), available_profiles()));
  std::stringstream text;
  text << in.rdbuf();
  return parse_profile(text.str(), name);
}

std::string profiles_dir() {
  if (const char* dir = std::getenv("RPCLAB_PROFILES_DIR"); dir && *dir) return dir;
  return RPCLAB_NETEM_PROFILES_DIR;
}

}  // namespace rpclab::netem
