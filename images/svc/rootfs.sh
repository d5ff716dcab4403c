#!/usr/bin/env bash
# The root file system of svc's image, svc/svc: the one definition that scripts/images.sh (no registry:
# `docker import`s it) and the Dockerfile (its last stage is this tree on `scratch`) share.
#   Debian packages  images/svc/packages.txt, unpacked (C/C++ runtimes, CA certificates, busybox)
#   Node             the binary of the npm package `node` pinned in package-lock.json, stripped
#   /opt/svc         images/svc/app-files.txt from ROOT, and node_modules per images/svc/modules.ts
#   users            root and svc (uid 10001, home /var/lib/svc, where svc keeps its data)
# Usage: images/svc/rootfs.sh ROOT DEST — ROOT is svc's source tree after `npm ci` (which builds dist/);
# DEST, a folder that must not exist yet, receives the tree. Needs apt-get (Debian's repositories),
# dpkg-deb and strip (binutils); runs as root (files are owned by root, /var/lib/svc by svc).
set -Eeuo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
fail() {
  echo "[rootfs] error: $*" >&2
  exit 1
}
trap 'fail "command failed (line $LINENO): $BASH_COMMAND"' ERR
[ $# -eq 2 ] || fail "usage: images/svc/rootfs.sh ROOT DEST"
ROOT=$(cd "$1" && pwd)
DEST=$2
[ ! -e "$DEST" ] || fail "$DEST exists already: give a new folder"
[ "$(id -u)" -eq 0 ] || fail "run as root: the image's files belong to root and /var/lib/svc to uid 10001"
for tool in apt-get dpkg-deb strip; do
  command -v $tool >/dev/null || fail "$tool is missing (Debian: apt-get install ${tool/strip/binutils})"
done
NODE=$ROOT/node_modules/node/bin/node
for needed in "$NODE" "$ROOT/dist/bundle/main.js"; do
  [ -e "$needed" ] || fail "$needed is missing: run npm ci in $ROOT first"
done
lines() { grep -v -e '^#' -e '^$' "$1"; }

DEBS=$(mktemp -d "${TMPDIR:-/var/tmp}/svc-rootfs-debs.XXXXXX")
trap 'rm -rf "$DEBS"' EXIT
mapfile -t PACKAGES < <(lines "$HERE/packages.txt")
# apt-get download needs the package lists; a fresh build container has none yet.
if ! (cd "$DEBS" && apt-get download -q "${PACKAGES[@]}" >/dev/null 2>&1); then
  apt-get update -q >/dev/null || fail "apt-get update failed: Debian's repositories must be reachable"
  (cd "$DEBS" && apt-get download -q "${PACKAGES[@]}" >/dev/null) || fail "apt-get download ${PACKAGES[*]} failed"
fi
mkdir -p "$DEST"
for deb in "$DEBS"/*.deb; do dpkg-deb -x "$deb" "$DEST"; done
# Documentation and iconv's converters (nothing in the image uses iconv): a third of the packages.
rm -rf "$DEST"/usr/share/{doc,man,info,lintian,bug,gcc,gdb} "$DEST"/usr/lib/x86_64-linux-gnu/gconv
# What update-ca-certificates would write: one bundle of every certificate the package carries.
mkdir -p "$DEST/etc/ssl/certs"
cat "$DEST"/usr/share/ca-certificates/*/*.crt >"$DEST/etc/ssl/certs/ca-certificates.crt"
# busybox's applets where a shell expects them (sh, env, ls, wget, …), unless a package put a file there.
BUSYBOX=$DEST/bin/busybox
[ -x "$BUSYBOX" ] || fail "busybox-static left no /bin/busybox"
while read -r applet; do
  [ -e "$DEST/$applet" ] || [ -L "$DEST/$applet" ] || { mkdir -p "$DEST/$(dirname "$applet")" && ln -s /bin/busybox "$DEST/$applet"; }
done < <("$BUSYBOX" --list-full)

mkdir -p "$DEST/etc" "$DEST/tmp" "$DEST/var/lib/svc" "$DEST/usr/local/bin"
chmod 1777 "$DEST/tmp"
printf 'root:x:0:0:root:/root:/bin/sh\nsvc:x:10001:10001:svc:/var/lib/svc:/sbin/nologin\n' >"$DEST/etc/passwd"
printf 'root:x:0:\nsvc:x:10001:\n' >"$DEST/etc/group"
# Without it glibc asks DNS before /etc/hosts, which Docker and Kubernetes write.
printf 'passwd: files\ngroup: files\nhosts: files dns\n' >"$DEST/etc/nsswitch.conf"
chown 10001:10001 "$DEST/var/lib/svc"

APP=$DEST/opt/svc
mkdir -p "$APP"
while read -r path; do
  [ -e "$ROOT/$path" ] || fail "$ROOT/$path (images/svc/app-files.txt) is missing: run npm ci in $ROOT first"
  mkdir -p "$APP/$(dirname "$path")"
  cp -a "$ROOT/$path" "$APP/$path"
done < <(lines "$HERE/app-files.txt")
"$NODE" "$HERE/modules.ts" "$ROOT" "$APP" "$DEST/usr/lib"
# The debugging symbols are a tenth of Node's binary and most of libjsonnet's (18 MB of 19); stack
# traces keep their JavaScript frames.
strip -o "$DEST/usr/local/bin/node" "$NODE"
find "$DEST/usr/lib" -maxdepth 1 -type f -name '*.so*' -exec strip --strip-unneeded {} +
find "$APP/node_modules" -type f -name '*.node' -exec strip --strip-unneeded {} +
chmod 0755 "$APP/dist/bundle/main.js"
ln -s /opt/svc/dist/bundle/main.js "$DEST/usr/local/bin/svc"
chown -R 0:0 "$APP" "$DEST/usr/local/bin"
echo "[rootfs] $(du -sh "$DEST" | cut -f1) in $DEST (Node $("$NODE" --version), $(du -sh "$APP/node_modules" | cut -f1) of node_modules)"
