#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The emulated cluster (docs/hierarchy.md, "Emulated cluster"): N network
# namespaces as hosts on a Linux bridge, each joined by a veth pair whose two
# ends are rate-limited with tc tbf, and Open MPI launched into them through
# an rsh agent (this script, `agent`) that enters the host's namespace and a
# UTS namespace of its own, so Open MPI sees N nodes: TCP between them, shared
# memory inside.
#
#   cluster.sh up N [--rate R] [--name NAME] [--subnet A.B.C]
#   cluster.sh run N PPN [mpirun options...] -- program [args...]
#   cluster.sh down N [--name NAME]
#   cluster.sh status [--name NAME]
#   cluster.sh agent HOST command...      (Open MPI's plm_rsh_agent)
#   cluster.sh test N PPN --name NAME --subnet A.B.C -- program [args...]
#                  (ctest: up, run, down; exit 77, "SKIPPED", without namespaces)
#
# NAME (default hpc, HPCOLL_CLUSTER_NAME) names the namespaces NAME-h0.. and
# the bridge NAME-br, so that two clusters (an interactive one and ctest's) do
# not collide; the subnet (default 10.77.0, HPCOLL_CLUSTER_SUBNET) is
# SUBNET.0/24: host i is SUBNET.(i+1), the bridge in the root namespace, where
# mpirun runs, SUBNET.254.
set -euo pipefail

SELF=$(readlink -f "${BASH_SOURCE[0]}")
MAX_HOSTS=64
NAME=${HPCOLL_CLUSTER_NAME:-hpc}
SUBNET=${HPCOLL_CLUSTER_SUBNET:-10.77.0}
RATE=1gbit
# tbf: bucket and queue. A bucket of a few 64 KiB GSO segments lets a segment
# through whole (a smaller one holds it back or drops it); the queue bounds the
# wait at the rate (docs/hierarchy.md, "The 64 KiB stall").
TBF_BURST=${HPCOLL_CLUSTER_BURST:-256kb}
TBF_LATENCY=${HPCOLL_CLUSTER_LATENCY:-20ms}
TC=$(command -v tc || echo /usr/sbin/tc)
IP=$(command -v ip || echo /usr/sbin/ip)

log() { printf '[hpcoll cluster] %s\n' "$*" >&2; }
die() { printf '[hpcoll cluster] error: %s\n' "$*" >&2; exit 1; }

usage() {
  cat <<'USAGE'
usage: ./hpcoll cluster up N [--rate R] [--name NAME] [--subnet A.B.C]
       ./hpcoll cluster run N PPN [mpirun options...] -- program [args...]
       ./hpcoll cluster down N [--name NAME]
       ./hpcoll cluster status [--name NAME]
  N hosts (1..64) as network namespaces NAME-h0.. (default NAME hpc) on the bridge NAME-br,
  addresses A.B.C.1..N (default subnet 10.77.0), each link limited to R in each direction
  (tc tbf; R like 1gbit, 100mbit, 500kbit, or none: no qdisc; default 1gbit). run starts N x PPN ranks of
  Open MPI, PPN per host (TCP between hosts, shared memory inside). Needs root and ip(8).
USAGE
}

# Checks that namespaces can be made here; the message says why not.
require_netns() {
  [[ $(id -u) -eq 0 ]] || die "network namespaces need root (running as uid $(id -u))"
  [[ -x $IP ]] || die "ip (iproute2) not found"
  [[ -x $TC ]] || die "tc (iproute2) not found"
  command -v unshare >/dev/null || die "unshare (util-linux) not found"
}

check_count() {  # check_count WHAT VALUE MAX
  [[ $2 =~ ^[1-9][0-9]*$ && $2 -le $3 ]] || die "$1 must be a number from 1 to $3 (got '$2')"
}

