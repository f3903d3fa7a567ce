#!/usr/bin/env bash
# A real PostgreSQL primary and a streaming hot standby on this machine, for failover and
# replica-lag tests. Built with Debian's postgresql-common tools (pg_createcluster, pg_ctlcluster,
# pg_dropcluster) and pg_basebackup against the system's PostgreSQL (15 on Debian 12); pgvector
# comes from the system-wide install (scripts/provision-postgres.sh builds it when missing).
#
# Usage: scripts/pg-cluster.sh [--dir DIR] COMMAND [options]
#   up [--sync[=on|remote_apply|remote_write]] [--primary-port N] [--standby-port M] [--no-fsync]
#                   drop any leftover pair, create both clusters (ports: the first free ones from
#                   54331 / 54332 unless given), database `umo` (with the vector extension) on the
#                   primary, replicated to the standby through a physical slot.
#                   Prints PRIMARY_URL=…, STANDBY_URL=…, PRIMARY_PORT=…, STANDBY_PORT=… on stdout
#                   (so `eval "$(scripts/pg-cluster.sh up)"` works); progress goes to stderr.
#                   --sync makes the standby synchronous: a commit returns only once the standby
#                   has flushed its WAL (synchronous_commit = on; see cmd_up for why not
#                   remote_apply). --no-fsync (or UMO_PG_CLUSTER_FSYNC=off): fsync = off on both
#                   servers, which spares the standby's start-up sync of its whole data directory
#                   (seconds on a busy disk); a server crash or stop-primary still loses nothing,
#                   only an OS crash could.
#   urls            print the same lines again
#   status          state and role (pg_is_in_recovery()) of each node, replication and replay lag
#   lag on|off      pause / resume WAL replay on the standby (WAL is still received): a stale replica
#   stop-primary    immediate stop of the primary (no shutdown checkpoint: like a crash)
#   start-primary | stop-standby | start-standby
#                   (start-primary after a promote gives two primaries: nothing rewinds the old one)
#   promote         promote the standby and wait until it accepts writes; prints PRIMARY_URL=…
#   down            stop and drop both clusters, remove their directories (idempotent)
#
# Environment: UMO_PG_CLUSTER_DIR (default <repo>/.cache/pg-cluster), UMO_PG_CLUSTER_PREFIX
# (default `umo`: clusters umo_primary / umo_standby), UMO_PG_VERSION (default: newest installed),
# UMO_PG_CLUSTER_FSYNC (on|off, default on).
# Needs root (the clusters belong to the `postgres` user and their configuration lives in
# /etc/postgresql); re-runs itself through `sudo -n` when that works. Never touches other clusters.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
base="${UMO_PG_CLUSTER_DIR:-$root/.cache/pg-cluster}"
prefix="${UMO_PG_CLUSTER_PREFIX:-umo}"
host=127.0.0.1
database=umo
default_primary_port=54331
default_standby_port=54332
fsync="${UMO_PG_CLUSTER_FSYNC:-on}"
t0=$(date +%s%N)

log() { printf 'pg-cluster [%6.2fs]: %s\n' "$(( ($(date +%s%N) - t0) / 1000000 ))e-3" "$*" >&2; }
die() { echo "pg-cluster: $*" >&2; exit 1; }
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

if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
    exec sudo -n UMO_PG_CLUSTER_DIR="$base" UMO_PG_CLUSTER_PREFIX="$prefix" UMO_PG_CLUSTER_FSYNC="$fsync" \
      ${UMO_PG_VERSION:+UMO_PG_VERSION="$UMO_PG_VERSION"} "${BASH_SOURCE[0]}" "$command" "$@"
  fi
  die "must run as root (pg_createcluster writes /etc/postgresql; the servers run as postgres)"
fi

version="${UMO_PG_VERSION:-$(ls /usr/lib/postgresql 2>/dev/null | sort -V | tail -n 1)}"
[ -n "$version" ] && [ -x "/usr/lib/postgresql/$version/bin/initdb" ] ||
  die "no PostgreSQL server in /usr/lib/postgresql (apt-get install postgresql)"
