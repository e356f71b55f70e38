// RPCLAB_ASAN is 1 in a build with AddressSanitizer, whichever compiler made
// it: gcc says so with __SANITIZE_ADDRESS__, clang (the sanitizer and fuzz
// build, `make SANITIZE=...`) only through __has_feature.
#pragma once

#if defined(__SANITIZE_ADDRESS__)
#define RPCLAB_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define RPCLAB_ASAN 1
#endif
#endif
#ifndef RPCLAB_ASAN
#define RPCLAB_ASAN 0
#endif
