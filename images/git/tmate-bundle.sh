#!/bin/sh
# Usage: tmate-bundle.sh OUT_DIR
# Writes a tmate that runs in any Linux image with a /bin/sh of this machine's architecture (glibc,
# musl or none): Debian's tmate binary, the shared libraries it links, glibc's loader and the
# C.UTF-8 locale tmate insists on, behind a wrapper that starts the binary through that loader.
# svc's clone image carries it at /opt/svc/tmate; the Docker runner mounts it into debug builds'
# steps at /usr/drone/tmate (SVC_SHELLSHARE_ENABLED).
set -eu
out=$1
bin=$(command -v tmate) || { echo "tmate-bundle: tmate is not installed (apt-get install tmate)" >&2; exit 1; }
mkdir -p "$out/lib" "$out/locale"
cp "$bin" "$out/tmate.bin"
ldd "$bin" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\/.*ld-linux/ { print $1 }' |
  while read -r lib; do cp -L "$lib" "$out/lib/"; done
loader=$(cd "$out/lib" && ls ld-linux-* | head -n 1)
[ -n "$loader" ] || { echo "tmate-bundle: no glibc loader among tmate's libraries" >&2; exit 1; }
cp -r /usr/lib/locale/C.utf8 "$out/locale/"
cat >"$out/tmate" <<WRAPPER
#!/bin/sh
# svc's tmate bundle: Debian's tmate started through its own loader and libraries.
here=\${0%/*}
LOCPATH="\$here/locale" LC_ALL=C.UTF-8 exec "\$here/lib/$loader" --library-path "\$here/lib" "\$here/tmate.bin" "\$@"
WRAPPER
chmod 0755 "$out/tmate" "$out/tmate.bin"
