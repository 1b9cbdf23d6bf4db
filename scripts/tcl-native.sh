#!/usr/bin/env bash
# Redis's own Tcl test units, run the way Redis runs them on its own build
# (the harness starts, restarts and kills servers from src/redis-server),
# once with the emulator as src/redis-server and once with the real one.
# Prints, per unit, the emulator's passes, failures and skips beside the
# real server's. Reached through `scripts/tcl-suite.sh native`.
#
#   scripts/tcl-suite.sh native <unit ...>   e.g. integration/rdb
#   scripts/tcl-suite.sh native ci           the fixed subset CI runs
#   scripts/tcl-suite.sh native all          every unit listed below
#   scripts/tcl-suite.sh native sentinel     tests/sentinel (./runtest-sentinel), the
#                                            emulator as src/redis-sentinel and src/redis-server
#   scripts/tcl-suite.sh native sentinel 01-conf-update   one unit of it (run.tcl --single)
#
# Environment:
#   REDIS_SRC      the Redis 7.0.15 source tree (read only; it is copied)
#   TCL_SCRATCH    where the two copies live (default .tmp/tcl-native)
#   TCL_KINDS      "emulator real" (default), or one of them
#   TCL_TIMEOUT_S  a unit's wall-time limit (default 1200)
# Exit status: 0 when the emulator passed at least every test the real
# server passed in each unit that ran on both; 1 otherwise; 2 when tclsh or
# the source tree is missing.
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)

ACCEPTANCE=(integration/aof integration/aof-multi-part integration/rdb integration/shutdown integration/redis-cli)
REPLICATION=(integration/replication integration/replication-2 integration/replication-3 integration/replication-4
  integration/replication-psync integration/replication-buffer integration/psync2 integration/psync2-reg
  integration/psync2-pingoff integration/psync2-master-restart integration/block-repl integration/failover)
# Fast units whose every test the emulator passes, so that CI notices a regression.
CI_UNITS=(integration/shutdown integration/redis-cli)

# Tests skipped by name on both servers, so that the counts compare:
# those that need what the emulator does not have (Lua scripting and
# FUNCTION LOAD, streams), and those that find the fork child among the
# server's OS child processes (pgrep -P) to signal it: the emulator's
# children are simulated inside its one process.
LUA='/EVAL|/[Ss]cript|/FUNCTION|/Dumping an RDB - functions only'
STREAMS='/stream|/XADD'
# Tests whose names do not say so but that run EVAL or FCALL among their steps.
LUA_INSIDE='/min-slaves-to-write'
# The async_loading tests of replication call FCALL among their steps.
LUA_ASYNC_LOADING='Diskless load swapdb (async_loading): old database is exposed while async replication is in progress|Diskless load swapdb (async_loading): old database is exposed after async replication fails|Diskless load swapdb (async_loading): new database is exposed after swapping'
# Tests whose names do not say so but that fill the dataset with streams,
# or send a stream command (XINFO HELP) among their steps.
STREAMS_INSIDE='diskless loading short read|replica do not write the reply to the replication link - SYNC (addReplyDeferredLen)'
# Tests that need ACL users (ACL SETUSER), which the emulator does not have.
ACL_USERS='failover aborts if target rejects sync request'
OS_CHILD='AOF will open a temporary INCR AOF to accumulate data until the first AOFRW success when AOF is dynamically enabled|AOF enable during BGSAVE will not write data util AOFRW finish|AOF multiple rewrite failures will open multiple INCR AOFs|AOF will trigger limit when AOFRW fails many times|failed bgsave prevents writes'
# Replication's tests that signal the RDB child by its OS pid.
OS_CHILD_REPL='diskless replication child being killed is collected|/replication child dies when parent is killed'
declare -A SKIP=(
  [integration/aof]="$LUA|$STREAMS"
  [integration/aof-multi-part]="$OS_CHILD"
  [integration/rdb]="$LUA|$STREAMS|$OS_CHILD"
  [integration/redis-cli]="$LUA"
  [integration/replication]="$LUA|$STREAMS|$STREAMS_INSIDE|$OS_CHILD|$LUA_ASYNC_LOADING|$OS_CHILD_REPL"
  [integration/replication-4]="$LUA|$STREAMS|$LUA_INSIDE"
  [integration/block-repl]="$STREAMS"
  [integration/failover]="$ACL_USERS"
)

src=${REDIS_SRC:-}
for c in "$here/../redis-7.0.15" "$here/../../redis-7.0.15"; do
  [ -n "$src" ] && break
  [ -f "$c/tests/test_helper.tcl" ] && src=$c
done
if [ -z "$src" ] || [ ! -f "$src/tests/test_helper.tcl" ]; then
  echo "skipped: no Redis 7.0.15 source tree (set REDIS_SRC)"; exit 2
fi
if ! command -v tclsh >/dev/null 2>&1; then echo "skipped: tclsh is not installed (Debian package tcl)"; exit 2; fi
src=$(cd "$src" && pwd)

units=()
for a in "$@"; do
  case $a in
    ci) units+=("${CI_UNITS[@]}") ;;
    all) units+=("${ACCEPTANCE[@]}" "${REPLICATION[@]}") ;;
    acceptance) units+=("${ACCEPTANCE[@]}") ;;
    repl) units+=("${REPLICATION[@]}") ;;
    *) units+=("$a") ;;
  esac
