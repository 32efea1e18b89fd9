# Sourced by the server's test scripts: a scratch directory, a blobtune-server child on a free
# loopback port, and cleanup on exit.
#
#   source "$(dirname "${BASH_SOURCE[0]}")/server_process.sh"
#   make_work_dir overload
#   start_server "$bin_dir" --data-dir "$work/data" ...   # sets server_pid and port
#   server_launcher=(taskset -c 0)                        # optional: runs the server under it
#   stop_server                                           # SIGTERM; sets server_status
#   field ok_per_s < load.json                            # a number from blobtune-load --json
#   confine_server 0.25 0 || echo "$confine_error"        # a quarter of CPU 0 for the server

make_work_dir() {
  work=$(mktemp -d "/tmp/blobtune-$1-XXXXXX")
  server_pid=""
  server_launcher=()
  cpu_group=""
  trap 'if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then kill -KILL "$server_pid"; wait "$server_pid" 2>/dev/null; fi; [ -z "$cpu_group" ] || rmdir "$cpu_group" 2>/dev/null; rm -rf "$work"' EXIT
}

# Gives the servers started from now on SHARE of one CPU (CPU number CPU) and no more: a CPU
# cgroup with a 5 ms period and a quota of SHARE x 5 ms (short periods, so that throttling
# adds no long pauses), cgroup v1's cpu controller or v2's cpu.max, whichever this machine has
# writable; the server is pinned to CPU with taskset. Sets server_launcher; returns non-zero
# with the reason in confine_error where no CPU cgroup can be made here (not root, a read-only
# /sys/fs/cgroup, no cpu controller).
confine_server() {
  local share=$1 cpu=$2 period=5000 quota name="blobtune-$$-$RANDOM" procs
  quota=$(awk -v s="$share" -v p="$period" 'BEGIN { printf "%d", s * p }')
  confine_error=""
  if [ -d /sys/fs/cgroup/cpu ] && [ -w /sys/fs/cgroup/cpu ] && mkdir "/sys/fs/cgroup/cpu/$name" 2>/dev/null; then
    cpu_group="/sys/fs/cgroup/cpu/$name"
    echo "$period" > "$cpu_group/cpu.cfs_period_us" && echo "$quota" > "$cpu_group/cpu.cfs_quota_us" ||
      { confine_error="cannot set the quota of $cpu_group"; return 1; }
  elif [ -f /sys/fs/cgroup/cgroup.controllers ] && grep -qw cpu /sys/fs/cgroup/cgroup.controllers &&
       { grep -qw cpu /sys/fs/cgroup/cgroup.subtree_control ||
         echo +cpu > /sys/fs/cgroup/cgroup.subtree_control; } 2>/dev/null &&
       mkdir "/sys/fs/cgroup/$name" 2>/dev/null; then
    cpu_group="/sys/fs/cgroup/$name"
    echo "$quota $period" > "$cpu_group/cpu.max" ||
      { confine_error="cannot set $cpu_group/cpu.max"; return 1; }
  else
    confine_error="no writable CPU cgroup here (cgroup v1 /sys/fs/cgroup/cpu or v2 cpu.max; run as root)"
    return 1
  fi
  procs="$cpu_group/cgroup.procs"
  server_launcher=(sh -c 'echo $$ > "$0" && exec "$@"' "$procs" taskset -c "$cpu")
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
