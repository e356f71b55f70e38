# Writes OUTPUT, the definitions of src/common/version.h, from VERSION and
# the git commit of SOURCE_DIR. Run at every build (cmake -P); the file is
# rewritten only when its text changes, so only that object is compiled
# again when the commit does.
execute_process(COMMAND git -C "${SOURCE_DIR}" describe --always --dirty
                OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE
                RESULT_VARIABLE status ERROR_QUIET)
if(NOT status EQUAL 0 OR commit STREQUAL "")
  set(commit "unknown")  # not a git checkout (a tarball), or no git
endif()
set(text "// Made by cmake/write_version.cmake at build time; never committed.
#include \"common/version.h\"

namespace rpclab {
const char* version() { return \"${VERSION}\"; }
const char* git_commit() { return \"${commit}\"; }
}  // namespace rpclab
")
if(EXISTS "${OUTPUT}")
  file(READ "${OUTPUT}" old)
  if(old STREQUAL text)
    return()
  endif()
endif()
file(WRITE "${OUTPUT}" "${text}")
