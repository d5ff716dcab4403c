#!/usr/bin/env bash
# Builds svc's own images into the Docker engine that DOCKER_HOST names. No image registry is
# reachable from svc's machines, so nothing is pulled: every image is made from local files.
#   local/busybox         Debian's static busybox plus a symlink per applet (steps of engine tests)
#   svc/git-base:bookworm a minimal Debian bookworm root file system with git (debootstrap, ~40 s)
#   svc/git               svc/git-base plus svc's clone script (images/git/svc-clone) as entrypoint
# An image that exists is kept: local/busybox and svc/git carry a hash of their inputs as the label
# io.svc.inputs and are rebuilt (in about a second) only when those change; the slow base is built
# once per engine. Missing host tools (busybox-static, debootstrap) are installed with apt.
# Usage: npm run images [-- --force]   (--force rebuilds all three)
# Settings: SVC_DEBIAN_MIRROR (default http://deb.debian.org/debian).
set -Eeuo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
MIRROR=${SVC_DEBIAN_MIRROR:-http://deb.debian.org/debian}
SUITE=bookworm
BUSYBOX=local/busybox:latest
GIT_BASE=svc/git-base:$SUITE
GIT=svc/git:latest
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
  [ ${#WORK_DIRS[@]} -eq 0 ] || rm -rf "${WORK_DIRS[@]}"
}
trap cleanup EXIT
work_dir() { # prints a fresh directory that is removed when the script ends
  local dir
  dir=$(mktemp -d "${TMPDIR:-/var/tmp}/svc-image.XXXXXX")
  WORK_DIRS+=("$dir")
  echo "$dir"
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
  out=$(work_dir)/apt.log
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
  dir=$(work_dir)
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
  dir=$(work_dir)
  logfile=$(work_dir)/debootstrap.log
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
  local inputs
  inputs=$(hash_of "$ROOT"/images/git/svc-clone <(image_id $GIT_BASE))
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
  docker commit --change 'ENTRYPOINT ["/usr/local/bin/svc-clone"]' --change 'CMD []' \
    --change 'WORKDIR /' --change "LABEL io.svc.inputs=$inputs" "$cid" $GIT >/dev/null
  drop_replaced "$old" $GIT
  log "$GIT: built in $(since "$start")"
}

for arg in "$@"; do
  case $arg in
  --force) FORCE=1 ;;
  *) fail "unknown argument $arg (usage: npm run images [-- --force])" ;;
  esac
done

total=$(now_ms)
check_engine
build_busybox
build_git_base
build_git
log "done in $(since "$total")"
