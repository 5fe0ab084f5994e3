#!/usr/bin/env bash
# Installs those of the given Debian packages that are not installed yet
# (apt-get, with sudo when not root), never removing a package to make room.
# A bare name means the machine's own architecture (or an "all" package);
# name:arch another one. Used by build.sh, bench.sh and test-arm64.sh.
#   scripts/install-missing.sh PACKAGE...
set -euo pipefail
native="$(dpkg --print-architecture)"
installed() {
  case "$1" in
    *:*) dpkg-query -W -f='${Status}\n' "$1" 2>/dev/null | grep -qx "install ok installed" ;;
    *) dpkg-query -W -f='${Status} ${Architecture}\n' "$1" 2>/dev/null | grep -qE "^install ok installed ($native|all)$" ;;
  esac
}
missing=()
for p in "$@"; do
  installed "$p" || missing+=("$p")
done
[ ${#missing[@]} -gt 0 ] || exit 0
echo "spritz: installing ${missing[*]}" >&2
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends --no-remove "${missing[@]}" >&2
