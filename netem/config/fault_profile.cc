#include "netem/config/fault_profile.h"

#include <dirent.h>
#include <sys/stat.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "common/install_paths.h"
#include "netem/config/fault_config.h"
#include "netem/config/fault_events.h"
#include "netem/spec/fault_fields.h"
#include "netem/spec/spec_error.h"

#ifndef RPCLAB_NETEM_PROFILES_DIR
#define RPCLAB_NETEM_PROFILES_DIR "netem/profiles"
#endif

namespace rpclab::netem {

namespace {

constexpr const char* kExtension = ".profile";
constexpr const char* kEventKey = "event";  // the one key that may repeat: one line per event

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

// One profile line's KEY and VALUE: a row of the field table, or an event.
void set_key(FaultSpec& s, const std::string& key, const std::string& value) {
  if (key == kEventKey) {
    s.events.push_back(parse_event(value));
    return;
  }
  const FaultField* field = find_field_by_profile_key(key);
  if (!field) throw SpecError(fmt::format("unknown key \"{}\" (known: {}, {})", key, field_profile_keys(), kEventKey));
  field->set_from_text(s, value);
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
    if (auto [it, fresh] = seen.emplace(key, number); !fresh && key != kEventKey)
      throw SpecError(where() + fmt::format("{} is given twice (first on line {}); keep one", key, it->second));
    try {
      set_key(spec, key, trim(body.substr(eq + 1)));
    } catch (const SpecError& e) {
      throw SpecError(where() + e.what());
    }
  }
  try {
    validate(spec);
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
  return installed_or("profiles", RPCLAB_NETEM_PROFILES_DIR);
}

}  // namespace rpclab::netem