bindir="/usr/lib/postgresql/$version/bin"
primary="${prefix}_primary"
standby="${prefix}_standby"
case "$prefix" in *[!a-z0-9_]*|"") die "UMO_PG_CLUSTER_PREFIX must be [a-z0-9_]+" ;; esac
[ "$prefix" != main ] || die "prefix 'main' is reserved"

ctl() { pg_ctlcluster --skip-systemctl-redirect "$@"; }
# `pg_ctlcluster start` sleeps 0.5 s before its first probe and then wants three good probes 0.5 s
# apart (>= 2 s per start). This runs the same pg_ctl command it would, and pg_ctl -w returns as
# soon as postmaster.pid says the server accepts connections (read-only ones, for a hot standby).
start() {
  local name="$1" logfile
  logfile="$(readlink -f "/etc/postgresql/$version/$name/log")"
  runuser -u postgres -- "$bindir/pg_ctl" start -w -t 60 -s -D "$(datadir_of "$name")" -l "$logfile" \
    -o "-c config_file=/etc/postgresql/$version/$name/postgresql.conf -c external_pid_file=/var/run/postgresql/$version-$name.pid" ||
    { tail -n 20 "$logfile" >&2; die "$version/$name did not start"; }
}
# psql as the superuser over TCP (trust); -X: no ~/.psqlrc; unaligned, tuples only.
q() { local port="$1" db="$2"; shift 2; psql -X -q -A -t -v ON_ERROR_STOP=1 -h "$host" -p "$port" -U postgres -d "$db" "$@"; }
exists() { [ -d "/etc/postgresql/$version/$1" ]; }
# A setting of one of our clusters, read from its /etc postgresql.conf (the last occurrence wins;
# pg_lsclusters and pg_conftool would give the same, at ~0.3 s a call).
conf_get() {
  [ -f "/etc/postgresql/$version/$1/postgresql.conf" ] || return 0
  awk -v k="$2" -F= '
    { line = $0; sub(/#.*/, "", line) }
    line ~ "^[ \t]*" k "[ \t]*=" { v = substr(line, index(line, "=") + 1); gsub(/^[ \t]*\x27?|\x27?[ \t]*$/, "", v); val = v }
    END { print val }' "/etc/postgresql/$version/$1/postgresql.conf"
}
port_of() { conf_get "$1" port; }
datadir_of() { conf_get "$1" data_directory; }
url_of() { echo "postgres://postgres@$host:$1/$database"; }
need() { exists "$1" || die "cluster $version/$1 does not exist (run: $0 up)"; }
port_busy() { (exec 3<>"/dev/tcp/$host/$1") 2>/dev/null; }
wait_for() { # wait_for SECONDS DESCRIPTION COMMAND...
  local limit="$1" what="$2"; shift 2
  local deadline=$(( $(date +%s) + limit ))
  until "$@" >/dev/null 2>&1; do
    [ "$(date +%s)" -lt "$deadline" ] || die "timed out after ${limit}s waiting for $what"
    sleep 0.1
  done
}

# Stops (immediately) and removes one cluster of ours, whatever state a killed run left it in.
drop() {
  local name="$1" dir
  dir="$(datadir_of "$name")"
  [ -n "$dir" ] || dir="$base/${name#"${prefix}_"}"
  if [ -f "$dir/postmaster.pid" ]; then
    # Works even when /etc/postgresql/<v>/<name> is gone: pg_ctl only needs postmaster.pid.
    runuser -u postgres -- "$bindir/pg_ctl" -D "$dir" stop -m immediate -w -t 30 >/dev/null 2>&1 || true
  fi
  if exists "$name"; then
    log "dropping cluster $version/$name"
    pg_dropcluster --stop "$version" "$name" >/dev/null 2>&1 || true
    rm -rf "/etc/postgresql/$version/$name"
  fi
  rm -rf "$dir"
  # The log files sit next to the data directories, in <dir>/log (pg_dropcluster removes only the
  # log symlink's target when it can): tidy that directory too, when nothing else lives there.
  rm -f "$(dirname "$dir")/log/${name#"${prefix}_"}.log"
  rmdir "$(dirname "$dir")/log" "$(dirname "$dir")" 2>/dev/null || true
}

# Settings appended to a cluster's /etc postgresql.conf (the last occurrence of a setting wins).
# Not ALTER SYSTEM: postgresql.auto.conf lives in the data directory, so pg_basebackup would copy
# the primary's synchronous_standby_names to the standby, and once promoted it would wait forever
# for a synchronous standby of its own.
configure() {
  local name="$1"
  cat >>"/etc/postgresql/$version/$name/postgresql.conf" <<EOF

# --- scripts/pg-cluster.sh ---
listen_addresses = '$host'
ssl = off
wal_level = replica
max_wal_senders = 10
max_replication_slots = 10
hot_standby = on
hot_standby_feedback = on
wal_receiver_status_interval = 1s
max_connections = 100
shared_buffers = 64MB
fsync = $fsync
EOF
  # Explicit, so it does not depend on initdb's or Debian's defaults: trust on the local socket and
  # on loopback, for normal and replication connections.
  cat >"/etc/postgresql/$version/$name/pg_hba.conf" <<'EOF'
# TYPE  DATABASE     USER  ADDRESS       METHOD
local   all          all                 trust
host    all          all   127.0.0.1/32  trust
host    all          all   ::1/128       trust
local   replication  all                 trust
host    replication  all   127.0.0.1/32  trust
host    replication  all   ::1/128       trust
EOF
}

create() { # create NAME PORT [INITDB OPTIONS]: a cluster (not started); initdb unless its data directory holds one
  local name="$1" port="$2"; shift 2
  pg_createcluster --quiet --start-conf=manual -p "$port" \
    -d "$base/${name#"${prefix}_"}" -l "$base/log/${name#"${prefix}_"}.log" "$version" "$name" ${1:+-- "$@"} >/dev/null
}

pick_port() { # pick_port REQUESTED DEFAULT AVOID: the requested port (must be free), else the first free from DEFAULT
  local requested="$1" port="$2" avoid="$3"
  if [ -n "$requested" ]; then
    port_busy "$requested" && die "port $requested is in use"
    echo "$requested"; return
  fi
  local taken
  taken=" $(cat /etc/postgresql/*/*/postgresql.conf 2>/dev/null |
    awk '/^[ \t]*port[ \t]*=/ { sub(/#.*/, ""); sub(/.*=[ \t]*/, ""); printf "%s ", $1 }')"
  while port_busy "$port" || [ "$port" = "$avoid" ] || [[ "$taken" == *" $port "* ]]; do
    port=$((port + 1))
  done
  echo "$port"
}

print_urls() {
  local pport sport
  pport="$(port_of "$primary")"; sport="$(port_of "$standby")"
  echo "PRIMARY_URL=$(url_of "$pport")"
  echo "STANDBY_URL=$(url_of "$sport")"
  echo "PRIMARY_PORT=$pport"
  echo "STANDBY_PORT=$sport"
}

cmd_up() {
  local sync="" want_pport="" want_sport="" pport sport
  while [ $# -gt 0 ]; do
    case "$1" in
      --sync) sync=on; shift ;;
      --sync=*) sync="${1#--sync=}"; shift ;;
      --no-fsync) fsync=off; shift ;;
      --primary-port) want_pport="$2"; shift 2 ;;
      --primary-port=*) want_pport="${1#*=}"; shift ;;
      --standby-port) want_sport="$2"; shift 2 ;;
      --standby-port=*) want_sport="${1#*=}"; shift ;;
      *) die "up: unknown option $1" ;;
    esac
  done
  case "$fsync" in on|off) ;; *) die "UMO_PG_CLUSTER_FSYNC must be on or off" ;; esac
  case "$sync" in ""|on|remote_apply|remote_write) ;; *) die "--sync=$sync: use on, remote_apply or remote_write" ;; esac
  [ -f "/usr/share/postgresql/$version/extension/vector.control" ] ||
    die "pgvector is not installed for PostgreSQL $version (run scripts/provision-postgres.sh)"

  drop "$standby"; drop "$primary"
  pport="$(pick_port "$want_pport" "$default_primary_port" "")"
  sport="$(pick_port "$want_sport" "$default_standby_port" "$pport")"
  [ "$pport" != "$sport" ] || die "primary and standby need different ports"

  mkdir -p "$base/log"
  chmod 755 "$base"
  chown postgres: "$base/log"
  runuser -u postgres -- test -x "$base" ||
    die "the postgres user cannot reach $base (a parent directory is not world-searchable)"

  log "creating primary $version/$primary on port $pport"
  # initdb --no-sync: nothing to lose on an OS crash in a throwaway cluster (what the servers do is
  # the fsync setting in configure).
  create "$primary" "$pport" --auth=trust --no-sync --no-instructions --locale=C.UTF-8 --encoding=UTF8
  configure "$primary"
  log "starting primary"
  start "$primary"
  log "primary up; creating database $database"
  q "$pport" postgres -c "CREATE DATABASE $database"
  q "$pport" "$database" -c "CREATE EXTENSION IF NOT EXISTS vector"

  # The standby's data directory is a base backup of the primary, run as postgres so every file
  # belongs to the server's user. -R writes standby.signal and primary_conninfo (with
  # application_name: the name pg_stat_replication and synchronous_standby_names know it by);
  # -C -S creates the physical replication slot and sets primary_slot_name (the primary keeps WAL
  # the standby has not received yet); --checkpoint=fast: no waiting for a spread checkpoint.
  log "pg_basebackup from the primary"
  install -d -m 700 -o postgres -g postgres "$base/standby"
  runuser -u postgres -- "$bindir/pg_basebackup" -D "$base/standby" -R -C -S "$standby" \
    -X stream --checkpoint=fast --no-sync \
    -d "host=$host port=$pport user=postgres application_name=$standby"
  # The primary's configuration files (Debian keeps them in /etc, so the backup has none) go into
  # the data directory; pg_createcluster then adopts the existing data directory instead of running
  # initdb, moves them to /etc/postgresql/<v>/<standby>, and rewrites the per-cluster settings
  # (data_directory, hba_file, ident_file, port, cluster_name, external_pid_file).
  log "creating standby $version/$standby on port $sport"
  install -o postgres -g postgres -m 644 "/etc/postgresql/$version/$primary/postgresql.conf" "$base/standby/"
  install -o postgres -g postgres -m 640 "/etc/postgresql/$version/$primary/pg_hba.conf" \
    "/etc/postgresql/$version/$primary/pg_ident.conf" "$base/standby/"
  create "$standby" "$sport"
  log "starting standby"
  start "$standby"
  log "waiting for streaming replication"
  wait_for 30 "the standby to stream from the primary" \
    bash -c "[ \"\$(psql -X -A -t -h $host -p $pport -U postgres -d postgres -c \"SELECT state FROM pg_stat_replication WHERE application_name = '$standby'\")\" = streaming ]"

  if [ -n "$sync" ]; then
    # Set only now: with a synchronous standby configured but absent, CREATE DATABASE above would
    # have waited forever. FIRST 1 (<name>): this standby must confirm every commit.
    # synchronous_commit = on waits until the standby has flushed the commit's WAL to disk: no
    # acknowledged commit is lost if the primary dies and the standby is promoted (promotion
    # replays all received WAL first). remote_apply also waits for replay (read-your-writes on
    # the standby) but then `lag on` blocks every commit on the primary.
    log "making $standby synchronous (synchronous_commit = $sync)"
    cat >>"/etc/postgresql/$version/$primary/postgresql.conf" <<EOF
