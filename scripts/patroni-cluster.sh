#!/usr/bin/env bash
# A PostgreSQL primary and a streaming standby on this machine that fail over by themselves:
# two Patroni members (Debian's `patroni`, 3.0.x) managing PostgreSQL (the newest in
# /usr/lib/postgresql, 15 on Debian 12), with a single-member etcd (Debian's `etcd-server`, 3.4)
# of their own as the store Patroni elects the leader in. pgvector comes from the system-wide
# install (scripts/provision-postgres.sh builds it when missing). For failover tests and the
# `--patroni` part of bench:scaleout; the manual pair is scripts/pg-cluster.sh, whose output this
# script's `up` repeats, so callers read either the same way.
#
# Usage: scripts/patroni-cluster.sh [--dir DIR] COMMAND [options]
#   up [--sync] [--primary-port N] [--standby-port M] [--no-fsync]
#                   drop any leftover cluster in DIR, start etcd (client port: the first free from
#                   23790, never etcd's default 2379) and the two members, node1 (PostgreSQL on the
#                   first free port from 54351, Patroni's REST API from 8108) then node2 (from 54352
#                   / 8109), which Patroni clones from node1 with pg_basebackup. node1 bootstraps:
#                   initdb, then database `umo` with the vector extension (Patroni's
#                   post_bootstrap). Waits until node1 leads and node2 streams from it.
#                   Prints PRIMARY_URL=…, STANDBY_URL=…, BOTH_URL=…, PRIMARY_PORT=…, STANDBY_PORT=…
#                   on stdout (so `eval "$(scripts/patroni-cluster.sh up)"` works); progress goes to
#                   stderr. BOTH_URL names both servers, postgres://postgres@127.0.0.1:P1,127.0.0.1:P2/umo,
#                   the several-host DATABASE_URL the server finds the primary in by itself (no
#                   target_session_attrs: the server refuses other parameters in such a URL).
#                   --sync: Patroni's synchronous_mode (not strict): the leader names the replica in
#                   synchronous_standby_names (synchronous_commit = on), and only a synchronous
#                   replica may be promoted, so no acknowledged commit is lost; alone, the new
#                   leader writes without one. --no-fsync (or UMO_PATRONI_FSYNC=off): fsync = off.
#   urls            the same lines, the current leader as the primary
#   status          `patronictl list` (each member's REST API when etcd does not answer)
#   leader          the current leader's PostgreSQL port (exit 1 when there is none)
#   stop-primary [--postgres-only]
#                   the leader's node fails: SIGKILL to its Patroni, then to its postmaster and the
#                   postmaster's children (no shutdown, no checkpoint: a crash). The other member's
#                   Patroni promotes its PostgreSQL once the leader key expires in etcd (at most ttl
#                   seconds after the leader's last renewal). --postgres-only kills PostgreSQL alone:
#                   the leader's Patroni then restarts it (crash recovery) and keeps the leadership,
#                   there is no failover.
#   start node1|node2
#                   start a member's Patroni again (after stop-primary): it rejoins as a replica of
#                   the current leader, rewound with pg_rewind when its timeline diverged
#   down            stop etcd, both members and their servers, remove DIR (idempotent)
#   check           exit 0 when everything `up` needs is here; else say why, exit 3
#
# Failover timing (Patroni's dynamic configuration, in etcd; UMO_PATRONI_TTL, UMO_PATRONI_LOOP_WAIT,
# UMO_PATRONI_RETRY_TIMEOUT override them): ttl 10 s (the leader key's lease: how long a dead
# leader is still believed), loop_wait 1 s (each member's cycle: the leader renews its key that
# often), retry_timeout 4 s (how long a member retries etcd or PostgreSQL before giving up: a
# leader that cannot renew for that long demotes itself). Patroni 3.0.2 checks none of them (it
# takes any integer), but its documentation asks for loop_wait + 2 × retry_timeout <= ttl, so that
# a leader cut from etcd demotes itself (after retry_timeout) before its key expires and the other
# member promotes: 1 + 2 × 4 = 9 <= 10; this script refuses a combination that breaks the rule.
# etcd's smallest lease is about 2 s (1.5 × its 1 s election timeout).
#
# Environment: UMO_PATRONI_DIR (default <repo>/.cache/patroni-cluster), UMO_PG_VERSION (default:
# the newest installed), UMO_PATRONI_FSYNC (on|off, default on), and the three above.
# Needs root: the members and the servers run as the `postgres` user, etcd too; every daemon is
# started in the background with its pid in DIR (there is no systemd). Touches nothing outside DIR
# but the ports it takes.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
base="${UMO_PATRONI_DIR:-$root/.cache/patroni-cluster}"
host=127.0.0.1
database=umo
fsync="${UMO_PATRONI_FSYNC:-on}"
ttl="${UMO_PATRONI_TTL:-10}"
loop_wait="${UMO_PATRONI_LOOP_WAIT:-1}"
retry_timeout="${UMO_PATRONI_RETRY_TIMEOUT:-4}"
t0=$(date +%s%N)

