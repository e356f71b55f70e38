// Command-line flags as docs/adapters.md gives them: --name value or
// --name=value, the last of a repeated flag counting. Shared by the Thrift
// adapter's two programs; nothing here is rpclab's.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <string>

class Flags {
 public:
  // `valued`: the flags that take a value; `bare`: those that do not.
  Flags(int argc, char** argv, const std::set<std::string>& valued, const std::set<std::string>& bare,
        const char* program)
      : program_(program) {
    for (int i = 1; i < argc; ++i) {
      std::string arg = argv[i];
      std::string name = arg.substr(0, arg.find('='));
      if (bare.count(name)) {
        values_[name] = "1";
      } else if (valued.count(name)) {
        if (arg.find('=') != std::string::npos) {
          values_[name] = arg.substr(arg.find('=') + 1);
        } else if (i + 1 < argc) {
          values_[name] = argv[++i];
        } else {
          usage(name + " needs a value");
        }
      } else {
        usage("unknown flag " + arg);
      }
    }
  }
  bool has(const std::string& name) const { return values_.count(name) > 0; }
  std::string text(const std::string& name, const std::string& fallback = "") const {
    auto it = values_.find(name);
    return it == values_.end() ? fallback : it->second;
  }
  long long number(const std::string& name, long long fallback) const {
    auto it = values_.find(name);
    if (it == values_.end()) return fallback;
    char* end = nullptr;
    long long v = std::strtoll(it->second.c_str(), &end, 10);
    if (it->second.empty() || *end != '\0') usage(name + ": '" + it->second + "' is not a number");
    return v;
  }
  std::string required(const std::string& name) const {
    if (!has(name)) usage(name + " is required");
    return text(name);
  }
  [[noreturn]] void usage(const std::string& why) const {
    std::fprintf(stderr, "%s: %s\n", program_, why.c_str());
    std::exit(2);
  }

 private:
  const char* program_;
  std::map<std::string, std::string> values_;
};

// "HOST:PORT" split; exits 2 when it is not that.
inline void split_host_port(const Flags& f, const std::string& flag, std::string* host, int* port) {
  std::string v = f.required(flag);
  size_t colon = v.rfind(':');
  char* end = nullptr;
  long p = colon == std::string::npos ? -1 : std::strtol(v.c_str() + colon + 1, &end, 10);
  if (colon == std::string::npos || colon == 0 || *end != '\0' || p < 0 || p > 65535)
    f.usage(flag + ": '" + v + "' is not HOST:PORT");
  *host = v.substr(0, colon);
  *port = static_cast<int>(p);
}
