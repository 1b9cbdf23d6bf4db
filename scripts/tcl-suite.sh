#!/usr/bin/env bash
# Runs Redis's own Tcl test units against a server in external-server mode,
# a fresh server for each unit (a unit that fails half-way can leave
# configuration or a background save behind), and prints per unit how many
# tests passed, failed and were ignored.
#
#   scripts/tcl-suite.sh <redis-source-dir> real|emulator [out-dir] [unit ...]
#
# The Redis source tree is not part of this project: point it at a checkout
# of the redis repository at tag 7.0.15.
#
#   scripts/tcl-suite.sh native <unit ...> | ci | all | repl
#
# Native mode runs the units the way Redis runs them on its own build: the
# harness starts and restarts servers itself, from src/redis-server. Two
# scratch copies of the source tree (REDIS_SRC, by default a redis-7.0.15
# beside the project) get that file: one runs the emulator's Node bundle,
# the other the real redis-server; both get the real redis-cli,
# redis-benchmark and checkers the units call. Each unit runs in both, and
# the script prints the emulator's counts beside the real server's.
set -uo pipefail
if [ "${1:-}" = native ]; then
  shift
  exec "$(dirname "$0")/tcl-native.sh" "$@"
fi
src=$(cd "${1:?redis source dir}" && pwd)
kind=${2:?real or emulator}
out=${3:-.tmp/tcl-$kind}
shift 3 2>/dev/null || shift $#
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)
units=("$@")
[ ${#units[@]} -gt 0 ] || units=(unit/type/string unit/type/incr unit/type/list unit/type/hash unit/type/set
       unit/type/zset unit/keyspace unit/expire unit/multi unit/protocol unit/other)

# Tests that need commands the emulator does not have yet (Lua scripting),
# skipped by name on both servers, so that their counts compare.
declare -A SKIP=(
  [unit/introspection]='MONITOR can log commands issued by the scripting engine|MONITOR can log commands issued by functions'
)

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

start_server() { # port dir -> pid
  local port=$1 dir=$2
  if [ "$kind" = real ]; then
    redis-server --port "$port" --bind 127.0.0.1 --save '' --dir "$dir" --enable-debug-command yes \
      --logfile "$dir/server.log" >/dev/null 2>&1 &
  else
    (cd "$here" && exec node --import tsx src/node/server.ts --port "$port" --save '' --dir "$dir" \
      --enable-debug-command yes >"$dir/server.log" 2>&1) &
  fi
  echo $!
  for _ in $(seq 100); do redis-cli -p "$port" ping >/dev/null 2>&1 && return; sleep 0.1; done
}

total_ok=0; total_err=0
for u in "${units[@]}"; do
  name=$(echo "$u" | tr / _)
  dir=$(mktemp -d "/tmp/tcl-$kind-$name.XXXX")
  port=$(free_port)
  pid=$(start_server "$port" "$dir")
  log="$out/$name.log"
  # A base port of its own, so that runs side by side do not fight over
  # the test harness's own listening port.
  base=$(( (RANDOM % 200) * 100 + 22000 ))
  skip=()
  IFS='|' read -ra names <<< "${SKIP[$u]:-}"
  for n in "${names[@]}"; do skip+=(--skiptest "$n"); done
  (cd "$src" && timeout 1200 ./runtest --host 127.0.0.1 --port "$port" --singledb --ignore-encoding "${skip[@]}" \
      --tags -needs:repl --single "$u" --clients 1 --baseport "$base" >"$log" 2>&1)
  kill "$pid" 2>/dev/null; sleep 0.2; kill -9 "$pid" 2>/dev/null
  ok=$(grep -c '\[.*ok.*\]:' "$log")
  err=$(grep -c '\[.*err.*\]:' "$log")
  exc=$(grep -c '\[.*exception.*\]' "$log")
  tmo=$(grep -c 'TIMEOUT' "$log")
  ign=$(grep -c '\[.*ignore.*\]:' "$log")
  total_ok=$((total_ok + ok)); total_err=$((total_err + err + exc))
  printf '%-22s ok=%-4s err=%-3s exception=%-2s timeout=%-2s ignored=%s\n' "$u" "$ok" "$err" "$exc" "$tmo" "$ign"
  rm -rf "$dir"
done
echo "total ok=$total_ok err=$total_err"
