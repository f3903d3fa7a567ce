#!/usr/bin/env bash
# Makes the machine's PostgreSQL server ready for the PostgreSQL half of the storage tests:
# starts the cluster if it is down, and builds pgvector from Debian's source package against the
# installed server's dev package when the extension is missing. Uses a private apt configuration
# for the source download (the system's apt sources are never changed). Idempotent.
# Prints the database URL to use (a fresh database `umo_test` with the vector extension).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cache="${UMO_PROVISION_CACHE:-$HOME/.cache/umo/pgvector}"
host=127.0.0.1
port=5432
database="${UMO_TEST_DATABASE:-umo_test}"
log() { echo "provision-postgres: $*" >&2; }

version="$(ls /etc/postgresql | sort -V | tail -n 1)"
[ -n "$version" ] || { log "no PostgreSQL cluster in /etc/postgresql"; exit 1; }

if ! pg_isready -q -h "$host" -p "$port"; then
  log "starting PostgreSQL $version"
  pg_ctlcluster --skip-systemctl-redirect "$version" main start
  for _ in $(seq 1 30); do pg_isready -q -h "$host" -p "$port" && break; sleep 1; done
fi

if [ ! -f "/usr/share/postgresql/$version/extension/vector.control" ]; then
  if ! dpkg -s "postgresql-server-dev-$version" >/dev/null 2>&1; then
    log "installing postgresql-server-dev-$version"
    apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "postgresql-server-dev-$version" >&2
  fi
  codename="$(. /etc/os-release && echo "$VERSION_CODENAME")"
  mkdir -p "$cache/apt/lists/partial" "$cache/apt/archives/partial" "$cache/src"
  # Debian carries pgvector from trixie on; the machine's own release is listed first in case it
  # has it too, and apt takes the newest version either offers.
  for suite in "$codename" stable; do
    echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian $suite main"
  done >"$cache/apt/sources.list"
  apt_private=(
    -o "Dir::Etc::SourceList=$cache/apt/sources.list"
    -o "Dir::Etc::SourceParts=/dev/null"
    -o "Dir::State::Lists=$cache/apt/lists"
    -o "Dir::Cache::Archives=$cache/apt/archives"
    -o "APT::Sandbox::User=root"
  )
  log "fetching Debian's pgvector source package"
  apt-get "${apt_private[@]}" update -qq >&2
  rm -rf "$cache/src" && mkdir -p "$cache/src"
  (cd "$cache/src" && apt-get "${apt_private[@]}" source -qq pgvector >&2)
  src="$(find "$cache/src" -mindepth 1 -maxdepth 1 -type d -name 'pgvector-*' | head -n 1)"
  log "building pgvector in $src"
  make -s -C "$src" PG_CONFIG="/usr/lib/postgresql/$version/bin/pg_config" OPTFLAGS="" >&2
  make -s -C "$src" PG_CONFIG="/usr/lib/postgresql/$version/bin/pg_config" install >&2
fi

psql_admin() { psql -v ON_ERROR_STOP=1 -q -h "$host" -p "$port" -U postgres "$@"; }
psql_admin -d postgres -c "DROP DATABASE IF EXISTS $database WITH (FORCE)" >&2
psql_admin -d postgres -c "CREATE DATABASE $database" >&2
psql_admin -d "$database" -c "CREATE EXTENSION IF NOT EXISTS vector" >&2
echo "postgres://postgres@$host:$port/$database"
