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

// When a file's bytes reach the disk. kEach: fsync before the rename or
// after the append, so a power cut keeps every file written so far.
// kLater: no fsync; the writer (or the program that reads the file) syncs
// the file system in batches (sync_file_system): a speed trial's record
// fsync cost 2 to 24 ms on this VM, more than the 100 calls it recorded.
// A crash of the program loses nothing either way (the bytes are in the
// page cache); only a power cut can lose the last batch.
enum class Sync { kEach, kLater };

// Writes `content` to `path` by the rule above. Throws std::runtime_error
// naming the path, with errno text or what is at the path.
void write_file_atomically(const std::string& path, std::string_view content, Sync sync = Sync::kEach);

// Why write_file_atomically would refuse `path`, or "" when it can take a
// file now (the folder of a new file is writable, a device is writable):
// for refusing a bad flag before any work is done.
std::string output_path_problem(const std::string& path);

// True when nothing is at `path`, or a regular file (not a link): what a
// tool that creates and truncates its own output (gnuplot) may be given.
bool absent_or_regular_file(const std::string& path);

// Appends one line (a '\n' is added) with a single write(2), so a crash
// leaves every earlier line whole, and fsync (with kEach). Throws
// std::runtime_error.
void append_line_durably(const std::string& path, std::string_view line, Sync sync = Sync::kEach);

// syncfs(2) of the file system `path` (a file or folder) is on: the batch
// that Sync::kLater writes leave. Throws std::runtime_error.
void sync_file_system(const std::string& path);

std::string read_whole_file(const std::string& path);  // throws std::runtime_error

}  // namespace rpclab
