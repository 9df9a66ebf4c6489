#!/usr/bin/env bash
# Installs every Debian package the project needs (the lists in scripts/packages/*.txt,
# skipping what is present) and builds into build/. Used by demo.sh and test.sh.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"

mapfile -t wanted < <(cat scripts/packages/*.txt | sed 's/#.*//' | tr -s ' \t' '\n' | grep -v '^$' | sort -u)
missing=()
sudo_cmd=()
[ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
for p in "${wanted[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${#missing[@]} Debian packages: ${missing[*]}"
  "${sudo_cmd[@]}" apt-get -o DPkg::Lock::Timeout=600 update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get -o DPkg::Lock::Timeout=600 install -y -qq "${missing[@]}"
fi

# The browser page's JavaScript (web/package-lock.json), installed exactly as locked; skipped
# when node_modules was installed from this very lockfile (the stamp is a copy of it).
if ! command -v npm >/dev/null; then
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get -o DPkg::Lock::Timeout=600 install -y -qq npm
fi
if ! cmp -s web/package-lock.json web/node_modules/.mesh2dsp-lock-stamp 2>/dev/null; then
  echo "setup: npm ci in web/"
  (cd web && npm ci --no-audit --no-fund && cp package-lock.json node_modules/.mesh2dsp-lock-stamp)
fi

jobs=$(nproc 2>/dev/null || echo 2)
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build build -j"$jobs"
