// Whole-file reads, and writes that never replace what they should not.
//
// Every file a program writes goes through write_file_atomically, under
// one rule for the path it is given (a flag's value or a name in a run
// folder):
//   "-"                           standard output
//   nothing there, a regular file a temporary file in the same folder,
//                                 fsynced and renamed over it, so a reader
//                                 sees the old file or the whole new one
//   a symbolic link to a regular  the same, done to the file it points to
//   file                          (in that file's folder); the link stays
//   a FIFO or a character device  written in place: never created,
//   (or a link to one)            truncated or renamed over
//   anything else                 refused: a folder, a block device, a
//                                 socket, a link that points to nothing
// A past bug renamed a call record over /dev/stdout as root, replacing it
// for every process on the machine.
#pragma once

#include <string>
#include <string_view>

namespace rpclab {

// Writes `content` to `path` by the rule above. Throws std::runtime_error
// naming the path, with errno text or what is at the path.
void write_file_atomically(const std::string& path, std::string_view content);

// Why write_file_atomically would refuse `path`, or "" when it can take a
// file now (the folder of a new file is writable, a device is writable):
// for refusing a bad flag before any work is done.
std::string output_path_problem(const std::string& path);

// True when nothing is at `path`, or a regular file (not a link): what a
// tool that creates and truncates its own output (gnuplot) may be given.
bool absent_or_regular_file(const std::string& path);

// Appends one line (a '\n' is added) with a single write(2) and fsync, so a
// crash leaves every earlier line whole. Throws std::runtime_error.
void append_line_durably(const std::string& path, std::string_view line);

std::string read_whole_file(const std::string& path);  // throws std::runtime_error

}  // namespace rpclab
