#!/usr/bin/env bash
# Builds the Dockerfile with buildah on a machine that reaches Debian's archive and the npm registry
# but no container registry (as where groundwatch is developed): the base image node:20.20.2-bookworm-slim
# cannot be pulled, so a stand-in with that name is made locally first — Debian bookworm (debootstrap,
# minbase), this machine's Node.js and npm, a `node` user with uid 1000, and this machine's CA bundle
# (so npm inside trusts what the host trusts). Then `buildah bud --pull=never` builds the Dockerfile
# with NODE_IMAGE set to that name (the Dockerfile's default also pins the official image's digest,
# which the stand-in cannot have).
#
#   sudo deploy/build-without-registry.sh [--build-arg GROUNDWATCH_ONNX=true] [-t groundwatch:0.1.0]
#
# Needs: apt-get install buildah debootstrap; node at the version the Dockerfile names. The result is
# the Dockerfile built for real (every RUN and COPY), on a stand-in base, not the official node image.
set -euo pipefail
cd "$(dirname "$0")/.."
BASE=docker.io/library/node:20.20.2-bookworm-slim
STORE=(--storage-driver vfs)
want="v${BASE##*node:}"; want="${want%%-*}"
[ "$(node --version)" = "$want" ] || { echo "node $(node --version) here, the Dockerfile's base has $want" >&2; exit 1; }

if ! buildah "${STORE[@]}" inspect --type image "$BASE" >/dev/null 2>&1; then
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  debootstrap --variant=minbase bookworm "$work/rootfs" http://deb.debian.org/debian >/dev/null
  node_bin=$(command -v node)
  npm_dir=$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")
  mkdir -p "$work/rootfs/usr/local/bin" "$work/rootfs/usr/local/lib/node_modules" "$work/rootfs/etc/ssl/certs"
  cp "$node_bin" "$work/rootfs/usr/local/bin/node"
  cp -a "$npm_dir" "$work/rootfs/usr/local/lib/node_modules/npm"
  ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$work/rootfs/usr/local/bin/npm"
  ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$work/rootfs/usr/local/bin/npx"
  cp /etc/ssl/certs/ca-certificates.crt "$work/rootfs/etc/ssl/certs/ca-certificates.crt"
  chroot "$work/rootfs" /bin/sh -c 'groupadd -g 1000 node && useradd -u 1000 -g node -s /bin/bash -m node'
  rm -rf "$work/rootfs/var/cache/apt/archives/"*.deb "$work/rootfs/var/lib/apt/lists/"*
  ctr=$(buildah "${STORE[@]}" from scratch)
  mnt=$(buildah "${STORE[@]}" mount "$ctr")
  cp -a "$work/rootfs/." "$mnt/"
  buildah "${STORE[@]}" umount "$ctr" >/dev/null
  buildah "${STORE[@]}" config --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    --env NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt --cmd node "$ctr"
  buildah "${STORE[@]}" commit -q "$ctr" "$BASE" >/dev/null
  buildah "${STORE[@]}" rm "$ctr" >/dev/null
  echo "made a stand-in for $BASE" >&2
fi

# --format docker keeps HEALTHCHECK (the OCI format has no field for it).
[ $# -gt 0 ] || set -- -t groundwatch:0.1.0
buildah "${STORE[@]}" bud --pull=never --isolation=chroot --layers=false --format docker --build-arg NODE_IMAGE="$BASE" "$@" .