log() { printf 'patroni-cluster [%6.2fs]: %s\n' "$(( ($(date +%s%N) - t0) / 1000000 ))e-3" "$*" >&2; }
die() { echo "patroni-cluster: $*" >&2; exit 1; }
# Something this machine lacks: one line, exit 3 (the callers skip, saying why).
unavailable() { echo "patroni-cluster: $*" >&2; exit 3; }
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

[ "$(id -u)" -eq 0 ] || unavailable "not root (the members and their servers run as the postgres user)"
command -v patroni >/dev/null || unavailable "patroni is missing (apt-get install patroni)"
command -v etcd >/dev/null || unavailable "etcd is missing (apt-get install etcd-server)"
id postgres >/dev/null 2>&1 || unavailable "there is no postgres user (apt-get install postgresql)"
version="${UMO_PG_VERSION:-$(ls /usr/lib/postgresql 2>/dev/null | sort -V | tail -n 1)}"
[ -n "$version" ] && [ -x "/usr/lib/postgresql/$version/bin/initdb" ] ||
  unavailable "no PostgreSQL server in /usr/lib/postgresql (apt-get install postgresql)"
[ -f "/usr/share/postgresql/$version/extension/vector.control" ] ||
  unavailable "pgvector is not installed for PostgreSQL $version (scripts/provision-postgres.sh)"
bindir="/usr/lib/postgresql/$version/bin"
patroni_bin="$(command -v patroni)"
patronictl_bin="$(command -v patronictl || true)"
etcd_bin="$(command -v etcd)"

case "$fsync" in on|off) ;; *) die "UMO_PATRONI_FSYNC must be on or off" ;; esac
for setting in ttl loop_wait retry_timeout; do
  [[ "${!setting}" =~ ^[1-9][0-9]*$ ]] || die "$setting must be a positive integer (seconds)"
done
[ $((loop_wait + 2 * retry_timeout)) -le "$ttl" ] ||
  die "loop_wait + 2 × retry_timeout ($loop_wait + 2 × $retry_timeout) must not exceed ttl ($ttl)"

state="$base/cluster.env"
nodes=(node1 node2)

# A daemon as postgres, in a session of its own (a signal to the caller's process group does not
# reach it), its output in a log file, no inherited environment (PG*, DATABASE_URL, PATRONI_*);
# its pid (that of the daemon itself: setpriv and bash exec it) in a file.
daemon() { # daemon PIDFILE LOGFILE COMMAND...
  local pidfile="$1" logfile="$2"; shift 2
  setsid setpriv --reuid=postgres --regid=postgres --init-groups -- \
    env -i HOME=/var/lib/postgresql LANG=C.UTF-8 PATH="$bindir:/usr/sbin:/usr/bin:/sbin:/bin" \
    bash -c 'echo $$ >"$0"; exec "$@"' "$pidfile" "$@" </dev/null >>"$logfile" 2>&1 &
}
# The pid in a pid file, if that process is alive and runs `what` (not a pid reused since).
live_pid() { # live_pid FILE WHAT
  local pid
  [ -f "$1" ] || return 1
  pid="$(head -n 1 "$1" 2>/dev/null || true)"
  [[ "$pid" =~ ^[0-9]+$ ]] && [ -r "/proc/$pid/cmdline" ] || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q -- "$2" || return 1
  echo "$pid"
}
# SIGKILL to a process and its children (a postmaster's backends, the walsender, the checkpointer):
# stopped first, so that it forks no child after the list is read, and the list read while the
# children are still its own (once it is dead they belong to init).
kill_tree() {
  local pid="$1" children
  kill -STOP "$pid" 2>/dev/null || return 0
  children="$(ps -o pid= --ppid "$pid" 2>/dev/null || true)"
  # shellcheck disable=SC2086 # a list of pids
  kill -9 "$pid" $children 2>/dev/null || true
}
postmaster_pid() { live_pid "$base/$1/data/postmaster.pid" postgres; }
patroni_pid() { live_pid "$base/$1/patroni.pid" patroni; }

