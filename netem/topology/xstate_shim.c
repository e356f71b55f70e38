/* rpclab-uml-xstate.so: LD_PRELOAD shim that lets Debian's linux.uml (6.1)
 * boot on hosts with a large XSTATE area (AVX-512, AMX: Sapphire Rapids).
 *
 * UML saves and restores each guest thread's FPU state with
 * PTRACE_GETREGSET/SETREGSET NT_X86_XSTATE and a buffer sized for the
 * features it knows (832 bytes: legacy area, header, AVX). Newer host
 * kernels reject a SETREGSET shorter than the full XSTATE size with EFAULT,
 * and UML panics: "userspace - ptrace set fp regs failed, errno = 14".
 *
 * Here every NT_X86_XSTATE request goes through a 64 KiB buffer: GETREGSET
 * reads the full state and hands back the caller's prefix; SETREGSET reads
 * the full state, overlays the caller's prefix and writes the full size.
 * The components beyond the prefix (AVX-512, AMX) are therefore not saved
 * per guest thread, so the guest must not use them: run_in_guest sets
 * GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX512F,... for the guest's programs.
 * All other ptrace requests go to the real ptrace() untouched. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <stdarg.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

#define FULL_XSTATE_BYTES 65536

static long raw_ptrace(long request, pid_t pid, void *addr, void *data) {
  return syscall(SYS_ptrace, request, pid, addr, data);
}

static long xstate_regset(long request, pid_t pid, void *addr, struct iovec *caller) {
  static __thread unsigned char full[FULL_XSTATE_BYTES] __attribute__((aligned(64)));
  struct iovec iov = {full, sizeof full};
  if (raw_ptrace(PTRACE_GETREGSET, pid, addr, &iov) < 0) return -1;
  size_t n = caller->iov_len < iov.iov_len ? caller->iov_len : iov.iov_len;
  if (request == PTRACE_GETREGSET) {
    memcpy(caller->iov_base, full, n);
    caller->iov_len = n;
    return 0;
  }
  memcpy(full, caller->iov_base, n);
  return raw_ptrace(PTRACE_SETREGSET, pid, addr, &iov);
}

long ptrace(enum __ptrace_request request, ...) {
  va_list ap;
  va_start(ap, request);
  pid_t pid = va_arg(ap, pid_t);
  void *addr = va_arg(ap, void *);
  void *data = va_arg(ap, void *);
  va_end(ap);
  if ((request == PTRACE_GETREGSET || request == PTRACE_SETREGSET) && (long)addr == NT_X86_XSTATE && data)
    return xstate_regset(request, pid, addr, (struct iovec *)data);
  static long (*real_ptrace)(enum __ptrace_request, ...);
  if (!real_ptrace) real_ptrace = (long (*)(enum __ptrace_request, ...))dlsym(RTLD_NEXT, "ptrace");
  return real_ptrace(request, pid, addr, data);
}
