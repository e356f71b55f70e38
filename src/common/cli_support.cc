#include "common/cli_support.h"

#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "common/atomic_file.h"
#include "common/version.h"

namespace rpclab {
namespace {

// 100 rather than 100.000000 (std::to_string) or 1e+07 (a stream).
std::string plain(long double v) {
  if (v == std::floor(v) && std::fabs(v) < 1e18L) return std::to_string(static_cast<long long>(v));
  char buf[64];
  std::snprintf(buf, sizeof buf, "%Lg", v);
  return buf;
}

bool all_digits(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

std::string host_port_problem(const std::string& text) {
  size_t colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == text.size())
    return "'" + text + "' is not HOST:PORT (e.g. 127.0.0.1:7000)";
  std::string digits = text.substr(colon + 1);
  if (!all_digits(digits) || digits.size() > 5 || std::stoul(digits) > 65535)
    return "port '" + digits + "' is not a number from 0 to 65535";
  return "";
}

std::vector<std::string> comma_parts(const std::string& text) {
  std::vector<std::string> parts;
  for (size_t from = 0;;) {
    size_t comma = text.find(',', from);
    parts.push_back(text.substr(from, comma == std::string::npos ? std::string::npos : comma - from));
    if (comma == std::string::npos) return parts;
    from = comma + 1;
  }
}

std::string host_ports_problem(const std::string& text) {
  for (const std::string& part : comma_parts(text))
    if (std::string problem = host_port_problem(part); !problem.empty()) return problem;
  return "";
}

size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

// The suggestions for the flags in argv that neither `command` (the
// deepest command parsed) nor the program has.
std::string flag_suggestions(CLI::App& app, int argc, char** argv) {
  CLI::App* command = &app;
  for (std::vector<CLI::App*> parsed = app.get_subcommands(); !parsed.empty(); parsed = command->get_subcommands())
    command = parsed.front();
  std::vector<std::string> names;
  for (const CLI::Option* o : command->get_options())
    for (const std::string& l : o->get_lnames()) names.push_back("--" + l);
  std::string out;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.rfind("--", 0) != 0 || arg.size() == 2) continue;
    std::string name = arg.substr(0, arg.find('='));
    if (command->get_option_no_throw(name) || app.get_option_no_throw(name)) continue;
    if (std::string near = nearest_name(name, names); !near.empty())
      out += name + ": did you mean " + near + "?\n";
  }
  return out;
}

}  // namespace

std::string nearest_name(const std::string& word, const std::vector<std::string>& names) {
  std::string best;
  size_t best_distance = std::max<size_t>(2, word.size() / 3) + 1;
  for (const std::string& n : names)
    if (size_t d = edit_distance(word, n); d < best_distance) {
      best = n;
      best_distance = d;
    }
  return best;
}

void add_version_flags(CLI::App& app) {
  std::string line = version_line(app.get_name());
  app.set_version_flag("--version", line, "print the version and the git commit, and exit");
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; }))
    sub->set_version_flag("--version", line, "print the version and the git commit, and exit");
}

void parse_or_exit(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    std::exit(app.exit(e));
  } catch (const CLI::CallForAllHelp& e) {
    std::exit(app.exit(e));
  } catch (const CLI::CallForVersion& e) {
    std::exit(app.exit(e));
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "%s: %s\n%sRun with --help for the flags.\n", app.get_name().c_str(), e.what(),
                 flag_suggestions(app, argc, argv).c_str());
    std::exit(kExitUsage);
  }
}

CLI::Validator writable_file() {
  return CLI::Validator([](std::string& path) { return output_path_problem(path); }, "FILE");
}

// A file mapped into memory (the journal) must be a regular file: standard
// output, a FIFO or a device cannot be mapped or continued after a restart.
CLI::Validator mappable_file() {
  return CLI::Validator(
      [](std::string& path) -> std::string {
        if (path == "-") return "'-' (standard output) cannot hold a journal: give the path of a regular file";
        if (std::string problem = output_path_problem(path); !problem.empty()) return problem;
        struct stat st {};
        if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
          return "'" + path + "' is not a regular file: give the path of a new or existing journal";
        return "";
      },
      "FILE");
}

std::string range_text(long double min, long double max) { return plain(min) + " to " + plain(max); }

std::string number_problem(const std::string& text, long double min, long double max, bool whole) {
  std::string range = " (give one from " + range_text(min, max) + ")";
  char* end = nullptr;
  long double v = text.empty() || std::isspace(static_cast<unsigned char>(text[0])) ? NAN
                                                                                   : std::strtold(text.c_str(), &end);
  if (std::isnan(v) || !end || *end != '\0') return "'" + text + "' is not a number" + range;
  if (whole && v != std::floor(v)) return "'" + text + "' is not a whole number" + range;
  if (v < min || v > max) return "'" + text + "' is out of range" + range;
  return "";
}

void split_host_port(const std::string& text, const std::string& flag, std::string* host, uint16_t* port) {
  if (std::string problem = host_port_problem(text); !problem.empty()) throw CLI::ValidationError(flag, problem);
  size_t colon = text.rfind(':');
  *host = text.substr(0, colon);
  *port = static_cast<uint16_t>(std::stoul(text.substr(colon + 1)));
}

CLI::Validator host_port() {
  return CLI::Validator([](std::string& text) { return host_port_problem(text); }, "HOST:PORT");
}

std::vector<Endpoint> split_host_ports(const std::string& text, const std::string& flag) {
  std::vector<Endpoint> endpoints;
  for (const std::string& part : comma_parts(text)) {
    Endpoint e;
    split_host_port(part, flag, &e.host, &e.port);
    endpoints.push_back(e);
  }
  return endpoints;
}

CLI::Validator host_ports() {
  return CLI::Validator([](std::string& text) { return host_ports_problem(text); }, "HOST:PORT[,HOST:PORT...]");
}

}  // namespace rpclab
