#!/usr/bin/env bash
# Runs Redis's own Tcl test units against a server that is already running
# (external-server mode) and prints, per unit, how many tests passed, failed
# and were ignored, plus the names of the failures.
#
#   scripts/tcl-suite.sh <redis-source-dir> <port> [out-dir]
#
# The Redis source tree is not part of this project: point it at a checkout
# of the redis repository at tag 7.0.15. Each unit runs on its own, so an
# exception in one unit does not hide the others' results.
set -uo pipefail
src=${1:?redis source dir}
port=${2:?port}
out=${3:-.tmp/tcl}
mkdir -p "$out"
out=$(cd "$out" && pwd)
units=(unit/type/string unit/type/incr unit/type/list unit/type/hash unit/type/set unit/type/zset
       unit/keyspace unit/expire unit/multi unit/protocol unit/other)
total_ok=0; total_err=0
for u in "${units[@]}"; do
  log="$out/$(echo "$u" | tr / _).log"
  (cd "$src" && timeout 900 ./runtest --host 127.0.0.1 --port "$port" --singledb --ignore-encoding \
      --tags -needs:repl --single "$u" --clients 1 --timeout 120 >"$log" 2>&1)
  ok=$(grep -c '\[.*ok.*\]:' "$log")
  err=$(grep -c '\[.*err.*\]:' "$log")
  exc=$(grep -c '\[.*exception.*\]' "$log")
  ign=$(grep -c '\[.*ignore.*\]:' "$log")
  total_ok=$((total_ok + ok)); total_err=$((total_err + err + exc))
  printf '%-22s ok=%-4s err=%-3s exception=%-2s ignored=%s\n' "$u" "$ok" "$err" "$exc" "$ign"
done
echo "total ok=$total_ok err=$total_err"
