#!/usr/bin/env bash
# A local PostgreSQL pair with automatic failover (pg_auto_failover): a monitor and two data
# nodes on free ports, in one temporary directory, no systemd. For trying a failover by hand and
# for the failover test (tests/e2e/failover.rs).
#
#   scripts/ha-cluster.sh start          starts monitor + node1 + node2, waits until node1 is the
#                                        primary and node2 its synchronous standby, prints the URL
#   scripts/ha-cluster.sh urls           DATABASE_URL (both nodes, libpq's multi-host form), then
#                                        the monitor's URL
#   scripts/ha-cluster.sh status         the monitor's view (pg_autoctl show state)
#   scripts/ha-cluster.sh primary        the name of the node that is primary now (node1|node2)
#   scripts/ha-cluster.sh kill NODE      the node's machine "dies": SIGKILL to its keeper and its
#                                        postmaster (killing only the postmaster is a restart: the
#                                        keeper starts it again, no failover); prints when (epoch s)
#   scripts/ha-cluster.sh revive NODE    starts the node's keeper again; it rejoins as a standby
#   scripts/ha-cluster.sh wait-sync      waits until there is a primary and a standby in sync
#   scripts/ha-cluster.sh diagnose       the monitor's state and events, each keeper's last lines
#   scripts/ha-cluster.sh stop           stops everything and removes the directory (idempotent)
#
# TABLETALLY_HA_DIR picks the directory (default /tmp/tabletally-ha); one cluster per directory.
# PostgreSQL refuses to run as root: as root, the processes run as the `postgres` user.
# Failure detection is tuned for seconds, not the defaults' half a minute (docs/deploy.md).
set -euo pipefail

DIR="${TABLETALLY_HA_DIR:-/tmp/tabletally-ha}"
DB=tabletally
PGBIN="${PGBIN:-$(pg_config --bindir 2>/dev/null || true)}"
for candidate in "$PGBIN" /usr/lib/postgresql/15/bin; do
    if [[ -n "$candidate" && -x "$candidate/pg_ctl" ]]; then PGBIN="$candidate"; break; fi
done

die() { echo "ha-cluster: $*" >&2; exit 1; }

command -v pg_autoctl >/dev/null || die "pg_autoctl is not installed (Debian: postgresql-15-auto-failover)"
[[ -x "$PGBIN/pg_ctl" ]] || die "no PostgreSQL binaries found (set PGBIN)"

# Runs a command as the user that owns the cluster, with its own config and state directories.
as_owner() {
    local env=(env "HOME=$DIR" "XDG_CONFIG_HOME=$DIR/config" "XDG_DATA_HOME=$DIR/share"
        "XDG_RUNTIME_DIR=$DIR/run" "PATH=$PGBIN:$PATH" "PG_CONFIG=$PGBIN/pg_config"
        "PGCONNECT_TIMEOUT=2")
    if [[ $(id -u) -eq 0 ]]; then
        runuser -u postgres -- "${env[@]}" "$@"
    else
        "${env[@]}" "$@"
    fi
}

free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

port_of() { cat "$DIR/$1.port"; }

node_url() { echo "postgres://postgres@127.0.0.1:$(port_of "$1")/$DB"; }

database_url() {
    echo "postgres://postgres@127.0.0.1:$(port_of node1),127.0.0.1:$(port_of node2)/$DB?target_session_attrs=read-write"
}

monitor_url() { echo "postgres://autoctl_node@127.0.0.1:$(port_of monitor)/pg_auto_failover"; }

# psql against one node: prints the value, or nothing when it cannot connect.
ask() {
    local port="$1" db="$2" sql="$3"
    PGCONNECT_TIMEOUT=2 psql -X -qAt -h 127.0.0.1 -p "$port" -U postgres -d "$db" -c "$sql" 2>/dev/null || true
}

# The keeper (pg_autoctl run) of a node, in the background, its pid kept.
run_keeper() {
    local name="$1"
    shift
    # setsid: its own process group, so `kill` can take the keeper and its children together.
    setsid bash -c "$(declare -f as_owner); DIR='$DIR' PGBIN='$PGBIN' as_owner \"\$@\"" _ "$@" \
        >>"$DIR/$name.log" 2>&1 </dev/null &
    echo $! >"$DIR/$name.keeper"
}

# A killed process stays a zombie until whoever adopted it reaps it (on a loaded machine that
# takes a while), and `kill -0` still finds a zombie: a process is alive only in another state.
pid_alive() {
    local state
    state="$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1)"
    [[ -n "$state" && "$state" != Z && "$state" != X ]]
}

