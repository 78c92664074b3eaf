#!/usr/bin/env bash
# Build the engine with the AArch64 assembly context backend and run it
# under qemu-user, then compare its output with the host's x86-64 build.
# Needs: apt-get install gcc-aarch64-linux-gnu qemu-user
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
srcs="src/engine/sched.c src/engine/util.c src/engine/ctx/ctx_asm.c src/hw/spinlock.c
      src/hw/cacheline.c src/hw/ipi.c src/hw/rwsem.c src/hw/machine.c src/engine/trace.c src/engine/engine.c
      src/mm/fair.c tests/cross/engine_main.c"
flags="-std=gnu11 -O2 -D_GNU_SOURCE -Iinclude -Isrc -Itests -static"
gcc $flags $srcs src/engine/ctx/switch_x86_64.S -o "$out/x86_64"
aarch64-linux-gnu-gcc $flags $srcs src/engine/ctx/switch_aarch64.S -o "$out/aarch64"
a=$("$out/x86_64")
b=$(qemu-aarch64 "$out/aarch64")
echo "x86_64:  $a"
echo "aarch64: $b"
[ "$a" = "$b" ] && echo "same output" || { echo "outputs differ"; exit 1; }