synchronous_standby_names = 'FIRST 1 ($standby)'
synchronous_commit = $sync
EOF
    ctl "$version" "$primary" reload
    wait_for 30 "the standby to become synchronous" \
      bash -c "[ \"\$(psql -X -A -t -h $host -p $pport -U postgres -d postgres -c \"SELECT sync_state FROM pg_stat_replication WHERE application_name = '$standby'\")\" = sync ]"
  fi
  q "$sport" "$database" -c "SELECT 1" >/dev/null
  log "up: primary :$pport, hot standby :$sport${sync:+ (synchronous, $sync)}"
  print_urls
}

cmd_status() {
  local name port state role
  for name in "$primary" "$standby"; do
    if ! exists "$name"; then echo "$name: absent"; continue; fi
    port="$(port_of "$name")"
    state="$(pg_lsclusters -h 2>/dev/null | awk -v c="$name" -v v="$version" '$1==v && $2==c {print $4}')"
    if ! q "$port" postgres -c "SELECT 1" >/dev/null 2>&1; then
      echo "$name: port=$port state=$state role=unreachable"; continue
    fi
    role="$(q "$port" postgres -c "SELECT CASE WHEN pg_is_in_recovery() THEN 'standby' ELSE 'primary' END")"
    if [ "$role" = standby ]; then
      q "$port" postgres -F ' ' -c "SELECT '$name: port=$port state=$state role=standby'
        || ' receive_lsn=' || coalesce(pg_last_wal_receive_lsn()::text, '-')
        || ' replay_lsn=' || coalesce(pg_last_wal_replay_lsn()::text, '-')
        || ' replay_lag_bytes=' || coalesce(pg_wal_lsn_diff(pg_last_wal_receive_lsn(), pg_last_wal_replay_lsn())::bigint::text, '-')
        || ' replay=' || pg_get_wal_replay_pause_state()
        || ' upstream=' || coalesce((SELECT status || '@' || sender_host || ':' || sender_port FROM pg_stat_wal_receiver), 'none')"
    else
      echo "$name: port=$port state=$state role=primary lsn=$(q "$port" postgres -c "SELECT pg_current_wal_lsn()")" \
        "sync_standby_names='$(q "$port" postgres -c "SHOW synchronous_standby_names")'" \
        "synchronous_commit=$(q "$port" postgres -c "SHOW synchronous_commit")"
      q "$port" postgres -c "SELECT '  replica ' || application_name || ': state=' || state || ' sync=' || sync_state
        || ' sent_lag_bytes=' || pg_wal_lsn_diff(pg_current_wal_lsn(), sent_lsn)::bigint
        || ' flush_lag_bytes=' || pg_wal_lsn_diff(pg_current_wal_lsn(), flush_lsn)::bigint
        || ' replay_lag_bytes=' || pg_wal_lsn_diff(pg_current_wal_lsn(), replay_lsn)::bigint
        FROM pg_stat_replication ORDER BY application_name"
      q "$port" postgres -c "SELECT '  slot ' || slot_name || ': active=' || active
        || ' retained_bytes=' || coalesce(pg_wal_lsn_diff(pg_current_wal_lsn(), restart_lsn)::bigint::text, '-')
        FROM pg_replication_slots ORDER BY slot_name"
    fi
  done
}

