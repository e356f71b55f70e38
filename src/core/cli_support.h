// What every rpclab program does with its command line: CLI11 parsing with
// one exit code for bad usage, and the exit codes themselves.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>

namespace rpclab {

// Exit codes shared by rpclab-server, rpclab-client and rpclab
// (docs/running.md lists them).
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailed = 1;     // ran, but something failed (a cell, a server)
inline constexpr int kExitUsage = 2;      // bad flag or value: nothing was run
inline constexpr int kExitSetup = 3;      // could not start: port in use, privilege, missing tool

// Parses argv; on --help prints and exits 0, on a bad flag prints the
// message (CLI11 names the flag) and exits with kExitUsage.
void parse_or_exit(CLI::App& app, int argc, char** argv);

// A CLI11 check for a file the program writes later (a ledger, a record):
// its folder must exist and be writable now, so a bad path is refused
// before any call is made rather than after an hour of them.
CLI::Validator writable_file();

// "HOST:PORT" -> parts; throws CLI::ValidationError naming `flag`.
void split_host_port(const std::string& text, const std::string& flag, std::string* host, uint16_t* port);

}  // namespace rpclab
