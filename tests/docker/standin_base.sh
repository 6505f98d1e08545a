#!/usr/bin/env bash
# Makes a stand-in for the Dockerfile's base image (python:3.11-slim) where Docker Hub cannot be
# reached: Debian bookworm from the Debian mirror apt already uses, with bookworm's Python 3.11,
# loaded into the engine with `docker import`. The same Python minor version as CI's, so the
# image's Python is the one the suite tests.
#
# Usage: tests/docker/standin_base.sh TAG
# The root filesystem is kept as a tarball under $PENTA_DOCKER_CACHE (default
# /var/cache/penta-docker), outside the repository: a second run on the same machine imports it
# again in seconds instead of bootstrapping (about two minutes).
set -euo pipefail
tag=${1:?usage: standin_base.sh TAG}
cache=${PENTA_DOCKER_CACHE:-/var/cache/penta-docker}
tarball=$cache/bookworm-python3.11.tar

if [ ! -s "$tarball" ]; then
  command -v debootstrap >/dev/null || {
    echo "debootstrap is missing: apt-get install debootstrap" >&2
    exit 1
  }
  # The mirror apt is configured with (deb822 or one-line sources), else Debian's own.
  mirror=$(grep -hoE '^URIs: *\S+/debian/?$' /etc/apt/sources.list.d/*.sources 2>/dev/null \
    | head -n1 | awk '{print $2}') || true
  mirror=${mirror:-$(grep -hoE '^deb +\S+/debian/? +bookworm ' /etc/apt/sources.list 2>/dev/null \
    | head -n1 | awk '{print $2}')} || true
  mirror=${mirror:-http://deb.debian.org/debian}
  root=$(mktemp -d "${TMPDIR:-/tmp}/penta-base.XXXXXX")
  trap 'rm -rf "$root"' EXIT
  debootstrap --variant=minbase --include=python3,python3-venv,ca-certificates \
    bookworm "$root" "$mirror" >"$root.log" 2>&1 || {
    tail -n 20 "$root.log" >&2
    exit 1
  }
  # python:3.11-slim answers to `python`; bookworm's Python is python3 only.
  ln -sf /usr/bin/python3 "$root/usr/local/bin/python"
  rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/* "$root.log"
  mkdir -p "$cache"
  tar -C "$root" -cf "$tarball.tmp" . && mv "$tarball.tmp" "$tarball"
fi

docker import \
  --change 'ENV LANG=C.UTF-8' \
  --change 'ENV PATH=/usr/local/bin:/usr/local/sbin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'CMD ["python3"]' \
  "$tarball" penta-standin-rootfs:bookworm >/dev/null

# This machine's trust store goes in last, fresh on every import: where HTTPS to the package
# registries passes through a proxy with its own certificate authority, the image build's
# downloads (uv, the locked wheels) must trust it as the host does. SSL_CERT_FILE points uv,
# which otherwise trusts only its own bundled roots, at it.
context=$(mktemp -d "${TMPDIR:-/tmp}/penta-base-ctx.XXXXXX")
trap 'rm -rf "$context"' EXIT
cp /etc/ssl/certs/ca-certificates.crt "$context/"
cat >"$context/Dockerfile" <<'DOCKERFILE'
FROM penta-standin-rootfs:bookworm
COPY ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
ENV SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt
LABEL org.penta.standin="Debian bookworm with its Python 3.11, for python:3.11-slim"
DOCKERFILE
docker build --quiet -t "$tag" "$context" >/dev/null
echo "$tag: stand-in imported from $tarball"