done
[ ${#units[@]} -gt 0 ] || { echo "usage: scripts/tcl-suite.sh native <unit ...> | ci | acceptance | repl | all | sentinel"; exit 2; }
read -ra kinds <<< "${TCL_KINDS:-emulator real}"
scratch=${TCL_SCRATCH:-$here/.tmp/tcl-native}
mkdir -p "$scratch"
scratch=$(cd "$scratch" && pwd)

# The emulator as a program that starts in a fraction of a second: the
# built bundle, run by node directly, so that the pid the harness spawned is
# the server's own (it looks for " PID: <pid>" in the server's output).
bundle=$(cd "$here" && node -e "import('./scripts/node-bundle.mjs').then((m) => m.ensureBundle('server')).then((p) => console.log(p))") || exit 1
node_bin=$(command -v node)

tool() { command -v "$1" || echo "/usr/bin/$1"; }

prepare() { # kind -> the scratch tree's path
  local kind=$1 dir=$scratch/$1
  if [ ! -f "$dir/tests/test_helper.tcl" ]; then
    rm -rf "$dir"
    cp -a "$src" "$dir"
    chmod -R u+w "$dir"
  fi
  mkdir -p "$dir/src" "$dir/tests/tmp"
  rm -f "$dir/src/redis-server"
  if [ "$kind" = emulator ]; then
    printf '#!/bin/sh\nexec %q %q "$@"\n' "$node_bin" "$bundle" > "$dir/src/redis-server"
    chmod +x "$dir/src/redis-server"
  else
    ln -s "$(tool redis-server)" "$dir/src/redis-server"
  fi
  for t in redis-cli redis-benchmark redis-check-aof redis-check-rdb redis-sentinel; do
    ln -sfn "$(tool $t)" "$dir/src/$t"
  done
  if [ "$kind" = emulator ]; then
    # Sentinel mode of the same bundle, as redis-sentinel is redis-server's.
    rm -f "$dir/src/redis-sentinel"
    printf '#!/bin/sh\nexec %q %q "$@" --sentinel\n' "$node_bin" "$bundle" > "$dir/src/redis-sentinel"
    chmod +x "$dir/src/redis-sentinel"
  fi
  echo "$dir"
}

count() { grep -c "$1" "$2" || true; }

# tests/sentinel has its own runner: each test prints "HH:MM:SS> name: OK"
# or "... FAILED: why", and a failure skips the rest of its unit. Names
# after "sentinel" pick its units (run.tcl's --single: 01-conf-update).
if [ "${units[0]}" = sentinel ]; then
  only=()
  for u in "${units[@]:1}"; do only+=(--single "$u"); done
  printf '%-36s %-34s %s\n' unit emulator real
  declare -A CELL
  for kind in "${kinds[@]}"; do
    dir=$(prepare "$kind")
    log=$scratch/logs/$kind/sentinel.log
    mkdir -p "$(dirname "$log")"
    rm -rf "$dir/tests/sentinel/tmp"/*
    (cd "$dir" && timeout "${TCL_TIMEOUT_S:-1200}" ./runtest-sentinel "${only[@]}" 2>&1 | sed 's/\x1b\[[0-9;]*m//g' >"$log")
    CELL[$kind]="ok=$(count '^[0-9:]*> .*: OK$' "$log") err=$(count '^[0-9:]*> .*: FAILED' "$log")"
  done
  printf '%-36s %-34s %s\n' "${units[*]}" "${CELL[emulator]:--}" "${CELL[real]:--}"
  echo "logs: $scratch/logs"
  exit 0
fi

declare -A OK ERR SKP EXC
status=0
printf '%-36s %-34s %s\n' unit emulator real
for u in "${units[@]}"; do
  for kind in "${kinds[@]}"; do
    dir=$(prepare "$kind")
    logdir=$scratch/logs/$kind
    mkdir -p "$logdir"
    log=$logdir/$(echo "$u" | tr / _).log
    rm -rf "$dir/tests/tmp"/*
    skip=()
    IFS='|' read -ra names <<< "${SKIP[$u]:-}"
    for n in "${names[@]}"; do skip+=(--skiptest "$n"); done
    # A base port of its own, away from the previous unit's servers that
    # may still be closing their sockets.
    base=$(( (RANDOM % 300) * 100 + 21000 ))
    (cd "$dir" && timeout "${TCL_TIMEOUT_S:-1200}" ./runtest --single "$u" --clients 1 --baseport "$base" \
        --timeout 600 "${skip[@]}" 2>&1 | sed 's/\x1b\[[0-9;]*m//g' >"$log")
    OK[$kind]=$(count '^\[ok\]:' "$log")
    ERR[$kind]=$(count '^\[err\]:' "$log")
    SKP[$kind]=$(( $(count '^\[skip\]:' "$log") + $(count '^\[ignore\]:' "$log") ))
    EXC[$kind]=$(count '^\[exception\]:' "$log")
    if grep -q 'TIMEOUT\|Killing timedout' "$log"; then EXC[$kind]=$(( EXC[$kind] + 1 )); fi
  done
  cell() { # kind
    [ -n "${OK[$1]:-}" ] || { echo -; return; }
    local c="ok=${OK[$1]} err=${ERR[$1]} skip=${SKP[$1]}"
    [ "${EXC[$1]}" = 0 ] || c="$c aborted"
    echo "$c"
  }
  printf '%-36s %-34s %s\n' "$u" "$(cell emulator)" "$(cell real)"
  if [ -n "${OK[emulator]:-}" ] && [ -n "${OK[real]:-}" ] && [ "${OK[emulator]}" -lt "${OK[real]}" ]; then status=1; fi
  unset OK ERR SKP EXC
  declare -A OK ERR SKP EXC
done
echo "logs: $scratch/logs"
exit $status
