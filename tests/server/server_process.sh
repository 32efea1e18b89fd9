# Sourced by the server's test scripts: a scratch directory, a blobtune-server child on a free
# loopback port, and cleanup on exit.
#
#   source "$(dirname "${BASH_SOURCE[0]}")/server_process.sh"
#   make_work_dir overload
#   start_server "$bin_dir" --data-dir "$work/data" ...   # sets server_pid and port
#   server_launcher=(taskset -c 0)                        # optional: runs the server under it
#   stop_server                                           # SIGTERM; sets server_status
#   field ok_per_s < load.json                            # a number from blobtune-load --json

make_work_dir() {
  work=$(mktemp -d "/tmp/blobtune-$1-XXXXXX")
  server_pid=""
  server_launcher=()
  trap 'if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then kill -KILL "$server_pid"; fi; rm -rf "$work"' EXIT
}

# Starts the server and waits for its "listening on" line, read from a pipe as the server writes
# it (no polling), for up to 10 s; fails with the server's output if the line does not come or
# the server exits first. Everything the server writes goes to $work/server.log.
start_server() {
  local bin_dir=$1
  shift
  local pipe="$work/server.pipe" line deadline=$((SECONDS + 10))
  rm -f "$pipe"
  mkfifo "$pipe"
  "${server_launcher[@]}" "$bin_dir/blobtune-server" --listen 127.0.0.1:0 "$@" > "$pipe" 2>&1 &
  server_pid=$!
  exec {server_out}< "$pipe"  # Opens once the server's side is open.
  : > "$work/server.log"
  port=""
  # read returns non-zero at the deadline, or at the end of the output (the server exited).
  while [ $SECONDS -lt $deadline ] &&
        IFS= read -r -t $((deadline - SECONDS)) line <&"$server_out"; do
    printf '%s\n' "$line" >> "$work/server.log"
    port=$(printf '%s\n' "$line" | sed -n 's/.*listening on 127\.0\.0\.1:\([0-9]*\).*/\1/p')
    [ -z "$port" ] || break
  done
  # The rest of the output goes on to the log, so that the server never blocks on a full pipe.
  cat <&"$server_out" >> "$work/server.log" &
  server_log_pid=$!
  exec {server_out}<&-
  [ -n "$port" ] || { echo "the server did not say it listens (it exited, or 10 s passed):"
                      cat "$work/server.log"; exit 1; }
}

stop_server() {
  kill -TERM "$server_pid"
  server_status=0
  wait "$server_pid" || server_status=$?
  wait "$server_log_pid" || true
  server_pid=""
}

field() { sed -n "s/.*\"$1\":\([0-9.]*\).*/\1/p"; }
