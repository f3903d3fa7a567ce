#!/usr/bin/env bash
# A real Citus cluster on this machine — a coordinator and workers, each its own PostgreSQL server —
# for UMO's Citus tests and `npm run bench:scaleout -- --citus`. Citus (AGPL-3.0) is built here
# from a fetched snapshot of citusdata/citus at tag v13.2.2; neither its source nor its binaries
# are ever part of this repository.
#
# Usage: scripts/citus-cluster.sh [--dir DIR] COMMAND [options]
#   build           install Citus 13.2.2 into the machine's PostgreSQL unless it is there: extracts
#                   the tag from the snapshot's git directory (UMO_CITUS_GIT, else the first of
#                   /work/.mirror/citusdata+citus/repo and <repo>/../.mirror/citusdata+citus/repo),
#                   configures, builds with every core and installs (apt-get installs the build's
#                   needs when missing). Without a snapshot or an install, says so in one line and
#                   exits 3: the Citus tests skip with that line as their reason.
#   up [--workers N] [--no-fsync]
#                   build if needed, drop any leftover cluster, start a coordinator and N workers
#                   (default 2; ports: the first free from 54361), database `umo` with the citus
#                   and vector extensions on every node, the workers added to the coordinator.
#                   Prints COORDINATOR_URL=…, COORDINATOR_PORT=…, WORKER_PORTS=…, COORDINATOR_LOG=…
#                   (the coordinator's server log) on stdout (so
#                   `eval "$(scripts/citus-cluster.sh up)"` works); progress goes to stderr.
#   check           exit 0 when Citus 13.2.2 is installed (nothing to build), else say why in one line
#                   and exit 3 (the tests' question: they never build)
#   add-worker      start one more worker and add it to the cluster; prints WORKER_PORT=…
#   urls            print the lines of `up` again
#   status          the nodes Citus knows, and each server's state
#   down            stop every node and remove the cluster's directory (idempotent)
#
# Environment: UMO_CITUS_CLUSTER_DIR (default <repo>/.cache/citus-cluster), UMO_PG_VERSION (default:
# newest installed), UMO_CITUS_GIT (the snapshot's git directory), UMO_CITUS_BUILD_DIR (default
# <repo>/.cache/citus-build). Needs root: the servers run as `postgres` and the build installs into
# /usr/lib/postgresql. Never touches other clusters.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
base="${UMO_CITUS_CLUSTER_DIR:-$root/.cache/citus-cluster}"
build_dir="${UMO_CITUS_BUILD_DIR:-$root/.cache/citus-build}"
tag=v13.2.2
control_version="13.2-1"
host=127.0.0.1
database=umo
first_port=54361
t0=$(date +%s%N)

log() { printf 'citus-cluster [%6.2fs]: %s\n' "$(( ($(date +%s%N) - t0) / 1000000 ))e-3" "$*" >&2; }
die() { echo "citus-cluster: $*" >&2; exit 1; }
unavailable() { echo "citus-cluster: $*" >&2; exit 3; }
usage() { sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//' >&2; exit "${1:-2}"; }

while [ $# -gt 0 ]; do
  case "$1" in
    --dir) base="$2"; shift 2 ;;
    --dir=*) base="${1#--dir=}"; shift ;;
    -h|--help) usage 0 ;;
    *) break ;;
  esac
