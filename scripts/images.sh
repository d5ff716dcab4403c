#!/usr/bin/env bash
# Builds svc's own images into the Docker engine that DOCKER_HOST names. No image registry is
# reachable from svc's machines, so nothing is pulled: every image is made from local files.
#   local/busybox         Debian's static busybox plus a symlink per applet (steps of engine tests)
#   svc/git-base:bookworm a minimal Debian bookworm root file system with git (debootstrap, ~40 s)
#   svc/git               svc/git-base plus svc's clone script (images/git/svc-clone) as entrypoint,
#                         and a tmate bundle at /opt/svc/tmate (images/git/tmate-bundle.sh)
#   svc/placeholder       images/placeholder/placeholder.c, built static, as /bin/sh: what a Kubernetes
#                         stage's containers run until their step starts (svc runner kubernetes)
#   svc/svc               svc itself (tagged latest and with package.json's version), as images/svc/
#                         defines it: a few Debian packages, the Node binary of the pinned npm package
#                         \`node\`, the bundle and the web UI, the few node_modules the bundle leaves out,
#                         user svc, \`svc\` as entrypoint. Needs \`npm ci\` (which builds dist/) first;
#                         skipped with a note otherwise. The Dockerfile builds the same tree.
# An image that exists is kept: local/busybox, svc/git and svc/placeholder carry a hash of their inputs as the label
# io.svc.inputs and are rebuilt (in about a second) only when those change; the slow base is built
# once per engine. Missing host tools (busybox-static, debootstrap, gcc) are installed with apt.
# Usage: npm run images [-- --force] [-- --only svc/svc]   (--force rebuilds; --only builds one and
# what it is made from)
# Requirements, checked first: root (debootstrap, apt and the images' file owners), a Debian host (apt-get,
# dpkg, Debian's package repositories reachable), the docker command and an engine (DOCKER_HOST).
# Settings: SVC_DEBIAN_MIRROR (default http://deb.debian.org/debian).
set -Eeuo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
MIRROR=${SVC_DEBIAN_MIRROR:-http://deb.debian.org/debian}
SUITE=bookworm
BUSYBOX=local/busybox:latest
GIT_BASE=svc/git-base:$SUITE
GIT=svc/git:latest
PLACEHOLDER=svc/placeholder:latest
SVC=svc/svc
ONLY=
IMAGE_PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
FORCE=0

log() { echo "[images] $*"; }
fail() {
  echo "[images] error: $*" >&2
  exit 1
}
trap 'fail "command failed (line $LINENO): $BASH_COMMAND"' ERR

WORK_DIRS=() CONTAINERS=()
cleanup() {
  [ ${#CONTAINERS[@]} -eq 0 ] || docker rm -f "${CONTAINERS[@]}" >/dev/null 2>&1 || true
  local dir
  for dir in "${WORK_DIRS[@]}"; do
    # A debootstrap that failed or was stopped leaves its chroot's /proc and /sys mounted: rm -rf
    # would walk into them (and fail on every file) and leave the folder behind.
    awk -v dir="$dir/" 'index($2, dir) == 1 { print $2 }' /proc/mounts | sort -r | while read -r mount; do
      umount -l "$mount" 2>/dev/null || true
    done
    rm -rf "$dir"
  done
}
trap cleanup EXIT
# Sets the variable named $1 to a fresh directory that is removed when the script ends. Not
# `dir=$(work_dir)`: a command substitution runs in a subshell, whose WORK_DIRS the cleanup never sees.
work_dir() { # <variable>
  local made
  made=$(mktemp -d "${TMPDIR:-/var/tmp}/svc-image.XXXXXX")
  WORK_DIRS+=("$made")
  printf -v "$1" '%s' "$made"
}

now_ms() { echo $(($(date +%s%N) / 1000000)); }
since() { # <start ms>: prints seconds elapsed, with one decimal
  local ms=$(($(now_ms) - $1))
  printf '%d.%d s' $((ms / 1000)) $((ms % 1000 / 100))
}

APT_UPDATED=0
apt_install() { # <package...>
  [ "$(id -u)" -eq 0 ] || fail "installing $* needs root; install it yourself and run again"
  local out
  work_dir out && out=$out/apt.log
  if [ $APT_UPDATED -eq 0 ]; then
    apt-get update -q >"$out" 2>&1 || { cat "$out" >&2; fail "apt-get update failed (output above)"; }
    APT_UPDATED=1
  fi
  log "installing $* with apt"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$@" >"$out" 2>&1 ||
    { cat "$out" >&2; fail "apt-get install $* failed (output above)"; }
}

image_exists() { docker image inspect "$1" >/dev/null 2>&1; }
image_label() { # <image> <label>: prints the label's value, empty when the image or label is missing
  docker image inspect -f "{{ index .Config.Labels \"$2\" }}" "$1" 2>/dev/null | sed 's/^<no value>$//' || true
}
image_id() { docker image inspect -f '{{ .Id }}' "$1" 2>/dev/null || true; }
image_size() { docker image inspect -f '{{ .Size }}' "$1" | awk '{ printf "%.1f MB", $1 / 1000000 }'; }
# Removes an image replaced by a rebuild, unless something still uses it.
drop_replaced() { # <old id> <new image>
  [ -n "$1" ] && [ "$1" != "$(image_id "$2")" ] || return 0
  docker image rm "$1" >/dev/null 2>&1 || true
}
hash_of() { cat "$@" | sha256sum | cut -c1-16; }

check_engine() {
  command -v docker >/dev/null || fail "the docker command is missing (apt-get install docker.io)"
  if [ -z "${DOCKER_HOST:-}" ]; then
    log "DOCKER_HOST is not set: using the docker command's default engine"
  fi
  docker info >/dev/null 2>&1 ||
    fail "cannot reach the Docker engine at ${DOCKER_HOST:-the default socket} (for svc's private engine: source <(.ci/services.sh start))"
}

busybox_binary() { # prints the path of a statically linked busybox, installing busybox-static when missing
  if ! dpkg-query -W -f='${Status}' busybox-static 2>/dev/null | grep -q 'install ok installed'; then
    apt_install busybox-static
  fi
  local bin
  bin=$(dpkg-query -L busybox-static | grep -E '/bin/busybox$' | head -n 1)
  [ -x "$bin" ] || fail "busybox-static is installed but its /bin/busybox is missing"
  if ldd "$bin" >/dev/null 2>&1; then fail "$bin is dynamically linked: it cannot run in an empty image"; fi
  echo "$bin"
}

build_busybox() {
  local bin inputs
  bin=$(busybox_binary)
  inputs=$(hash_of "$bin" "$ROOT"/images/busybox/passwd "$ROOT"/images/busybox/group)
  if [ $FORCE -eq 0 ] && [ "$(image_label $BUSYBOX io.svc.inputs)" = "$inputs" ]; then
    log "$BUSYBOX: present, skipping"
    return
  fi
  local start old dir applets=0
  start=$(now_ms)
  old=$(image_id $BUSYBOX)
  log "$BUSYBOX: building from $bin ($("$bin" | head -n 1 | cut -d' ' -f1-2))"
  work_dir dir
  mkdir -p "$dir"/{bin,sbin,usr/bin,usr/sbin,etc,root,tmp,var/www,proc,sys,dev}
  chmod 1777 "$dir/tmp"
  cp "$bin" "$dir/bin/busybox"
  cp "$ROOT"/images/busybox/passwd "$ROOT"/images/busybox/group "$dir/etc/"
  # --list-full names every applet with its usual directory (bin/sh, usr/bin/wget, sbin/ip, ...).
  while read -r applet; do
    [ "$applet" != bin/busybox ] || continue
    mkdir -p "$dir/$(dirname "$applet")"
    ln -s /bin/busybox "$dir/$applet"
    applets=$((applets + 1))
  done < <("$bin" --list-full)
  tar --numeric-owner --owner=0 --group=0 -C "$dir" -c . |
    docker import --change 'CMD ["sh"]' --change "ENV PATH=$IMAGE_PATH" \
      --change "LABEL io.svc.inputs=$inputs" - $BUSYBOX >/dev/null
  drop_replaced "$old" $BUSYBOX
  log "$BUSYBOX: built with $applets applets, $(image_size $BUSYBOX), in $(since "$start")"
}

build_git_base() {
  if [ $FORCE -eq 0 ] && image_exists $GIT_BASE; then
    log "$GIT_BASE: present, skipping"
    return
  fi
  command -v debootstrap >/dev/null || apt_install debootstrap
  [ "$(id -u)" -eq 0 ] || fail "debootstrap needs root"
  local start old dir logfile
  start=$(now_ms)
  old=$(image_id $GIT_BASE)
  work_dir dir
  work_dir logfile && logfile=$logfile/debootstrap.log
  log "$GIT_BASE: debootstrap --variant=minbase --include=git,ca-certificates $SUITE from $MIRROR (about 40 s)"
  if ! debootstrap --variant=minbase --include=git,ca-certificates "$SUITE" "$dir/rootfs" "$MIRROR" \
    >"$logfile" 2>&1; then
    tail -n 30 "$logfile" >&2
    fail "debootstrap failed (last lines above)"
  fi
  log "$GIT_BASE: root file system ready after $(since "$start"); importing"
  # Package caches are of no use in the image and make up a fifth of its size.
  rm -rf "$dir"/rootfs/var/cache/apt/archives/*.deb "$dir"/rootfs/var/lib/apt/lists/*
  tar --numeric-owner -C "$dir/rootfs" -c . |
    docker import --change "ENV PATH=$IMAGE_PATH" - $GIT_BASE >/dev/null
  drop_replaced "$old" $GIT_BASE
  log "$GIT_BASE: built, $(image_size $GIT_BASE), in $(since "$start")"
}

build_git() {
  local inputs bundle
  command -v tmate >/dev/null || apt_install tmate
  inputs=$(hash_of "$ROOT"/images/git/svc-clone "$ROOT"/images/git/tmate-bundle.sh "$(command -v tmate)" <(image_id $GIT_BASE))
  if [ $FORCE -eq 0 ] && [ "$(image_label $GIT io.svc.inputs)" = "$inputs" ]; then
    log "$GIT: present, skipping"
    return
  fi
  local start old cid
  start=$(now_ms)
  old=$(image_id $GIT)
  log "$GIT: adding images/git/svc-clone to $GIT_BASE"
  # docker create + cp + commit needs no image builder (none is installed with the engine here).
  cid=$(docker create $GIT_BASE /bin/true)
  CONTAINERS+=("$cid")
  tar --owner=0 --group=0 --mode=0755 -C "$ROOT/images/git" -c svc-clone | docker cp - "$cid:/usr/local/bin/"
  # tmate for debug builds (SVC_SHELLSHARE_ENABLED): a bundle that runs in any step image.
  work_dir bundle
  sh "$ROOT/images/git/tmate-bundle.sh" "$bundle/opt/svc/tmate"
  tar --numeric-owner --owner=0 --group=0 -C "$bundle" -c opt | docker cp - "$cid:/"
  docker commit --change 'ENTRYPOINT ["/usr/local/bin/svc-clone"]' --change 'CMD []' \
    --change 'WORKDIR /' --change "LABEL io.svc.inputs=$inputs" "$cid" $GIT >/dev/null
  drop_replaced "$old" $GIT
  log "$GIT: built in $(since "$start")"
}

build_placeholder() {
  local source=$ROOT/images/placeholder/placeholder.c inputs
  inputs=$(hash_of "$source")
  if [ $FORCE -eq 0 ] && [ "$(image_label $PLACEHOLDER io.svc.inputs)" = "$inputs" ]; then
    log "$PLACEHOLDER: present, skipping"
    return
  fi
  if ! command -v gcc >/dev/null || ! dpkg-query -W -f='${Status}' libc6-dev 2>/dev/null | grep -q 'install ok installed'; then
    apt_install gcc libc6-dev
  fi
  local start old dir
  start=$(now_ms)
  old=$(image_id $PLACEHOLDER)
  work_dir dir
  mkdir -p "$dir/bin" "$dir/usr/bin"
  gcc -static -Os -s -o "$dir/bin/sh" "$source"
  # Shells and env are what pod specs name as commands; each one only waits.
  ln -s sh "$dir/bin/bash"
  ln -s sh "$dir/bin/ash"
  ln -s ../../bin/sh "$dir/usr/bin/env"
  tar --numeric-owner --owner=0 --group=0 -C "$dir" -c . |
    docker import --change 'ENTRYPOINT ["/bin/sh"]' --change "LABEL io.svc.inputs=$inputs" - $PLACEHOLDER >/dev/null
  drop_replaced "$old" $PLACEHOLDER
  log "$PLACEHOLDER: built, $(image_size $PLACEHOLDER), in $(since "$start")"
}

# svc's own image: the tree images/svc/rootfs.sh makes (the Dockerfile's last stage is the same tree),
# imported with images/svc/image-config.txt's settings. No base image, no registry.
build_svc() {
  local node=$ROOT/node_modules/node/bin/node
  if [ ! -f "$ROOT/dist/bundle/main.js" ] || [ ! -x "$node" ]; then
    # Asked for by name (--only svc/svc, as the cluster tests do), a skip would pass for a build.
    [ "$ONLY" != "$SVC" ] || fail "$SVC: dist/bundle/main.js or node_modules/node/bin/node is missing (run npm ci first)"
    log "$SVC: skipped: dist/ or node_modules/ is missing (run npm ci first, then npm run images)"
    return
  fi
  local version inputs path
  version=$("$node" -p "require('$ROOT/package.json').version")
  inputs=$( (
    sha256sum "$ROOT/package.json" "$ROOT/package-lock.json" "$node" "$ROOT"/images/svc/* | cut -c1-64
    cd "$ROOT" && grep -v -e '^#' -e '^$' images/svc/app-files.txt | while read -r path; do
      find "$path" -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum
    done
  ) | sha256sum | cut -c1-16)
  if [ $FORCE -eq 0 ] && [ "$(image_label $SVC:latest io.svc.inputs)" = "$inputs" ] && image_exists "$SVC:$version"; then
    log "$SVC: present, skipping"
    return
  fi
  command -v strip >/dev/null || apt_install binutils
  local start old dir line
  local changes=()
  start=$(now_ms)
  old=$(image_id $SVC:latest)
  work_dir dir
  log "$SVC: assembling svc $version (images/svc/rootfs.sh)"
  bash "$ROOT/images/svc/rootfs.sh" "$ROOT" "$dir/rootfs" >/dev/null
  while read -r line; do changes+=(--change "$line"); done < <(grep -v -e '^#' -e '^$' "$ROOT/images/svc/image-config.txt")
  tar --numeric-owner -C "$dir/rootfs" -c . |
    docker import "${changes[@]}" --change "LABEL io.svc.inputs=$inputs" \
      --change "LABEL org.opencontainers.image.version=$version" - "$SVC:latest" >/dev/null
  docker tag "$SVC:latest" "$SVC:$version"
  drop_replaced "$old" "$SVC:latest"
  log "$SVC: built as $SVC:latest and $SVC:$version, $(image_size $SVC:latest), in $(since "$start")"
}

while [ $# -gt 0 ]; do
  case $1 in
  --force) FORCE=1 ;;
  --only)
    [ $# -ge 2 ] || fail "--only needs an image name"
    ONLY=$2
    shift
    ;;
  *) fail "unknown argument $1 (usage: npm run images [-- --force] [-- --only IMAGE])" ;;
  esac
  shift
done

# Every requirement at once, before anything is built: a build that fails half-way teaches less.
check_host() {
  local missing=()
  [ "$(id -u)" -eq 0 ] || missing+=("root (run it as root: it installs Debian packages and owns the images' files)")
  for tool in apt-get dpkg dpkg-deb; do
    command -v $tool >/dev/null || missing+=("$tool (a Debian host: the images are made of Debian packages)")
  done
  [ ${#missing[@]} -eq 0 ] && return
  printf '[images] error: missing: %s\n' "${missing[@]}" >&2
  exit 1
}

total=$(now_ms)
check_host
check_engine
case $ONLY in
'')
  build_busybox
  build_git_base
  build_git
  build_placeholder
  build_svc
  ;;
local/busybox) build_busybox ;;
svc/git-base) build_git_base ;;
svc/git) build_git_base && build_git ;;
svc/placeholder) build_placeholder ;;
svc/svc) build_svc ;;
*) fail "unknown image $ONLY (local/busybox, svc/git-base, svc/git, svc/placeholder, svc/svc)" ;;
esac
log "done in $(since "$total")"
