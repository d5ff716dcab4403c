#!/usr/bin/env bash
# Installs (only when missing) and starts, or stops, the real services svc's tests use:
# MariaDB on 127.0.0.1:13306, PostgreSQL on 127.0.0.1:15432 and a private Docker engine, each in a
# private data folder under $SVC_CI_DIR. `start` prints the environment the tests read, as exports.
# A service this script starts gets a data folder that never existed before (the old one is removed
# first), so every CI run takes the path of a new machine: a Docker engine with no image that creates
# docker0 itself (its default bridge then has no IPAM Gateway), databases created by initdb and
# mariadb-install-db. Set
# SVC_CI_KEEP_DATA=1 to start on the data of the last run instead (quicker local runs). A service
# already running is used as it is.
# Usage: .ci/services.sh start|stop
set -euo pipefail

CI_DIR=${SVC_CI_DIR:-/tmp/svc-ci}
MY=$CI_DIR/mariadb PG=$CI_DIR/postgres DK=$CI_DIR/docker
MY_PORT=13306 PG_PORT=15432

STARTED=$CI_DIR/started   # services this script started (and so may stop), one name a line

log() { echo "[services] $*" >&2; }
mark_started() { mkdir -p "$CI_DIR" && echo "$1" >>"$STARTED"; }
was_started() { [ -f "$STARTED" ] && grep -qx "$1" "$STARTED"; }

# The newest PostgreSQL server Debian installed (15 on bookworm; the folder is named by its major).
pg_bin() {
  find /usr/lib/postgresql -mindepth 2 -maxdepth 2 -name bin -type d 2>/dev/null | sort -V | tail -n 1
}