done
[ $# -gt 0 ] || usage
command="$1"; shift
base="$(realpath -m "$base")"

[ "$(id -u)" -eq 0 ] || unavailable "needs root (the servers run as postgres; the build installs into /usr/lib/postgresql)"
version="${UMO_PG_VERSION:-$(ls /usr/lib/postgresql 2>/dev/null | sort -V | tail -n 1)}"
[ -n "$version" ] && [ -x "/usr/lib/postgresql/$version/bin/initdb" ] ||
  unavailable "no PostgreSQL server in /usr/lib/postgresql (apt-get install postgresql)"
bindir="/usr/lib/postgresql/$version/bin"
sharedir="/usr/share/postgresql/$version/extension"

installed() { grep -qs "default_version = '$control_version'" "$sharedir/citus.control"; }

snapshot() {
  local candidate
  for candidate in "${UMO_CITUS_GIT:-}" /work/.mirror/citusdata+citus/repo "$root/../.mirror/citusdata+citus/repo"; do
    [ -n "$candidate" ] && git --git-dir="$candidate" rev-parse -q --verify "refs/tags/$tag" >/dev/null 2>&1 &&
      { realpath "$candidate"; return; }
  done
}

cmd_build() {
  if installed; then log "Citus $control_version is installed for PostgreSQL $version"; return; fi
  local git_dir
  git_dir="$(snapshot)"
  [ -n "$git_dir" ] || unavailable "Citus $tag is not installed and no snapshot of citusdata/citus holds it (fetch github:citusdata/citus, or set UMO_CITUS_GIT)"
  [ -f "$sharedir/vector.control" ] || bash "$root/scripts/provision-postgres.sh" >/dev/null
  local needs=("postgresql-server-dev-$version" libzstd-dev liblz4-dev libkrb5-dev libcurl4-openssl-dev) missing=()
  for p in "${needs[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
  if [ ${#missing[@]} -gt 0 ]; then
    log "installing ${missing[*]}"
    DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >&2
  fi
  log "building Citus $tag from $git_dir in $build_dir"
  rm -rf "$build_dir" && mkdir -p "$build_dir"
  git --git-dir="$git_dir" archive "$tag" | tar -x -C "$build_dir"
  # Debian's PostgreSQL 15.14 and later declare have_createdb_privilege() (backported from 16),
  # which Citus 13.2.2's compatibility header defines again as static for 15: the build fails on
  # the clash. Renamed in the build tree only; the code is the same.
  sed -i 's/\bhave_createdb_privilege\b/citus_have_createdb_privilege/g' \
    "$build_dir/src/include/pg_version_compat.h" \
    "$build_dir/src/backend/distributed/commands/serialize_distributed_ddls.c"
  (
    cd "$build_dir"
    ./configure --with-pg-config="$bindir/pg_config" >"$build_dir/configure.log" 2>&1 ||
      { tail -n 20 "$build_dir/configure.log" >&2; exit 1; }
    make -j"$(nproc)" >"$build_dir/make.log" 2>&1 || { grep -m 5 -B 3 'error' "$build_dir/make.log" >&2; exit 1; }
    make install >"$build_dir/install.log" 2>&1 || { tail -n 20 "$build_dir/install.log" >&2; exit 1; }
  ) || die "the build of Citus $tag failed (logs in $build_dir)"
  installed || die "the build finished but $sharedir/citus.control is not version $control_version"
  log "installed Citus $control_version"
}

port_busy() { (exec 3<>"/dev/tcp/$host/$1") 2>/dev/null; }
q() { local port="$1"; shift; psql -X -q -A -t -v ON_ERROR_STOP=1 -h "$host" -p "$port" -U postgres -d "$database" "$@"; }
nodes() { [ -d "$base" ] && find "$base" -maxdepth 1 -mindepth 1 -type d -name 'node*' -printf '%f\n' | sort -V || true; }
port_of() { cat "$base/$1/umo.port"; }

start_node() { # start_node NAME PORT: initdb, configure, start, create the database
  local name="$1" port="$2" dir="$base/$1"
  mkdir -p "$dir" && chown postgres:postgres "$base" "$dir"
  runuser -u postgres -- "$bindir/initdb" -D "$dir/data" -A trust -U postgres --no-sync >/dev/null
  cat >>"$dir/data/postgresql.conf" <<EOF

# --- scripts/citus-cluster.sh ---
port = $port
listen_addresses = '$host'
unix_socket_directories = ''
shared_preload_libraries = 'citus'
max_connections = 300
shared_buffers = 128MB
max_worker_processes = 32
wal_level = logical
max_replication_slots = 20
max_wal_senders = 20
fsync = $fsync
synchronous_commit = $( [ "$fsync" = on ] && echo on || echo off )
EOF
  echo "$port" >"$dir/umo.port"
  runuser -u postgres -- "$bindir/pg_ctl" start -w -t 120 -s -D "$dir/data" -l "$dir/server.log" ||
    { tail -n 20 "$dir/server.log" >&2; die "$name did not start"; }
  psql -X -q -h "$host" -p "$port" -U postgres -d postgres -c "CREATE DATABASE $database" >/dev/null
  q "$port" -c "CREATE EXTENSION citus" -c "CREATE EXTENSION vector" >/dev/null
}

free_port() { # the first port from $1 that is free and not recorded by another node
  local port="$1"
  while port_busy "$port" || grep -qsx "$port" "$base"/node*/umo.port; do port=$((port + 1)); done
  echo "$port"
}

print_urls() {
  local coordinator workers=()
  coordinator="$(port_of node0)"
  for n in $(nodes); do [ "$n" = node0 ] || workers+=("$(port_of "$n")"); done
  echo "COORDINATOR_URL=postgres://postgres@$host:$coordinator/$database"
  echo "COORDINATOR_PORT=$coordinator"
  echo "WORKER_PORTS=$(IFS=,; echo "${workers[*]}")"
  echo "COORDINATOR_LOG=$base/node0/server.log"
}

add_worker() {
  local index=$(( $(nodes | wc -l) )) port
  port="$(free_port $((first_port + index)))"
  log "starting worker node$index on port $port"
  start_node "node$index" "$port"
  q "$(port_of node0)" -c "SELECT citus_add_node('$host', $port)" >/dev/null
  echo "$port"
}

cmd_down() {
  for n in $(nodes); do
    [ -f "$base/$n/data/postmaster.pid" ] &&
      runuser -u postgres -- "$bindir/pg_ctl" -D "$base/$n/data" stop -m immediate -w -t 30 >/dev/null 2>&1 || true
  done
  rm -rf "$base"
}

fsync=on
case "$command" in
  build) cmd_build ;;
  check)
    installed || { [ -n "$(snapshot)" ] && unavailable "Citus $tag is not built yet (run: $0 build)"; } ||
      unavailable "Citus $tag is not installed and no snapshot of citusdata/citus holds it (fetch github:citusdata/citus, or set UMO_CITUS_GIT)"
    [ -f "$sharedir/vector.control" ] || unavailable "pgvector is not installed for PostgreSQL $version (scripts/provision-postgres.sh builds it)"
    ;;
  up)
    workers=2
    while [ $# -gt 0 ]; do
      case "$1" in
        --workers) workers="$2"; shift 2 ;;
        --workers=*) workers="${1#--workers=}"; shift ;;
        --no-fsync) fsync=off; shift ;;
        *) die "unknown option $1" ;;
      esac
    done
    cmd_build
    [ -f "$sharedir/vector.control" ] || bash "$root/scripts/provision-postgres.sh" >/dev/null
    cmd_down
    mkdir -p "$base"
    echo "$fsync" >"$base/fsync"
    port="$(free_port "$first_port")"
    log "starting the coordinator on port $port"
    start_node node0 "$port"
    q "$port" -c "SELECT citus_set_coordinator_host('$host', $port)" >/dev/null
    for _ in $(seq 1 "$workers"); do add_worker >/dev/null; done
    log "up: a coordinator and $workers workers"
    print_urls
    ;;
  add-worker)
    [ -d "$base/node0" ] || die "no cluster (run: $0 up)"
    fsync="$(cat "$base/fsync")"
    echo "WORKER_PORT=$(add_worker)"
    ;;
  urls) [ -d "$base/node0" ] || die "no cluster (run: $0 up)"; print_urls ;;
  status)
    [ -d "$base/node0" ] || die "no cluster (run: $0 up)"
    for n in $(nodes); do
      printf '%s port %s: %s\n' "$n" "$(port_of "$n")" \
        "$(runuser -u postgres -- "$bindir/pg_ctl" -D "$base/$n/data" status >/dev/null 2>&1 && echo running || echo stopped)"
    done
    q "$(port_of node0)" -c "SELECT nodename || ':' || nodeport || ' group ' || groupid || CASE WHEN isactive THEN '' ELSE ' (inactive)' END FROM pg_dist_node ORDER BY groupid"
    ;;
  down) cmd_down ;;
  *) usage ;;
esac