cmd_lag() {
  need "$standby"
  local port; port="$(port_of "$standby")"
  case "${1:-}" in
    on)
      q "$port" postgres -c "SELECT pg_wal_replay_pause()" >/dev/null
      wait_for 30 "replay to pause" bash -c "[ \"\$(psql -X -A -t -h $host -p $port -U postgres -d postgres -c 'SELECT pg_get_wal_replay_pause_state()')\" = paused ]"
      log "WAL replay paused on $standby (WAL is still received; reads there go stale)" ;;
    off)
      q "$port" postgres -c "SELECT pg_wal_replay_resume()" >/dev/null
      log "WAL replay resumed on $standby" ;;
    *) die "usage: lag on|off" ;;
  esac
}

cmd_promote() {
  need "$standby"
  local port; port="$(port_of "$standby")"
  log "promoting $standby"
  ctl "$version" "$standby" promote # pg_ctl promote -w: waits until recovery has ended
  # txid_current() needs a transaction id, which a server in recovery cannot assign.
  wait_for 60 "$standby to accept writes" q "$port" postgres -c "SELECT txid_current()"
  log "$standby is a primary now"
  echo "PRIMARY_URL=$(url_of "$port")"
}

cmd_down() {
  drop "$standby"; drop "$primary"
  rm -f "$base/log/primary.log" "$base/log/standby.log"
  rmdir "$base/log" "$base" 2>/dev/null || true
  log "down"
}

case "$command" in
  up) cmd_up "$@" ;;
  urls) need "$primary"; need "$standby"; print_urls ;;
  status) cmd_status ;;
  lag) cmd_lag "$@" ;;
  stop-primary) need "$primary"; ctl -m immediate "$version" "$primary" stop; log "primary stopped (immediate)" ;;
  start-primary) need "$primary"; start "$primary"; log "primary started" ;;
  stop-standby) need "$standby"; ctl "$version" "$standby" stop; log "standby stopped" ;;
  start-standby) need "$standby"; start "$standby"; log "standby started" ;;
  promote) cmd_promote ;;
  down) cmd_down ;;
  *) usage ;;
esac
