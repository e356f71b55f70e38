#include "core/cli_support.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

namespace rpclab {

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
    std::fprintf(stderr, "%s: %s\nRun with --help for the flags.\n", app.get_name().c_str(), e.what());
    std::exit(kExitUsage);
  }
}

CLI::Validator writable_file() {
  return CLI::Validator(
      [](std::string& path) -> std::string {
        std::error_code ec;
        if (std::filesystem::is_directory(path, ec)) return path + " is a folder; give a file name in it";
        std::string dir = std::filesystem::path(path).parent_path().string();
        if (dir.empty()) dir = ".";
        if (::access(dir.c_str(), W_OK) == 0) return {};
        return "cannot write " + path + ": folder " + dir + ": " + std::strerror(errno) +
               " (create it, or choose a writable place)";
      },
      "FILE");
}

void split_host_port(const std::string& text, const std::string& flag, std::string* host, uint16_t* port) {
  size_t colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == text.size())
    throw CLI::ValidationError(flag, "'" + text + "' is not HOST:PORT (e.g. 127.0.0.1:7000)");
  std::string digits = text.substr(colon + 1);
  char* end = nullptr;
  long value = std::strtol(digits.c_str(), &end, 10);
  if (*end != '\0' || value < 0 || value > 65535)
    throw CLI::ValidationError(flag, "port '" + digits + "' is not a number from 0 to 65535");
  *host = text.substr(0, colon);
  *port = static_cast<uint16_t>(value);
}

}  // namespace rpclab