q() { local port="$1" db="$2"; shift 2; psql -X -q -A -t -v ON_ERROR_STOP=1 -h "$host" -p "$port" -U postgres -d "$db" "$@"; }
# Whether `sql` answers `expected` on a server now (for wait_for).
answers() { [ "$(q "$1" "$2" -c "$3" 2>/dev/null)" = "$4" ]; }
port_busy() { (exec 3<>"/dev/tcp/$host/$1") 2>/dev/null; }
url_of() { echo "postgres://postgres@$host:$1/$database"; }
wait_for() { # wait_for SECONDS DESCRIPTION COMMAND...
  local limit="$1" what="$2"; shift 2
  local deadline=$(( $(date +%s) + limit ))
  until "$@" >/dev/null 2>&1; do
    [ "$(date +%s)" -lt "$deadline" ] || die "timed out after ${limit}s waiting for $what (logs: $base/log)"
    sleep 0.1
  done
}
# The HTTP status of a member's REST API endpoint (000: no answer).
api() { curl -s -o /dev/null -w '%{http_code}' --max-time 1 "http://$host:$1/$2" || true; }
api_is() { [ "$(api "$1" "$2")" = 200 ]; }
load_state() { [ -f "$state" ] || die "no cluster in $base (run: $0 up)"; . "$state"; }
pg_port_of() { local v="PG_${1^^}"; echo "${!v}"; }
api_port_of() { local v="API_${1^^}"; echo "${!v}"; }
# The member whose REST API says it leads (GET /leader: 200 on the leader only), or nothing.
leader_node() {
  local node
  for node in "${nodes[@]}"; do
    [ "$(api "$(api_port_of "$node")" leader)" = 200 ] && { echo "$node"; return 0; }
  done
  return 1
}

pick_port() { # pick_port REQUESTED DEFAULT AVOID...: the requested port (must be free), else the first free from DEFAULT
  local requested="$1" port="$2"; shift 2
  if [ -n "$requested" ]; then
    port_busy "$requested" && die "port $requested is in use"
    echo "$requested"; return
  fi
  while port_busy "$port" || [[ " $* " == *" $port "* ]]; do port=$((port + 1)); done
  echo "$port"
}

# Whatever a run left in DIR: its daemons (by their pid files) and servers, then the directory.
drop() {
  local node pid
  for node in "${nodes[@]}"; do
    if pid="$(patroni_pid "$node")"; then log "stopping $node's patroni ($pid)"; kill -9 "$pid" 2>/dev/null || true; fi
    if pid="$(postmaster_pid "$node")"; then log "stopping $node's postgres ($pid)"; kill_tree "$pid"; fi
  done
  if pid="$(live_pid "$base/etcd.pid" etcd)"; then log "stopping etcd ($pid)"; kill -9 "$pid" 2>/dev/null || true; fi
  # The killed servers' children notice their postmaster is gone on their own; wait for the ports.
  if [ -f "$state" ]; then
    (
      . "$state"
      for port in "$PG_NODE1" "$PG_NODE2" "$API_NODE1" "$API_NODE2" "$ETCD_CLIENT"; do
        for _ in $(seq 50); do port_busy "$port" || break; sleep 0.1; done
      done
    )
  fi
  rm -rf "$base"
}

# One member's Patroni configuration. The dynamic part (bootstrap.dcs) is written to etcd by the
# member that bootstraps and is the cluster's from then on.
member_config() { # member_config NODE PG_PORT API_PORT SYNC
  local node="$1" pg="$2" rest="$3" sync="$4"
  cat <<EOF
# Written by scripts/patroni-cluster.sh
scope: umo
namespace: /umo-patroni/
name: $node
log:
  level: INFO
restapi:
  listen: $host:$rest
  connect_address: $host:$rest
etcd3:
  hosts: $host:$ETCD_CLIENT
  protocol: http
bootstrap:
  dcs:
    ttl: $ttl
    loop_wait: $loop_wait
    retry_timeout: $retry_timeout
    maximum_lag_on_failover: 1048576
    synchronous_mode: $sync
    synchronous_mode_strict: false
    postgresql:
      use_pg_rewind: true
      use_slots: true
      parameters:
        wal_level: replica
        hot_standby: "on"
        hot_standby_feedback: "on"
        wal_log_hints: "on"
        max_wal_senders: 10
        max_replication_slots: 10
        max_connections: 100
        wal_receiver_status_interval: 1s
        shared_buffers: 64MB
        fsync: "$fsync"
        ssl: "off"
  initdb:
    - encoding: UTF8
    - locale: C.UTF-8
    - auth: trust
    - no-sync
    - no-instructions
  pg_hba:
    - local all all trust
  post_bootstrap: $base/post-bootstrap.sh
postgresql:
  listen: $host:$pg
  connect_address: $host:$pg
  data_dir: $base/$node/data
  bin_dir: $bindir
  pgpass: $base/$node/pgpass
  use_pg_rewind: true
  authentication:
    superuser:
      username: postgres
    replication:
      username: postgres
    rewind:
      username: postgres
  parameters:
    unix_socket_directories: $base/$node
  # Trust on the local socket and on loopback, for normal and replication connections.
  pg_hba:
    - local all all trust
    - host all all 127.0.0.1/32 trust
    - host all all ::1/128 trust
    - local replication all trust
    - host replication all 127.0.0.1/32 trust
    - host replication all ::1/128 trust
  basebackup:
    - checkpoint: fast
    - no-sync
watchdog:
  mode: "off"
tags:
  nofailover: false
  noloadbalance: false
  clonefrom: false
  nosync: false
EOF
}

