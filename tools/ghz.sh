#!/bin/sh
# Builds ghz (github.com/bojand/ghz, a gRPC load generator), pinned, into
# OUT/ghz: `rpclab speed` runs it against rpclab's own gRPC server in the
# same run, and the calibration table puts its p50 beside rpclab's gRPC
# row (docs/speed.md). Its modules come from the Go module proxy into
# OUT/go (nothing goes to the user's home); GOTOOLCHAIN=local, as for the
# gRPC-Go adapter: the go found is used as it is (Debian 12's 1.19 and
# newer ones). A build that fails does not stop rpclab's: it leaves
# OUT/ghz.build-failed saying why, and the speed run skips the ghz cells
# with that reason. With RPCLAB_REQUIRE_ALL_PARTS=1 (CI, whose machine
# builds every part) it stops the build instead, naming ghz.
#
#   tools/ghz.sh OUT     (run by every build: the rpclab_ghz target)
set -u
# A part that did not build: fatal where every part must build.
failed() {
  if [ "${RPCLAB_REQUIRE_ALL_PARTS:-}" = 1 ]; then
    echo "rpclab: the build part ghz failed, and RPCLAB_REQUIRE_ALL_PARTS=1 asks for every part: $(head -n 1 "$out/ghz.build-failed")" >&2
    exit 1
  fi
  exit 0
}
# v0.117.0: the newest that Debian 12's Go 1.19 builds (v0.120.0 pulls
# prometheus/common v0.53, which needs Go 1.20: strings.CutPrefix); built
# and run with Go 1.19.13 and 1.26 alike (2026-11-29).
GHZ_VERSION=v0.117.0
out=${1:?usage: tools/ghz.sh OUT_DIR}
mkdir -p "$out"
out=$(cd "$out" && pwd)
stamp="$out/ghz.version"
if [ -x "$out/ghz" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$GHZ_VERSION" ]; then
  exit 0
fi
rm -f "$out/ghz.build-failed"
if ! command -v go >/dev/null 2>&1; then
  echo "no go toolchain (apt-get install golang-go)" > "$out/ghz.build-failed"
  echo "rpclab: ghz not built: no go toolchain; the speed run skips its cells" >&2
  failed
fi
log="$out/ghz.build.log"
if env GOTOOLCHAIN=local GOFLAGS="-mod=mod -modcacherw" CGO_ENABLED=0 GOPATH="$out/go" GOMODCACHE="$out/go/mod" \
    GOCACHE="$out/go/cache" GOBIN="$out" go install -trimpath "github.com/bojand/ghz/cmd/ghz@$GHZ_VERSION" \
    > "$log" 2>&1; then
  echo "$GHZ_VERSION" > "$stamp"
  echo "rpclab: ghz $GHZ_VERSION built into $out/ghz"
else
  { echo "go install github.com/bojand/ghz/cmd/ghz@$GHZ_VERSION failed ($(go version 2>&1)):"; tail -n 5 "$log"; } \
    > "$out/ghz.build-failed"
  echo "rpclab: ghz did not build (see $out/ghz.build-failed); the speed run skips its cells" >&2
  failed
fi
exit 0