check_name() {
  # Interface names have 15 characters at most: NAME-br, NAME-v63 (the host side of the veth).
  [[ $NAME =~ ^[a-z][a-z0-9]{0,7}$ ]] || die "--name must be 1-8 lower-case letters or digits, starting with a letter (got '$NAME')"
  [[ $SUBNET =~ ^(10|172\.(1[6-9]|2[0-9]|3[01])|192\.168)\.[0-9]{1,3}(\.[0-9]{1,3})?$ ]] && [[ $(tr -cd . <<<"$SUBNET" | wc -c) -eq 2 ]] \
    || die "--subnet must be the first three parts of a private address, like 10.77.0 (got '$SUBNET')"
}

check_rate() {
  [[ $1 == none || $1 =~ ^[0-9]+(\.[0-9]+)?([kmgt]i?)?(bit|bps)$ ]] \
    || die "--rate must be a number with a unit as tc takes it: bit, kbit, mbit, gbit, bps, mbps... (e.g. 1gbit), or none (got '$1')"
}

host() { echo "$NAME-h$1"; }
bridge() { echo "$NAME-br"; }
ns_exists() { "$IP" netns list | awk '{print $1}' | grep -qx "$1"; }
# The namespaces of cluster NAME, sorted by host number.
cluster_hosts() { "$IP" netns list | awk '{print $1}' | grep -E "^$NAME-h[0-9]+$" | sort -t h -k2 -n || true; }