start_member() {
  local node="$1"
  install -d -m 700 -o postgres -g postgres "$base/$node"
  daemon "$base/$node/patroni.pid" "$base/log/$node.log" "$patroni_bin" "$base/$node/patroni.yml"
}

print_urls() {
  local lead pport sport
  lead="$(leader_node)" || lead=node1
  if [ "$lead" = node1 ]; then pport="$PG_NODE1"; sport="$PG_NODE2"; else pport="$PG_NODE2"; sport="$PG_NODE1"; fi
  echo "PRIMARY_URL=$(url_of "$pport")"
  echo "STANDBY_URL=$(url_of "$sport")"
  echo "BOTH_URL=postgres://postgres@$host:$PG_NODE1,$host:$PG_NODE2/$database"
  echo "PRIMARY_PORT=$pport"
  echo "STANDBY_PORT=$sport"
}

cmd_up() {
  local sync=false want_pport="" want_sport=""
  while [ $# -gt 0 ]; do
    case "$1" in
      --sync) sync=true; shift ;;
      --no-fsync) fsync=off; shift ;;
      --primary-port) want_pport="$2"; shift 2 ;;
      --primary-port=*) want_pport="${1#*=}"; shift ;;
      --standby-port) want_sport="$2"; shift 2 ;;
      --standby-port=*) want_sport="${1#*=}"; shift ;;
      *) die "up: unknown option $1" ;;
    esac
  done
  drop
  PG_NODE1="$(pick_port "$want_pport" 54351)"
  PG_NODE2="$(pick_port "$want_sport" 54352 "$PG_NODE1")"
  [ "$PG_NODE1" != "$PG_NODE2" ] || die "primary and standby need different ports"
  API_NODE1="$(pick_port "" 8108 "$PG_NODE1" "$PG_NODE2")"
  API_NODE2="$(pick_port "" 8109 "$PG_NODE1" "$PG_NODE2" "$API_NODE1")"
  ETCD_CLIENT="$(pick_port "" 23790 "$PG_NODE1" "$PG_NODE2" "$API_NODE1" "$API_NODE2")"
  ETCD_PEER="$(pick_port "" 23890 "$PG_NODE1" "$PG_NODE2" "$API_NODE1" "$API_NODE2" "$ETCD_CLIENT")"

  install -d -m 755 -o postgres -g postgres "$base"
  runuser -u postgres -- test -x "$base" ||
    die "the postgres user cannot reach $base (a parent directory is not world-searchable)"
  install -d -m 755 -o postgres -g postgres "$base/log"
  cat >"$state" <<EOF
PG_NODE1=$PG_NODE1
PG_NODE2=$PG_NODE2
API_NODE1=$API_NODE1
API_NODE2=$API_NODE2
ETCD_CLIENT=$ETCD_CLIENT
ETCD_PEER=$ETCD_PEER
SYNC=$sync
EOF

  log "starting etcd (client :$ETCD_CLIENT, peer :$ETCD_PEER)"
  install -d -m 700 -o postgres -g postgres "$base/etcd"
  daemon "$base/etcd.pid" "$base/log/etcd.log" "$etcd_bin" --name umo-etcd --data-dir "$base/etcd/data" \
    --listen-client-urls "http://$host:$ETCD_CLIENT" --advertise-client-urls "http://$host:$ETCD_CLIENT" \
    --listen-peer-urls "http://$host:$ETCD_PEER" --initial-advertise-peer-urls "http://$host:$ETCD_PEER" \
    --initial-cluster "umo-etcd=http://$host:$ETCD_PEER" --initial-cluster-state new \
    --initial-cluster-token "umo-patroni-$ETCD_CLIENT" --log-level warn --logger zap
  wait_for 30 "etcd to answer" curl -sf --max-time 1 "http://$host:$ETCD_CLIENT/health"

  # Patroni calls it with the superuser's connection string (dbname=postgres); a later dbname wins.
  cat >"$base/post-bootstrap.sh" <<EOF
