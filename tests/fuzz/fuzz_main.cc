// libFuzzer's entry point for one target. CMake compiles this file once per
// row of kFuzzTargets, with RPCLAB_FUZZ_ENTRY naming that row's function.
#include "fuzz_targets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return rpclab::fuzz::RPCLAB_FUZZ_ENTRY(data, size);
}