keeper_alive() {
    local pidfile="$DIR/$1.keeper"
    [[ -f "$pidfile" ]] && pid_alive "$(cat "$pidfile")"
}

# pg_autoctl and PostgreSQL each refuse to start while their pid file names a process that
# `kill -0` finds, and a killed keeper's or postmaster's zombie is found: once every process a
# node's pid files name is dead (or a zombie), those files are removed.
clear_pid_files() {
    local node="$1" file pid
    for file in $(find "$DIR/run" -path "*/$node/pg_autoctl.pid" 2>/dev/null) "$DIR/$node/postmaster.pid"; do
        [[ -f "$file" ]] || continue
        pid="$(head -1 "$file" 2>/dev/null || true)"
        [[ -n "$pid" ]] || continue
        for _ in $(seq 1 40); do pid_alive "$pid" || break; sleep 0.25; done
        pid_alive "$pid" || rm -f "$file"
    done
}

wait_for() {
    local what="$1" seconds="$2"
    shift 2
    for _ in $(seq 1 $((seconds * 4))); do
        if "$@"; then return 0; fi
        sleep 0.25
    done
    diagnose >&2
    die "timed out after ${seconds}s waiting for $what (logs in $DIR)"
}

# What a test prints when the cluster does not do what it waits for (the directory is removed
# when the test ends): the monitor's view, its last events, and each keeper's last lines.
diagnose() {
    as_owner pg_autoctl show state --pgdata "$DIR/monitor" 2>&1 || true
    as_owner pg_autoctl show events --pgdata "$DIR/monitor" --count 15 2>&1 || true
    local name
    for name in node1 node2; do
        echo "--- the last lines of $name's keeper"
        tail -n 15 "$DIR/$name.log" 2>/dev/null || true
    done
}

monitor_up() { [[ "$(ask "$(port_of monitor)" pg_auto_failover 'SELECT 1')" == 1 ]]; }

# node1|node2 when that node is a primary accepting writes, per the database itself.
primary() {
    local node
    for node in node1 node2; do
        if [[ "$(ask "$(port_of "$node")" "$DB" 'SELECT NOT pg_is_in_recovery()')" == t ]]; then
            echo "$node"
            return 0
        fi
    done
    return 1
}

# Both nodes in the states a healthy pair has: primary and secondary, the standby streaming
# and synchronous (sync_state of the primary's walsender).
in_sync() {
    local states
    states="$(ask "$(port_of monitor)" pg_auto_failover \
        "SELECT string_agg(reportedstate || '/' || goalstate, ' ' ORDER BY reportedstate) FROM pgautofailover.node")"
    [[ "$states" == "primary/primary secondary/secondary" ]] || return 1
    local p
    p="$(primary)" || return 1
    [[ "$(ask "$(port_of "$p")" "$DB" "SELECT count(*) FROM pg_stat_replication WHERE sync_state IN ('sync','quorum') AND state = 'streaming'")" == 1 ]]
}

# in_sync; while not, a checkpoint on the primary: a new standby's base backup begins by waiting
# for one, which PostgreSQL otherwise spreads over minutes.
in_sync_or_checkpoint() {
    in_sync && return 0
    local p
    if p="$(primary)"; then ask "$(port_of "$p")" "$DB" 'CHECKPOINT' >/dev/null; fi
    return 1
}

node_ready() { [[ "$(ask "$(port_of "$1")" "$DB" 'SELECT 1')" == 1 ]]; }

