#!/bin/sh
# Can this machine's Rust toolchain build the tonic adapter? Exit 0 if so;
# otherwise exit 1 and say why on stdout, in one line. A toolchain too old
# (or none) is a fact of the machine, not of the adapter: the build
# (Makefile) stops with this line, the presets skip the row with it, and
# the CMake build does not fail even where every part must build
# (RPCLAB_REQUIRE_ALL_PARTS=1; tests/adapters/CMakeLists.txt). A compile
# error with a new enough rustc is a real failure.
# MSRV: tonic 0.14's rust-version (Cargo.toml); Debian 12's rustc is 1.63.
MSRV=1.88
CARGO=${CARGO:-cargo}
RUSTC=${RUSTC:-rustc}
if ! command -v "$CARGO" >/dev/null 2>&1; then
  echo "no cargo on PATH: tonic 0.14 needs Rust $MSRV or newer (rustup.rs; Debian 12's rustc is 1.63)"
  exit 1
fi
have=$("$RUSTC" --version 2>/dev/null | awk '{print $2}')
if [ -z "$have" ]; then
  echo "cargo is on PATH but rustc does not run: tonic 0.14 needs Rust $MSRV or newer (rustup.rs)"
  exit 1
fi
# Numeric version order, a pre-release (1.90.0-nightly) as its release.
older=$(printf '%s\n%s\n' "${have%%-*}" "$MSRV" | sort -t. -k1,1n -k2,2n -k3,3n | head -n 1)
if [ "$older" != "$MSRV" ] && [ "${have%%-*}" != "$MSRV" ]; then
  echo "rustc $have is older than $MSRV, which tonic 0.14 needs (rustup.rs; Debian 12's rustc is 1.63)"
  exit 1
fi
exit 0
