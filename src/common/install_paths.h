// Where a program finds its sibling programs and the files it reads (fault
// profiles, the 1989 figures): in the build tree it was built in, or, once
// installed (`make install`), under the prefix it was installed to, found
// from the program's own path so that a DESTDIR copy or a moved prefix
// works without the source tree.
#pragma once

#include <string>

namespace rpclab {

// The folder holding this executable (and rpclab-server, rpclab-client).
// Throws std::runtime_error when /proc/self/exe cannot be read.
std::string program_dir();

// `name` under the installed share/rpclab folder (profiles, data, ...) when
// this program runs from an installed bin/ and that folder exists there;
// otherwise `build_tree_path`, the source tree's copy.
std::string installed_or(const std::string& name, const std::string& build_tree_path);

// `name` under the installed libexec/rpclab folder when this program runs
// from an installed bin/ (its share/rpclab folder exists), whether or not
// `name` is there yet (a folder a program will make); otherwise
// `build_tree_path`.
std::string installed_libexec_or(const std::string& name, const std::string& build_tree_path);

// `name` in the installed libexec/rpclab folder (helpers that are not
// programs to run, such as the user-mode-linux shim), or "" when absent.
std::string installed_helper(const std::string& name);

}  // namespace rpclab
