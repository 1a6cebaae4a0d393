#!/usr/bin/env bash
# Runs `make test` (or the command given as arguments) while CPU hogs keep
# the load average at or above LOAD_TARGET (8 by default), as on a busy CI
# machine; prints the load every LOAD_SAMPLE seconds and the result.
#
#   hack/test-loaded.sh                 # make test under load
#   hack/test-loaded.sh go test ./fake  # any command under load
#
# The hogs are busy loops at the lowest priority (nice 19): they take the
# CPU only when the tested programs do not, so the load rises without
# starving the tests outright, which is the condition the suite must
# survive. They are stopped on exit, on Ctrl-C and on SIGTERM.
#
# Knobs: LOAD_TARGET (8), HOGS (LOAD_TARGET busy loops: each adds one to
# the load average once it has had a minute to climb), LOAD_SAMPLE (30 s),
# LOAD_WARMUP (60 s of hogging before the command starts, so the load has
# climbed; 0 starts at once).
set -u

LOAD_TARGET=${LOAD_TARGET:-8}
HOGS=${HOGS:-$LOAD_TARGET}
LOAD_SAMPLE=${LOAD_SAMPLE:-30}
LOAD_WARMUP=${LOAD_WARMUP:-60}

if [ $# -eq 0 ]; then
	set -- make test
fi

hog_pids=()
sampler_pid=
cmd_pid=
warm_pid=

load() { cut -d' ' -f1-3 /proc/loadavg; }

stop_all() {
	[ -n "$warm_pid" ] && kill "$warm_pid" 2>/dev/null
	if [ -n "$cmd_pid" ]; then
		# Interrupted: the command goes too (a background job does not get
		# the terminal's Ctrl-C itself).
		kill "$cmd_pid" 2>/dev/null
		wait "$cmd_pid" 2>/dev/null
		cmd_pid=
	fi
	if [ -n "$sampler_pid" ]; then
		kill "$sampler_pid" 2>/dev/null
		wait "$sampler_pid" 2>/dev/null
		sampler_pid=
	fi
	if [ ${#hog_pids[@]} -gt 0 ]; then
		kill "${hog_pids[@]}" 2>/dev/null
		wait "${hog_pids[@]}" 2>/dev/null
		echo "test-loaded: stopped ${#hog_pids[@]} hogs; load $(load)"
		hog_pids=()
	fi
}
trap stop_all EXIT
trap 'stop_all; exit 130' INT
trap 'stop_all; exit 143' TERM

echo "test-loaded: starting $HOGS hogs (nice 19) for a load of at least $LOAD_TARGET; load $(load)"
for _ in $(seq "$HOGS"); do
	# A busy loop of the shell itself: no process per iteration.
	nice -n 19 bash -c 'while :; do :; done' &
	hog_pids+=($!)
done

(
	s=
	trap 'kill $s 2>/dev/null; exit 0' TERM
	while :; do
		sleep "$LOAD_SAMPLE" &
		s=$!
		wait "$s"
		l=$(load)
		below=$(echo "$l" | awk -v t="$LOAD_TARGET" '$1 < t { print " (1-minute load below the target)" }')
		echo "test-loaded: $(date -u +%H:%M:%S) load $l$below"
	done
) &
sampler_pid=$!

if [ "$LOAD_WARMUP" -gt 0 ]; then
	echo "test-loaded: warming up for ${LOAD_WARMUP}s"
	sleep "$LOAD_WARMUP" &
	warm_pid=$!
	wait "$warm_pid"
	warm_pid=
fi

echo "test-loaded: $(date -u +%H:%M:%S) running: $*; load $(load)"
start=$(date +%s)
# In the background, so that a signal runs the traps at once instead of
# after the command.
"$@" &
cmd_pid=$!
wait "$cmd_pid"
status=$?
cmd_pid=
elapsed=$(($(date +%s) - start))
echo "test-loaded: $(date -u +%H:%M:%S) $* exited $status after ${elapsed}s; load $(load)"
if [ "$status" -eq 0 ]; then
	echo "test-loaded: PASS"
else
	echo "test-loaded: FAIL"
fi
exit "$status"
