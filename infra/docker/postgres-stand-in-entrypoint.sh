#!/bin/sh
# On an empty data directory: initdb with POSTGRES_USER/POSTGRES_PASSWORD and create POSTGRES_DB, as the official
# image's entrypoint does; then run the command (postgres and its flags).
set -eu
if [ "${1:-}" = "postgres" ] && [ ! -s "$PGDATA/PG_VERSION" ]; then
  user="${POSTGRES_USER:-postgres}"
  database="${POSTGRES_DB:-$user}"
  pwfile="$(mktemp)"
  printf '%s\n' "${POSTGRES_PASSWORD:?set POSTGRES_PASSWORD}" > "$pwfile"
  initdb -D "$PGDATA" -U "$user" --pwfile="$pwfile" --auth-host=scram-sha-256 --auth-local=trust > /dev/null
  rm -f "$pwfile"
  if [ "$database" != "postgres" ]; then
    echo "CREATE DATABASE \"$database\" OWNER \"$user\";" | postgres --single -D "$PGDATA" postgres > /dev/null
  fi
  echo "initialised $PGDATA (user $user, database $database)"
fi
exec "$@"