parse_common() {  # sets NAME, SUBNET, RATE from options; rest into ARGS
  ARGS=()
  while [[ $# -gt 0 ]]; do
    case "$1" in
      --rate) [[ $# -ge 2 ]] || die "--rate needs a value"; RATE=$2; shift 2 ;;
      --rate=*) RATE=${1#--rate=}; shift ;;
      --name) [[ $# -ge 2 ]] || die "--name needs a value"; NAME=$2; shift 2 ;;
      --name=*) NAME=${1#--name=}; shift ;;
      --subnet) [[ $# -ge 2 ]] || die "--subnet needs a value"; SUBNET=$2; shift 2 ;;
      --subnet=*) SUBNET=${1#--subnet=}; shift ;;
      *) ARGS+=("$1"); shift ;;
    esac
  done
  check_name
}

cmd_up() {
  parse_common "$@"
  [[ ${#ARGS[@]} -eq 1 ]] || { usage >&2; die "up takes N and options (got: ${ARGS[*]:-nothing})"; }
  local n=${ARGS[0]} i
  check_count "N (hosts)" "$n" "$MAX_HOSTS"
  check_rate "$RATE"
  require_netns
  # The subnet must not be one this machine already reaches by another interface.
  if "$IP" -4 route show | grep -v "dev $(bridge) " | grep -q "^$SUBNET\.0/24"; then
    die "subnet $SUBNET.0/24 is already routed here ($("$IP" -4 route show | grep "^$SUBNET\.0/24" | head -1)); choose another with --subnet"
  fi
  local existing
  existing=$(cluster_hosts | wc -l)
  if [[ $existing -gt 0 ]]; then
    if [[ $existing -eq $n ]] && "$IP" link show "$(bridge)" >/dev/null 2>&1; then
      log "cluster $NAME: $n hosts already up; setting the rate to $RATE"
      for ((i = 0; i < n; i++)); do shape "$i"; done
      return 0
    fi
    die "cluster $NAME has $existing host namespace(s) ($(cluster_hosts | tr '\n' ' ')); ./hpcoll cluster down $existing${NAME:+ --name $NAME} first"
  fi
  trap 'log "up failed; removing what was made"; teardown' ERR
  "$IP" link add "$(bridge)" type bridge
  "$IP" addr add "$SUBNET.254/24" dev "$(bridge)"
  "$IP" link set "$(bridge)" up
  for ((i = 0; i < n; i++)); do
    local h
    h=$(host "$i")
    "$IP" netns add "$h"
    "$IP" link add "$NAME-v$i" type veth peer name eth0 netns "$h"
    "$IP" link set "$NAME-v$i" master "$(bridge)" up
    "$IP" -n "$h" link set lo up
    "$IP" -n "$h" addr add "$SUBNET.$((i + 1))/24" dev eth0
    "$IP" -n "$h" link set eth0 up
    shape "$i"
  done
  trap - ERR
  log "cluster $NAME: $n hosts $(host 0)..$(host $((n - 1))) at $SUBNET.1..$SUBNET.$n on $(bridge) ($SUBNET.254), links $RATE each way"
}

# shape I: tbf at RATE on both ends of host I's link (its sending on eth0, its
# receiving on the bridge side); RATE none: no qdisc at all (veth's noqueue),
# since any qdisc moves sending into the NET_TX softirq, which a loaded machine
# runs late (docs/hierarchy.md, "The 64 KiB stall").
shape() {
  if [[ $RATE == none ]]; then
    "$TC" qdisc del dev "$NAME-v$1" root 2>/dev/null || true
    "$TC" -n "$(host "$1")" qdisc del dev eth0 root 2>/dev/null || true
    return
  fi
  "$TC" qdisc replace dev "$NAME-v$1" root tbf rate "$RATE" burst "$TBF_BURST" latency "$TBF_LATENCY"
  "$TC" -n "$(host "$1")" qdisc replace dev eth0 root tbf rate "$RATE" burst "$TBF_BURST" latency "$TBF_LATENCY"
}

teardown() {
  local h link
  for h in $(cluster_hosts); do
    # What still runs there (a run cut short) would keep the namespace, and its link, alive.
    "$IP" netns pids "$h" 2>/dev/null | xargs -r kill -KILL 2>/dev/null || true
    "$IP" netns del "$h" 2>/dev/null || true  # takes its veth pair along
  done
  # Host ends of links whose namespace is gone but not yet released.
  for link in $("$IP" -o link show | awk -F': ' '{print $2}' | sed -n "s/^\($NAME-v[0-9]*\)@.*/\1/p"); do
    "$IP" link del "$link" 2>/dev/null || true
  done
  "$IP" link del "$(bridge)" 2>/dev/null || true
}

cmd_down() {
  parse_common "$@"
  [[ ${#ARGS[@]} -le 1 ]] || die "down takes N and --name (got: ${ARGS[*]})"
  [[ ${#ARGS[@]} -eq 1 ]] && check_count "N (hosts)" "${ARGS[0]}" "$MAX_HOSTS"
  require_netns
  local existing
  existing=$(cluster_hosts | wc -l)
  if [[ ${#ARGS[@]} -eq 1 && $existing -ne 0 && $existing -ne ${ARGS[0]} ]]; then
    log "cluster $NAME has $existing hosts, not ${ARGS[0]}: removing all $existing"
  fi
  teardown
  log "cluster $NAME: down ($existing host namespace(s) removed)"
}

cmd_status() {
  parse_common "$@"
  require_netns
  local hosts h
  hosts=$(cluster_hosts)
  if [[ -z $hosts ]]; then
    echo "cluster $NAME: down"
    return 0
  fi
  echo "cluster $NAME: $(wc -l <<<"$hosts") hosts on $(bridge)"
  for h in $hosts; do
    printf '  %-10s %-16s %s\n' "$h" "$("$IP" -n "$h" -4 -o addr show dev eth0 | awk '{print $4}')" \
      "$("$TC" -n "$h" qdisc show dev eth0 | grep -o 'tbf.*' || echo 'no tbf')"
  done
}

# Open MPI calls the agent as ssh: AGENT HOST word..., the words a command for
# a shell. HOST is a namespace of the hostfile (NAME-hI).
cmd_agent() {
  [[ $# -ge 2 ]] || die "agent: usage: cluster.sh agent HOST command..."
  local h=$1
  shift
  ns_exists "$h" || die "agent: no namespace $h (is the cluster up?)"
  exec "$IP" netns exec "$h" unshare --uts /bin/sh -c 'hostname "$0" && exec /bin/sh -c "$1"' "$h" "$*"
}

cmd_run() {
  [[ $# -ge 2 ]] || { usage >&2; die "run needs N and PPN"; }
  local n=$1 ppn=$2
  shift 2
  check_count "N (hosts)" "$n" "$MAX_HOSTS"
  check_count "PPN (ranks per host)" "$ppn" 256
  local mpirun_opts=()
  while [[ $# -gt 0 && $1 != -- ]]; do
    case "$1" in
      --name) NAME=$2; shift 2 ;;
      --name=*) NAME=${1#--name=}; shift ;;
      --subnet) SUBNET=$2; shift 2 ;;
      --subnet=*) SUBNET=${1#--subnet=}; shift ;;
      *) mpirun_opts+=("$1"); shift ;;
    esac
  done
  [[ $# -ge 2 && $1 == -- ]] || die "run: the program follows -- (./hpcoll cluster run N PPN -- program args)"
  shift
  check_name
  require_netns
  local existing i
  existing=$(cluster_hosts | wc -l)
  [[ $existing -ge $n ]] || die "cluster $NAME has $existing hosts, fewer than $n: ./hpcoll cluster up $n first"
  mpirun --version 2>&1 | grep -qE 'Open MPI|OpenRTE' || die "run needs Open MPI's mpirun (found: $(mpirun --version 2>&1 | head -1))"
  HOSTFILE=$(mktemp "/tmp/hpcoll-cluster-$NAME.XXXXXX")
  trap 'rm -f "$HOSTFILE"' EXIT
  for ((i = 0; i < n; i++)); do echo "$(host "$i") slots=$ppn"; done >"$HOSTFILE"
  # TCP between hosts only over the bridge's subnet; the OOB of the orteds too.
  # Unbound (each orted would bind its ranks to the same cores as the others'),
  # yielding when idle: the ranks outnumber the cores.
  local flags=(--hostfile "$HOSTFILE" -n $((n * ppn)) --map-by slot --bind-to none
               --mca plm_rsh_agent "$SELF agent"
               --mca plm_rsh_no_tree_spawn 1
               --mca btl_tcp_if_include "$SUBNET.0/24" --mca oob_tcp_if_include "$SUBNET.0/24"
               --mca mpi_yield_when_idle "${HPCOLL_CLUSTER_YIELD:-1}")
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
    mpirun "${flags[@]}" "${mpirun_opts[@]}" "$@"
}

# The ctest form (hpcoll_cluster_test): a cluster of its own for one run. Exits
# with SKIP_CODE, saying why, where namespaces cannot be made.
SKIP_CODE=77
cmd_test() {
  [[ $# -ge 2 ]] || die "test needs N and PPN"
  local n=$1 ppn=$2
  shift 2
  local opts=()
  while [[ $# -gt 0 && $1 != -- ]]; do opts+=("$1"); shift; done
  parse_common "${opts[@]}"
  local why=""
  if [[ $(id -u) -ne 0 ]]; then why="not root (uid $(id -u))"
  elif [[ ! -x $IP || ! -x $TC ]]; then why="no ip or tc (iproute2)"
  elif ! "$IP" netns add "$NAME-probe" 2>/dev/null; then why="ip netns add failed"
  else "$IP" netns del "$NAME-probe"
  fi
  if [[ -n $why ]]; then
    echo "SKIPPED: the emulated cluster needs network namespaces: $why"
    exit "$SKIP_CODE"
  fi
  trap 'cmd_down --name "$NAME" 2>/dev/null' EXIT
  cmd_down --name "$NAME" 2>/dev/null  # a cluster left by a killed run
  cmd_up "$n" --name "$NAME" --subnet "$SUBNET" --rate "$RATE"
  local rc=0
  (cmd_run "$n" "$ppn" --name "$NAME" --subnet "$SUBNET" "$@") || rc=$?
  return "$rc"
}

main() {
  local cmd=${1:-help}
  [[ $# -gt 0 ]] && shift
  case "$cmd" in
    up) cmd_up "$@" ;;
    down) cmd_down "$@" ;;
    status) cmd_status "$@" ;;
    run) cmd_run "$@" ;;
    agent) cmd_agent "$@" ;;
    test) cmd_test "$@" ;;
    help|-h|--help) usage ;;
    *) usage >&2; die "unknown cluster command: $cmd" ;;
  esac
}

main "$@"