start() {
    if [[ -f "$DIR/node2.port" ]] && keeper_alive monitor; then
        database_url
        return 0
    fi
    # What a cluster left half-started here: stopped first, then removed.
    stop
    mkdir -p "$DIR/config" "$DIR/share" "$DIR/run"
    if [[ $(id -u) -eq 0 ]]; then chown -R postgres: "$DIR"; fi
    free_port >"$DIR/monitor.port"
    free_port >"$DIR/node1.port"
    free_port >"$DIR/node2.port"

    run_keeper monitor pg_autoctl create monitor --pgdata "$DIR/monitor" \
        --pgport "$(port_of monitor)" --hostname 127.0.0.1 --auth trust --no-ssl --run
    wait_for "the monitor" 60 monitor_up
    # Detection in seconds: a health check a second, a node is unhealthy after 3 s without a
    # report from its keeper, and the old primary is given 3 s to demote before the standby is
    # promoted. (Defaults: 5 s, 20 s, 30 s.) Raise them on a network that hiccups.
    local setting
    for setting in health_check_period=1000 health_check_timeout=1000 health_check_max_retries=1 \
        health_check_retry_delay=500 node_considered_unhealthy_timeout=3000 \
        primary_demote_timeout=3000; do
        psql -X -qAt -h 127.0.0.1 -p "$(port_of monitor)" -U postgres -d pg_auto_failover \
            -c "ALTER SYSTEM SET pgautofailover.${setting%%=*} = ${setting#*=}" >/dev/null
    done
    ask "$(port_of monitor)" pg_auto_failover 'SELECT pg_reload_conf()' >/dev/null

    local monitor
    monitor="$(monitor_url)"
    for node in node1 node2; do
        run_keeper "$node" pg_autoctl create postgres --pgdata "$DIR/$node" \
            --pgport "$(port_of "$node")" --hostname 127.0.0.1 --name "$node" --dbname "$DB" \
            --auth trust --no-ssl --monitor "$monitor" --run
        if [[ "$node" == node1 ]]; then
            wait_for "node1 to be the primary" 120 node_ready node1
        fi
    done
    wait_for "the pair to be in sync" 180 in_sync_or_checkpoint
    # A primary cut off from the monitor stops taking writes after as long as the monitor waits
    # before promoting the standby (primary_demote_timeout above; default 20 s).
    for node in node1 node2; do
        as_owner pg_autoctl config set --pgdata "$DIR/$node" timeout.network_partition_timeout 3 >/dev/null
    done
    database_url
}

stop() {
    [[ -d "$DIR" ]] || return 0
    local name pid
    for name in node1 node2 monitor; do
        if keeper_alive "$name"; then
            pid="$(cat "$DIR/$name.keeper")"
            kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
        fi
    done
    for name in node1 node2 monitor; do
        for _ in $(seq 1 40); do keeper_alive "$name" || break; sleep 0.25; done
        if keeper_alive "$name"; then
            kill -KILL -- "-$(cat "$DIR/$name.keeper")" 2>/dev/null || true
        fi
        # A postmaster left behind (its keeper killed) is stopped by its data directory.
        if [[ -f "$DIR/$name/postmaster.pid" ]]; then
            as_owner pg_ctl -D "$DIR/$name" -m immediate stop >/dev/null 2>&1 || true
        fi
    done
    # A keeper's child outside its process group (pg_autoctl's "start/stop postgres" of a node
    # killed and revived) outlives the group's kill, holding the files it inherited: every
    # process still running with this cluster's environment (`as_owner`) goes too.
    local stray
    for stray in $(grep -lzx "XDG_RUNTIME_DIR=$DIR/run" /proc/[0-9]*/environ 2>/dev/null | cut -d/ -f3); do
        kill -KILL "$stray" 2>/dev/null || true
    done
    rm -rf "$DIR"
}

kill_node() {
    local node="$1" pid
    [[ -f "$DIR/$node.port" ]] || die "no node $node"
    pid="$(head -1 "$DIR/$node/postmaster.pid" 2>/dev/null || true)"
    if keeper_alive "$node"; then
        kill -KILL -- "-$(cat "$DIR/$node.keeper")" 2>/dev/null || true
    fi
    if [[ -n "$pid" ]]; then kill -KILL "$pid" 2>/dev/null || true; fi
    # When it died (seconds since the epoch): what a failover's time is measured from.
    date +%s.%N
    # The postmaster's children follow it once it is gone; wait until nothing listens.
    wait_for "$node to go down" 30 bash -c "! PGCONNECT_TIMEOUT=1 pg_isready -q -h 127.0.0.1 -p $(port_of "$node")"
}

revive() {
    local node="$1"
    [[ -f "$DIR/$node.port" ]] || die "no node $node"
    keeper_alive "$node" && return 0
    clear_pid_files "$node"
    run_keeper "$node" pg_autoctl run --pgdata "$DIR/$node"
}

# Every command but start and stop needs a running cluster's directory.
case "${1:-}" in
start | stop | "") ;;
*) [[ -f "$DIR/node2.port" ]] || die "no cluster in $DIR (scripts/ha-cluster.sh start)" ;;
esac

case "${1:-}" in
start) start ;;
stop) stop ;;
urls)
    database_url
    monitor_url
    ;;
status) as_owner pg_autoctl show state --pgdata "$DIR/monitor" ;;
diagnose) diagnose ;;
primary) primary || die "no primary now" ;;
kill) kill_node "${2:?node1 or node2}" ;;
revive) revive "${2:?node1 or node2}" ;;
wait-sync) wait_for "a primary and a standby in sync" "${2:-120}" in_sync_or_checkpoint ;;
*)
    sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
    ;;
esac
