// The options LeakSanitizer starts with in every program of an instrumented
// build (`make SANITIZE=address,undefined`, the fuzzers), linked into each
// executable by the top CMakeLists.txt; LSAN_OPTIONS still overrides them.
//
// intercept_tls_get_addr=0: up to LLVM 16 (Debian 12 has clang 14) the
// runtime's __tls_get_addr interceptor takes a dynamic TLS block that
// starts 16 bytes into a page for glibc 2.19's header, and reads the two
// words before it as the block's start and size. Since glibc 2.25 there is
// no such header: a block that lands there by chance gives the leak check
// a range to scan that is no memory, and its tracer dies ("Tracer caught
// signal 11", LeakSanitizer has encountered a fatal error) after a program
// did all its work. CI of 2026-12-07 failed so: an rpclab-client of the
// gRPC callback-server test made its 1,000 calls and then exited 1
// (tests/rpc/next_test.cc). Without the interceptor the check still scans
// every thread's static TLS, and through glibc's vector of dynamic blocks
// (a heap block it reaches from there) the dynamic ones too.
extern "C" const char* __lsan_default_options() { return "intercept_tls_get_addr=0"; }