#!/bin/sh
set -e
"$bindir/psql" -X -q -v ON_ERROR_STOP=1 -d "\$1" -c "CREATE DATABASE $database"
"$bindir/psql" -X -q -v ON_ERROR_STOP=1 -d "\$1 dbname=$database" -c "CREATE EXTENSION IF NOT EXISTS vector"
EOF
  chown postgres: "$base/post-bootstrap.sh"
  chmod 755 "$base/post-bootstrap.sh"

  local node
  for node in "${nodes[@]}"; do
    install -d -m 700 -o postgres -g postgres "$base/$node"
    member_config "$node" "$(pg_port_of "$node")" "$(api_port_of "$node")" "$sync" >"$base/$node/patroni.yml"
    chown postgres: "$base/$node/patroni.yml"
  done

  log "starting node1 (postgres :$PG_NODE1, REST API :$API_NODE1): initdb, post_bootstrap"
  start_member node1
  wait_for 90 "node1 to lead" api_is "$API_NODE1" leader
  wait_for 30 "database $database with the vector extension on node1" answers "$PG_NODE1" "$database" \
    "SELECT NOT pg_is_in_recovery() AND EXISTS (SELECT FROM pg_extension WHERE extname = 'vector')" t
  log "node1 leads; starting node2 (postgres :$PG_NODE2, REST API :$API_NODE2): pg_basebackup from node1"
  start_member node2
  wait_for 90 "node2 to stream from node1" answers "$PG_NODE1" postgres \
    "SELECT state FROM pg_stat_replication WHERE application_name = 'node2'" streaming
  if [ "$sync" = true ]; then
    wait_for 30 "node2 to become synchronous" answers "$PG_NODE1" postgres \
      "SELECT sync_state FROM pg_stat_replication WHERE application_name = 'node2'" sync
  fi
  wait_for 30 "node2's REST API to report a running replica" api_is "$API_NODE2" replica
  q "$PG_NODE2" "$database" -c "SELECT 1" >/dev/null
  log "up: leader node1 :$PG_NODE1, replica node2 :$PG_NODE2$([ "$sync" = false ] || echo " (synchronous)"); ttl $ttl, loop_wait $loop_wait, retry_timeout $retry_timeout"
  print_urls
}

cmd_status() {
  load_state
  local cfg="$base/node1/patroni.yml"
  if [ -n "$patronictl_bin" ] && runuser -u postgres -- env -i HOME=/var/lib/postgresql LANG=C.UTF-8 \
      PATH="/usr/bin:/bin" "$patronictl_bin" -c "$cfg" list 2>/dev/null; then
    return 0
  fi
  local node
  for node in "${nodes[@]}"; do
    echo "$node: $(curl -s --max-time 1 "http://$host:$(api_port_of "$node")/patroni" || echo unreachable)"
  done
}

cmd_stop_primary() {
  load_state
  local postgres_only=false node pid
  case "${1:-}" in
    "") ;;
    --postgres-only) postgres_only=true ;;
    *) die "stop-primary: unknown option $1" ;;
  esac
  node="$(leader_node)" || die "no member leads now"
  if [ "$postgres_only" = false ]; then
    pid="$(patroni_pid "$node")" || die "$node's patroni is not running"
    kill -9 "$pid"
    log "$node's patroni killed ($pid)"
  fi
  pid="$(postmaster_pid "$node")" || die "$node's postgres is not running"
  kill_tree "$pid"
  log "$node's postgres killed ($pid, :$(pg_port_of "$node"))"
}

cmd_start() {
  load_state
  local node="${1:-}"
  case "$node" in node1|node2) ;; *) die "start: node1 or node2" ;; esac
  ! patroni_pid "$node" >/dev/null || die "$node's patroni is running"
  if pid="$(postmaster_pid "$node")"; then kill_tree "$pid"; fi
  start_member "$node"
  log "$node's patroni started"
}

case "$command" in
  up) cmd_up "$@" ;;
  urls) load_state; print_urls ;;
  status) cmd_status ;;
  leader) load_state; node="$(leader_node)" || die "no member leads now"; pg_port_of "$node" ;;
  stop-primary) cmd_stop_primary "$@" ;;
  start) cmd_start "$@" ;;
  down) drop; log "down" ;;
  check) ;;
  *) usage ;;
esac
