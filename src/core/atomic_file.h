// Whole-file reads and crash-safe writes (temporary file, fsync, rename).
#pragma once

#include <string>
#include <string_view>

namespace rpclab {

// Writes `content` to `path` so a reader sees either the old file or the
// whole new one, never a torn write. Throws std::runtime_error with errno text.
void write_file_atomically(const std::string& path, std::string_view content);

// Appends one line (a '\n' is added) with a single write(2) and fsync, so a
// crash leaves every earlier line whole. Throws std::runtime_error.
void append_line_durably(const std::string& path, std::string_view line);

std::string read_whole_file(const std::string& path);  // throws std::runtime_error

}  // namespace rpclab
