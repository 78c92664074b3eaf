#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The manual page, the bash completion and `make install`, end to end.
# Usage: bash tests/install.sh MMSIM_BIN SOURCE_DIR   (CMake runs it so)
#
# Checks: `mmsim man` is roff with every command and option of the help
# text (and groff renders it without a warning, where groff exists);
# `mmsim completion bash` is valid bash that completes commands, options,
# scenarios, profiles and --locks-format values; `make install PREFIX=...
# DESTDIR=...` puts the binary, the page and the completion in place (when
# the release build SOURCE_DIR/build/mmsim exists, as under `make test`).
set -u
BIN=$1 SRC=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
fail() { echo "FAIL: $*"; exit 1; }

# 1. the manual page
"$BIN" man > mmsim.1 || fail "mmsim man exited $?"
head -1 mmsim.1 | grep -q '^\.TH MMSIM 1 ' || fail "no .TH line: $(head -1 mmsim.1)"
for cmd in $("$BIN" help | sed -n '/^usage:/,/^$/p' | awk '$1 == "mmsim" { print $2 }'); do
	grep -q "^\.B $cmd" mmsim.1 || fail "man: no command $cmd"
done
n=0
for opt in $("$BIN" help | sed -n '/^options/,/^$/p' | awk '$1 ~ /^--/ { print $1 }'); do
	grep -qF ".B $(echo "$opt" | sed 's/-/\\-/g')" mmsim.1 || fail "man: no option $opt"
	n=$((n + 1))
done
[ $n -ge 15 ] || fail "only $n options in the help text"
if command -v groff > /dev/null; then
	groff -man -Tascii -ww mmsim.1 2> groff.err | sed 's/.\x08//g' > page.txt ||
		fail "groff exited $?"
	[ -s groff.err ] && fail "groff: $(head -3 groff.err)"
	grep -q -- "--locks-format" page.txt || fail "rendered page lacks --locks-format"
fi
echo "ok: man page, $n options"

# 2. bash completion
"$BIN" completion bash > mmsim.bash || fail "mmsim completion bash exited $?"
bash -n mmsim.bash || fail "completion script is not valid bash"
complete_words() {	# complete_words WORD...: the completions of the last word
	bash -c 'source ./mmsim.bash; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _mmsim
		 [ ${#COMPREPLY[@]} -eq 0 ] || printf "%s\n" "${COMPREPLY[@]}"' _ "$@" | sort | tr '\n' ' '
}
[ "$(complete_words mmsim ru)" = "run " ] || fail "mmsim ru -> $(complete_words mmsim ru)"
[ "$(complete_words mmsim run spin)" = "spinlock " ] || fail "run spin -> $(complete_words mmsim run spin)"
[ "$(complete_words mmsim run spinlock --lo)" = "--locks-format " ] ||
	fail "--lo -> $(complete_words mmsim run spinlock --lo)"
[ "$(complete_words mmsim run spinlock --locks-format l)" = "lock_stat " ] || fail "--locks-format l"
[ "$(complete_words mmsim run spinlock --profile desk)" = "desktop desktop-kvm " ] ||
	fail "--profile desk -> $(complete_words mmsim run spinlock --profile desk)"
[ "$(complete_words mmsim merge --va)" = "" ] || fail "merge has no --vary"
[ "$(complete_words mmsim sweep x --va)" = "--variant --vary " ] || fail "sweep --va"
"$BIN" completion zsh > /dev/null 2> err.txt && fail "completion zsh accepted"
grep -q "mmsim: error: completion zsh: expected the shell: bash" err.txt || fail "$(cat err.txt)"
echo "ok: bash completion"

# 3. make install
if [ -x "$SRC/build/mmsim" ]; then
	make -s -C "$SRC" -o build install PREFIX=/opt/mmsim DESTDIR="$T/root" > make.log 2>&1 ||
		fail "make install: $(tail -3 make.log)"
	[ -x "$T/root/opt/mmsim/bin/mmsim" ] || fail "no bin/mmsim"
	"$T/root/opt/mmsim/bin/mmsim" --version | grep -q '^mmsim ' || fail "installed binary"
	grep -q '^\.TH MMSIM 1' "$T/root/opt/mmsim/share/man/man1/mmsim.1" || fail "no man page"
	bash -n "$T/root/opt/mmsim/share/bash-completion/completions/mmsim" || fail "no completion"
	echo "ok: make install"
else
	echo "skip: make install ($SRC/build/mmsim is not built)"
fi
