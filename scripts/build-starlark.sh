#!/usr/bin/env bash
# Rebuilds vendor/starlark/ from svc's Go evaluator (src/pipeline/languages/starlark/go) and the
# Debian packages golang-go and golang-starlark-dev, offline:
#   starlark.wasm   the evaluator, go.starlark.net included, built for GOOS=js GOARCH=wasm
#   wasm_exec.js    the Go runtime's JavaScript half, copied from the same Go installation
#
#   bash scripts/build-starlark.sh           rebuild the vendored files
#   bash scripts/build-starlark.sh --check   build into a temporary directory and compare; exit 1
#                                            if the vendored files are not what the sources give
#
# The build is reproducible: no build id, no VCS stamp, paths trimmed, a fresh build cache, no
# user Go settings. The same Go and go.starlark.net versions give the same bytes (see
# vendor/starlark/README.md for the versions the vendored files were built with).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SOURCE=src/pipeline/languages/starlark/go
VENDOR=vendor/starlark
DEBIAN_GOPATH=/usr/share/gocode
FILES=(starlark.wasm wasm_exec.js)

fail() {
  echo "build-starlark: $*" >&2
  exit 1
}

mode=build
case "${1:-}" in
  "") ;;
  --check) mode=check ;;
  *) fail "usage: bash scripts/build-starlark.sh [--check]" ;;
esac

command -v go >/dev/null || fail "go is not installed (Debian: apt-get install golang-go golang-starlark-dev)"
[ -d "$DEBIAN_GOPATH/src/go.starlark.net/starlark" ] ||
  fail "go.starlark.net is not in $DEBIAN_GOPATH (Debian: apt-get install golang-starlark-dev)"

# versions: the toolchain and library the bytes depend on, for messages.
versions() {
  local starlark
  starlark=$(dpkg-query -W -f '${Version}' golang-starlark-dev 2>/dev/null || echo unknown)
  echo "$(go env GOVERSION), golang-starlark-dev $starlark"
}

# build <directory>: writes the files there.
build() {
  local out=$1 scratch
  scratch=$(mktemp -d)
  # Package main is built from the file list ("command-line-arguments"), so the checkout's
  # location never reaches the binary; HOME and GOENV point away from any user Go settings.
  (
    cd "$ROOT/$SOURCE"
    env -i PATH="$PATH" HOME="$scratch" GOENV=off GOCACHE="$scratch/cache" GOTMPDIR="$scratch" \
      GO111MODULE=off GOPATH="$DEBIAN_GOPATH" GOPROXY=off GOFLAGS="-trimpath -buildvcs=false" \
      CGO_ENABLED=0 GOOS=js GOARCH=wasm \
      go build -ldflags=-buildid= -o "$out/starlark.wasm" ./*.go
  ) || {
    rm -rf "$scratch"
    fail "go build failed"
  }
  rm -rf "$scratch"
  # Go keeps its JavaScript glue in misc/wasm up to 1.23 and in lib/wasm from 1.24 on.
  local goroot glue
  goroot=$(go env GOROOT)
  for glue in "$goroot/misc/wasm/wasm_exec.js" "$goroot/lib/wasm/wasm_exec.js" ""; do
    [ -z "$glue" ] || [ -f "$glue" ] && break
  done
  [ -n "$glue" ] || fail "wasm_exec.js is in neither $goroot/misc/wasm nor $goroot/lib/wasm"
  cp "$glue" "$out/wasm_exec.js"
  chmod 0644 "$out/starlark.wasm" "$out/wasm_exec.js" # data, not programs: the same mode in git everywhere
}

if [ "$mode" = build ]; then
  mkdir -p "$ROOT/$VENDOR"
  build "$ROOT/$VENDOR"
  (cd "$ROOT/$VENDOR" && sha256sum "${FILES[@]}")
  echo "build-starlark: built with $(versions)"
  exit 0
fi

fresh=$(mktemp -d)
trap 'rm -rf "$fresh"' EXIT
build "$fresh"
mismatch=0
for file in "${FILES[@]}"; do
  [ -f "$ROOT/$VENDOR/$file" ] || {
    echo "build-starlark: $VENDOR/$file is missing" >&2
    mismatch=1
    continue
  }
  want=$(sha256sum <"$fresh/$file" | cut -d' ' -f1)
  have=$(sha256sum <"$ROOT/$VENDOR/$file" | cut -d' ' -f1)
  if [ "$want" != "$have" ]; then
    echo "build-starlark: $VENDOR/$file differs from what $SOURCE builds (vendored $have, built $want)" >&2
    mismatch=1
  fi
done
if [ "$mismatch" = 1 ]; then
  echo "build-starlark: built with $(versions); run bash scripts/build-starlark.sh and commit $VENDOR," \
    "or build with the versions named in $VENDOR/README.md" >&2
  exit 1
fi
echo "build-starlark: $VENDOR matches $SOURCE ($(versions))"
