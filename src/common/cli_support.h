// src/common/: what every rpclab program links, the harness and the link
// tools too: its command line (this file), the files it writes
// (atomic_file.h), where it finds its data (install_paths.h), its version,
// IPv4 addresses and sockets (inet.h), signals (signal_watcher.h), setup
// errors and little-endian bytes. May include nothing else of rpclab's.
//
// What every rpclab program does with its command line: CLI11 parsing with
// one exit code for bad usage, the exit codes themselves, --version, and
// the checks its flags share (numbers, HOST:PORT, files to write).
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "common/inet.h"

namespace rpclab {

// Exit codes shared by every rpclab program (docs/running.md lists them).
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailed = 1;     // ran, but something failed (a cell, a server)
inline constexpr int kExitUsage = 2;      // bad flag or value: nothing was run
inline constexpr int kExitSetup = 3;      // could not start: port in use, privilege, missing tool

// --version on `app` and on every subcommand it has so far: prints
// "NAME 0.9.0 (git abc1234)" (NAME is app's) and exits 0, before any
// required flag or subcommand is asked for.
void add_version_flags(CLI::App& app);

// Parses argv; on --help or --version prints and exits 0, on a bad flag
// prints "NAME: message" (CLI11 names the flag) and exits with kExitUsage;
// a flag the command does not have gets the nearest it does have ("did
// you mean --transports?").
void parse_or_exit(CLI::App& app, int argc, char** argv);

// The name of `names` nearest to `word` (edit distance), when it is near
// enough to be a slip of the keyboard (at most 2 edits, or a third of the
// word); "" when none is.
std::string nearest_name(const std::string& word, const std::vector<std::string>& names);

// A CLI11 check for a file the program writes later (a ledger, a record):
// the rule of write_file_atomically (common/atomic_file.h), checked now, so
// a bad path is refused before any call is made rather than after an
// hour of them. "-" is standard output.
CLI::Validator writable_file();
// The same for a file the program maps and continues (a journal): a
// regular file or none, never "-", a FIFO or a device.
CLI::Validator mappable_file();

// Why `text` is not a number from `min` to `max` (a whole one when
// `whole`), or "" when it is.
std::string number_problem(const std::string& text, long double min, long double max, bool whole);
std::string range_text(long double min, long double max);  // "0 to 100", for --help

// A CLI11 check for a number in [min, max] that says "'abc' is not a
// number" rather than that abc is out of range.
template <typename T>
CLI::Validator in_range(T min, T max) {
  return CLI::Validator(
      [=](std::string& text) { return number_problem(text, min, max, std::is_integral_v<T>); },
      range_text(min, max));
}

// "HOST:PORT" -> parts, the one parser of every program's addresses;
// throws CLI::ValidationError naming `flag` (an empty host or port, a
// missing colon, a port that is not a whole number from 0 to 65535).
void split_host_port(const std::string& text, const std::string& flag, std::string* host, uint16_t* port);
// The same rule as a CLI11 check, so a bad address is refused while parsing.
CLI::Validator host_port();
// "HOST:PORT[,HOST:PORT...]" -> one Endpoint each, in order, by the rule
// above (one address: exactly split_host_port's refusals); and its check.
std::vector<Endpoint> split_host_ports(const std::string& text, const std::string& flag);
CLI::Validator host_ports();

}  // namespace rpclab
