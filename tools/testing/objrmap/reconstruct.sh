#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# reconstruct.sh REPO OUTDIR FILE...
#
# Rebuild FILE... (paths in the kernel tree, e.g. mm/objrmap.c) from the
# series in REPO/patches: apply, in series order, the hunks of every
# listed patch that touch those files, and nothing else, to an empty tree.
# The files are written under OUTDIR only when their content changed, so
# make rebuilds what depends on them only then.  OUTDIR/PATCHES lists the
# patches that contributed.
#
# The series is read by tools/vmshm series, the reader everything else
# uses.  Fails loudly if the series or a patch it lists is missing, if a
# hunk does not apply exactly (no fuzz), or if a file ends up absent.
# Needs python3, filterdiff (patchutils) and GNU patch.
set -eu

die() { echo "reconstruct.sh: $*" >&2; exit 1; }

[ $# -ge 3 ] || die "usage: reconstruct.sh REPO OUTDIR FILE..."
repo=$1 out=$2
shift 2
FILES="$*"
series=$repo/patches/series
[ -f "$series" ] || die "no series file: $series"
command -v filterdiff >/dev/null || die "filterdiff not found (Debian package: patchutils)"
command -v patch >/dev/null || die "patch not found (Debian package: patch)"

mkdir -p "$out"
tmp=$(mktemp -d "$out/.reconstruct.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/tree"
: > "$tmp/PATCHES"

# The series as the project's one reader reads it (tools/vmshm series):
# "STRIP NAME" a line, in order.
python3 "$repo/tools/vmshm" series --strip --patches "$repo/patches" > "$tmp/series" ||
	die "cannot read $series"
while read -r strip name; do
	file=$repo/patches/$name
	[ -f "$file" ] || die "$series: $name is listed but $file does not exist"
	set --
	for f in $FILES; do set -- "$@" -i "$f"; done
	filterdiff -p"$strip" "$@" "$file" > "$tmp/hunks" ||
		die "filterdiff failed on $name"
	[ -s "$tmp/hunks" ] || continue
	if ! (cd "$tmp/tree" && patch -p"$strip" --forward --batch --fuzz=0 \
		--no-backup-if-mismatch --reject-file=- < "$tmp/hunks") > "$tmp/log" 2>&1; then
		cat "$tmp/log" >&2
		die "the hunks of $name that touch $FILES do not apply (in series order, no fuzz)"
	fi
	echo "$name" >> "$tmp/PATCHES"
done < "$tmp/series"

for f in $FILES; do
	[ -f "$tmp/tree/$f" ] || die "no patch in $series creates $f"
	mkdir -p "$(dirname "$out/$f")"
	if ! cmp -s "$tmp/tree/$f" "$out/$f"; then
		cp "$tmp/tree/$f" "$out/$f.new"
		mv "$out/$f.new" "$out/$f"
		echo "reconstructed $f from: $(tr '\n' ' ' < "$tmp/PATCHES")"
	fi
done
cmp -s "$tmp/PATCHES" "$out/PATCHES" || cp "$tmp/PATCHES" "$out/PATCHES"
