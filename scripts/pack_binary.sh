#!/bin/bash
# Packs a built program with the shared libraries it loads, for a machine of the same architecture
# that lacks the project's Debian packages and cannot install them (e.g. a larger machine lent for a
# benchmark). The C library itself stays behind (a newer one runs these binaries).
#
#   scripts/pack_binary.sh [--slim] BINARY OUT.tar.xz
#
# The archive holds pack/lib/*.so* and pack/<path of BINARY under the build>/NAME, a wrapper that
# sets LD_LIBRARY_PATH to the libraries for that program alone (so the target machine's own
# programs keep their libraries), and NAME.bin. Unpack it anywhere (tar -xJf, or Python's tarfile
# where xz is missing) and pass pack/ where a benchmark asks for the build directory (e.g.
# `bench/ios/ios_bench.py --build pack`).
# --slim replaces two libraries that LLVM loads but the programs never call with empty stand-ins
# (Z3, for LLVM's static analyser; ICU's data, for libxml2): bench/ios/ios_runner packs into
# 42 MB instead of 57 MB.
set -euo pipefail
slim=0
if [ "${1:-}" = "--slim" ]; then slim=1; shift; fi
if [ $# -ne 2 ] || [ ! -x "$1" ]; then
  echo "usage: scripts/pack_binary.sh [--slim] BUILT_PROGRAM OUT.tar.xz" >&2
  exit 2
fi
bin=$(readlink -f "$1")
out=$(readlink -f "$2")
build=$(cd "$(dirname "$bin")" && git rev-parse --show-toplevel 2>/dev/null || true)
rel=${bin#"$build"/}
rel=${rel#build/}
[ "$rel" = "$bin" ] && rel=$(basename "$bin")
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/pack/lib" "$stage/pack/$(dirname "$rel")"
ldd "$bin" | awk '$3 ~ /^\// {print $3}' | grep -v -E '/(libc|libm|libpthread|libdl|librt)\.so|ld-linux' |
  while read -r lib; do cp -L "$lib" "$stage/pack/lib/"; done
if [ "$slim" = 1 ]; then
  llvm=$(ls "$stage"/pack/lib/libLLVM-*.so* 2>/dev/null | head -1)
  if [ -n "$llvm" ] && [ -e "$stage/pack/lib/libz3.so.4" ]; then
    { echo '#include <stdlib.h>'; nm -D "$llvm" | awk '$1 == "U" && $2 ~ /^Z3_/ {print "void " $2 "(void) { abort(); }"}'; } > "$stage/z3.c"
    cc -shared -fPIC -Wl,-soname,libz3.so.4 -o "$stage/pack/lib/libz3.so.4" "$stage/z3.c"
  fi
  for data in "$stage"/pack/lib/libicudata.so.*; do
    [ -e "$data" ] || continue
    soname=$(basename "$data")
    sym=$(nm -D "$stage"/pack/lib/libicuuc.so.* | awk '$1 == "U" && $2 ~ /^icudt[0-9]+_dat$/ {print $2}' | head -1)
    echo "const char ${sym}[64] __attribute__((aligned(16))) = {0};" > "$stage/icu.c"
    cc -shared -fPIC -Wl,-soname,"$soname" -o "$data" "$stage/icu.c"
  done
fi
name=$(basename "$bin")
cp "$bin" "$stage/pack/$rel.bin"
cat > "$stage/pack/$rel" <<WRAP
#!/bin/sh
# $name with the shared libraries packed beside it (scripts/pack_binary.sh).
here=\$(dirname "\$(readlink -f "\$0")")
LD_LIBRARY_PATH="\$here/$(dirname "$rel" | sed 's#[^/][^/]*#..#g')/lib" exec "\$here/$name.bin" "\$@"
WRAP
chmod +x "$stage/pack/$rel"
# Every library the program needs must resolve inside the pack.
if LD_LIBRARY_PATH="$stage/pack/lib" ldd "$stage/pack/$rel.bin" | grep -q 'not found'; then
  echo "pack_binary.sh: a library of $name was not found" >&2
  exit 1
fi
tar -C "$stage" -cf - pack | xz -9 -T2 > "$out"
echo "$out: $(du -h "$out" | cut -f1), $(ls "$stage/pack/lib" | wc -l) libraries"
