#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# run.sh - run the objrmap harness programs built in $O, each printing
# KTAP, nested (indented by four spaces) in one KTAP document; the last
# line is "objrmap: N passed, N failed, N skipped".  A program that exits 4
# (kselftest's KSFT_SKIP: lifecycle without a patched tree) is reported as
# "ok N name # SKIP".  Exit status 0 only if none failed.
# Called by "make test" with O, STRESS_SECONDS_* and *SAN_OPTIONS set.
set -u

: "${O:?}"
logs=$O/logs
mkdir -p "$logs"

# variant program [args]: name shown
set -- \
	"plain unit" \
	"plain index" \
	"plain stress" \
	"plain lifecycle" \
	"asan unit" \
	"asan index" \
	"asan stress" \
	"asan lifecycle" \
	"tsan tsan_selftest" \
	"tsan stress" \
	"tsan lifecycle"

echo "KTAP version 1"
echo "1..$#"
n=0 pass=0 fail=0 skip=0
for run in "$@"; do
	n=$((n + 1))
	set -- $run
	variant=$1 prog=$2
	name="$variant/$prog"
	eval seconds=\${STRESS_SECONDS_$variant:-2}
	mkdir -p "$logs/$variant"
	echo "# Subtest: $name"
	start=$(date +%s)
	OBJRMAP_LOGDIR=$logs/$variant OBJRMAP_STRESS_SECONDS=$seconds \
		"$O/$variant/$prog" > "$logs/$variant/$prog.ktap" 2> "$logs/$variant/$prog.stderr"
	rc=$?
	sed 's/^/    /' "$logs/$variant/$prog.ktap"
	if [ -s "$logs/$variant/$prog.stderr" ]; then
		echo "    # stderr: $logs/$variant/$prog.stderr"
		sed -n '1,20s/^/    # | /p' "$logs/$variant/$prog.stderr"
	fi
	end=$(date +%s)
	if [ $rc -eq 4 ]; then
		reason=$(sed -n 's/^1\.\.0 # SKIP //p' "$logs/$variant/$prog.ktap")
		echo "ok $n $name # SKIP ${reason:-exit status 4}"
		skip=$((skip + 1))
	elif [ $rc -eq 0 ]; then
		echo "ok $n $name # $((end - start))s"
		pass=$((pass + 1))
	else
		echo "not ok $n $name # exit status $rc, $((end - start))s"
		fail=$((fail + 1))
	fi
done
echo "# Totals: pass:$pass fail:$fail xfail:0 xpass:0 skip:$skip error:0"
echo "objrmap: $pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