install_missing() {
  local missing=()
  command -v mariadbd >/dev/null || missing+=(mariadb-server)
  [ -n "$(pg_bin)" ] || missing+=(postgresql)
  command -v dockerd >/dev/null || missing+=(docker.io)
  command -v busybox >/dev/null || missing+=(busybox-static)
  command -v git >/dev/null || missing+=(git)
  command -v chromium >/dev/null || missing+=(chromium)
  [ -x /usr/sbin/sshd ] || missing+=(openssh-server)
  # A private registry with basic auth for the registry-credential tests (SVC_CONTAINER_CONFIG).
  command -v docker-registry >/dev/null || missing+=(docker-registry)
  command -v htpasswd >/dev/null || missing+=(apache2-utils)
  # An ACME CA for SVC_TLS_AUTOCERT; tmate for SVC_SHELLSHARE_*; Go and go.starlark.net to check
  # that the vendored Starlark WebAssembly rebuilds byte for byte; the reference Jsonnet CLI as
  # the corpus' independent oracle.
  command -v pebble >/dev/null || missing+=(pebble)
  command -v tmate >/dev/null || missing+=(tmate)
  command -v go >/dev/null || missing+=(golang-go)
  [ -d /usr/share/gocode/src/go.starlark.net ] || missing+=(golang-starlark-dev)
  command -v jsonnet >/dev/null || missing+=(jsonnet)
  # The products' own clients and dump tools: the upgrade fixtures and the backup rehearsals load
  # and make dumps as operators do (docs/database.md).
  command -v mariadb-dump >/dev/null || missing+=(mariadb-client)
  command -v pg_dump >/dev/null || missing+=(postgresql-client)
  command -v sqlite3 >/dev/null || missing+=(sqlite3)
  # The load balancer in front of two servers in the several-servers test (docs/ha.md).
  command -v haproxy >/dev/null || missing+=(haproxy)
  # The checkers of the deployment files (test/deploy): Compose's own validation of
  # deploy/compose, and systemd's of deploy/systemd.
  command -v docker-compose >/dev/null || missing+=(docker-compose)
  command -v systemd-analyze >/dev/null || missing+=(systemd)
  if [ ${#missing[@]} -gt 0 ]; then
    log "installing ${missing[*]}"
    apt-get update -q >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
  fi
}

# The account the SSH engine's tests log in to with a password (sshd refuses root passwords). Each
# test starts its own sshd on a loopback port (test/support/sshd.ts); none listens otherwise.
SSH_USER=svc-ssh-test SSH_PASSWORD=svc-ssh-test-password
ensure_ssh_user() {
  id "$SSH_USER" >/dev/null 2>&1 || useradd --create-home --shell /bin/sh "$SSH_USER"
  echo "$SSH_USER:$SSH_PASSWORD" | chpasswd
}

# Removes a data folder of the last run (unless SVC_CI_KEEP_DATA=1), unmounting first what a service
# that died left mounted below it (a Docker engine's overlay layers and network namespaces).
fresh_dir() { # <dir>
  [ "${SVC_CI_KEEP_DATA:-0}" = 1 ] && return 0
  [ -e "$1" ] || return 0
  awk -v dir="$1/" 'index($2, dir) == 1 { print $2 }' /proc/mounts | sort -r | while read -r mount; do
    umount -l "$mount" 2>/dev/null || true
  done
  rm -rf "$1"
}

wait_for() { # <what> <tries> <log file> <command...>
  local what=$1 tries=$2 logfile=$3; shift 3
  for _ in $(seq 1 "$tries"); do "$@" >/dev/null 2>&1 && return 0; sleep 0.25; done
  log "$what did not become ready; the last lines of $logfile:"
  tail -n 20 "$logfile" >&2 2>/dev/null || true
  return 1
}

start_mariadb() {
  mkdir -p "$MY"
  mariadb-admin --no-defaults --socket="$MY/mysqld.sock" -uroot ping >/dev/null 2>&1 || fresh_dir "$MY/data"
  # The marker, not the mysql folder, says the install finished: a stopped install leaves that folder.
  if [ ! -f "$MY/data/.svc-installed" ]; then
    rm -rf "$MY/data"
    mariadb-install-db --no-defaults --datadir="$MY/data" --user=root \
      --auth-root-authentication-method=normal --skip-test-db >"$MY/install.log" 2>&1 ||
      { log "mariadb-install-db failed; $MY/install.log ends:"; tail -n 20 "$MY/install.log" >&2; return 1; }
    touch "$MY/data/.svc-installed"
  fi
  if ! mariadb-admin --no-defaults --socket="$MY/mysqld.sock" -uroot ping >/dev/null 2>&1; then
    mariadbd --no-defaults --datadir="$MY/data" --user=root --bind-address=127.0.0.1 --port=$MY_PORT \
      --socket="$MY/mysqld.sock" --pid-file="$MY/mysqld.pid" --skip-log-bin --log-error="$MY/err.log" \
      --innodb-flush-log-at-trx-commit=0 >/dev/null 2>&1 &
    mark_started mariadb
    wait_for MariaDB 240 "$MY/err.log" mariadb-admin --no-defaults --socket="$MY/mysqld.sock" -uroot ping
  fi
  # The test user may create and drop its own databases: every store test gets a fresh one.
  mariadb --no-defaults --socket="$MY/mysqld.sock" -uroot -e \
    "CREATE USER IF NOT EXISTS 'ci'@'127.0.0.1' IDENTIFIED BY 'ci'; GRANT ALL ON *.* TO 'ci'@'127.0.0.1'; CREATE DATABASE IF NOT EXISTS ci;"
}

start_postgres() {
  mkdir -p "$PG" && chown postgres:postgres "$PG"
  local bin; bin=$(pg_bin)
  [ -n "$bin" ] || { log "no PostgreSQL server under /usr/lib/postgresql/*/bin"; return 1; }
  su postgres -s /bin/sh -c "$bin/pg_ctl -D $PG/data status" >/dev/null 2>&1 || fresh_dir "$PG/data"
  if [ ! -f "$PG/data/PG_VERSION" ]; then
    su postgres -s /bin/sh -c "$bin/initdb -D $PG/data -A trust -U postgres -E UTF8 --no-sync" >"$PG/initdb.log"
  fi
  if ! su postgres -s /bin/sh -c "$bin/pg_ctl -D $PG/data status" >/dev/null 2>&1; then
    su postgres -s /bin/sh -c "$bin/pg_ctl -D $PG/data -l $PG/log -w -o '-c listen_addresses=127.0.0.1 -p $PG_PORT -k $PG -c fsync=off -c max_connections=300' start" >/dev/null
    mark_started postgres
  fi
  psql -h 127.0.0.1 -p $PG_PORT -U postgres -tAc "SELECT 1 FROM pg_database WHERE datname='ci'" | grep -q 1 ||
    psql -h 127.0.0.1 -p $PG_PORT -U postgres -qc 'CREATE DATABASE ci'
}

start_docker() {
  mkdir -p "$DK"
  if ! DOCKER_HOST=unix://$DK/docker.sock docker info >/dev/null 2>&1; then
    fresh_dir "$DK/data"
    fresh_dir "$DK/exec"
    # A new machine has no docker0 either, and that is what decides the bridge's shape: an engine
    # that creates docker0 reports IPAM without a Gateway; one that finds it (left by an engine
    # that ran before) fills the Gateway in from its address. Removed when no engine at all runs.
    if [ "${SVC_CI_KEEP_DATA:-0}" != 1 ] && ! pgrep -x dockerd >/dev/null && ip link show docker0 >/dev/null 2>&1; then
      ip link delete docker0 && log "removed docker0, left by an engine that ran before"
    fi
    dockerd --data-root "$DK/data" --exec-root "$DK/exec" -H "unix://$DK/docker.sock" \
      --pidfile "$DK/docker.pid" >"$DK/dockerd.log" 2>&1 &
    mark_started docker
    wait_for "Docker engine" 240 "$DK/dockerd.log" env DOCKER_HOST="unix://$DK/docker.sock" docker info
  fi
  # What the tests' gateway lookup starts from (test/support/bridge-gateway.ts): on a first start,
  # a subnet without a Gateway.
  log "Docker engine's default bridge: IPAM config $(DOCKER_HOST=unix://$DK/docker.sock docker network inspect bridge -f '{{json .IPAM.Config}}')"
}

stop_pid_file() { # <pid file>
  [ -f "$1" ] || return 0
  local pid; pid=$(cat "$1")
  kill "$pid" 2>/dev/null || return 0
  for _ in $(seq 1 120); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.25; done
  kill -9 "$pid" 2>/dev/null || true
}

case ${1:-} in
  start)
    install_missing
    start_mariadb
    start_postgres
    start_docker
    ensure_ssh_user
    cat <<ENV
export SVC_TEST_SQL_A_DATASOURCE='ci:ci@tcp(127.0.0.1:$MY_PORT)/ci?parseTime=true'
export SVC_TEST_SQL_B_DATASOURCE='postgres://postgres:postgres@127.0.0.1:$PG_PORT/ci?sslmode=disable'
export DOCKER_HOST='unix://$DK/docker.sock'
export SVC_TEST_SSHD=/usr/sbin/sshd
export SVC_TEST_SSH_USER='$SSH_USER'
export SVC_TEST_SSH_PASSWORD='$SSH_PASSWORD'
ENV
    ;;
  stop)
    # Only what `start` started: services that were already running belong to someone else.
    was_started mariadb && stop_pid_file "$MY/mysqld.pid"
    was_started postgres && { su postgres -s /bin/sh -c "$(pg_bin)/pg_ctl -D $PG/data -m fast stop" >/dev/null 2>&1 || true; }
    was_started docker && stop_pid_file "$DK/docker.pid"
    rm -f "$STARTED"
    ;;
  *)
    echo "usage: $0 start|stop" >&2
    exit 2
    ;;
esac
