#!/bin/sh
# A cluster across "hosts" on one machine: each host is a network namespace with its own
# address, linked to a bridge by a veth pair, optionally with tc netem delay, jitter and loss
# on its link. Postgres and Redis stay where they are (the machine's loopback) and are reached
# from the hosts through forwarders on the bridge's address, so every request of a realm
# crosses real links: client -> front host -> worker host -> Postgres/Redis. Root only.
#
#   scripts/netns-cluster.sh up [--name N] [--hosts K] [--subnet 10.77.0] [--delay MS] [--jitter MS] [--loss PCT]
#   scripts/netns-cluster.sh exec [--name N] HOST COMMAND...   (HOST: 1..K)
#   scripts/netns-cluster.sh demo [--name N] [--delay MS] ...  three-host deployment (see cluster/README.md)
#   scripts/netns-cluster.sh status [--name N]
#   scripts/netns-cluster.sh down [--name N]
#
# Host i is the namespace N-h<i> with address <subnet>.<10+i>; the bridge is <subnet>.1,
# where Postgres (5432) and Redis (6379) answer. `up` is idempotent per name; `down` removes
# the namespaces, links, forwarders and processes started by `demo`.
set -eu

NAME=chatnet
HOSTS=3
SUBNET=10.77.0
DELAY=
JITTER=
LOSS=
PG_PORT=${PG_PORT:-5432}
REDIS_PORT=${REDIS_PORT:-6379}
ROOT=$(cd "$(dirname "$0")/.." && pwd)

usage() {
  sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'
  exit "${1:-2}"
}

[ $# -ge 1 ] || usage
CMD=$1
shift
while [ $# -gt 0 ]; do
  case $1 in
    --name) NAME=$2; shift 2 ;;
    --hosts) HOSTS=$2; shift 2 ;;
    --subnet) SUBNET=$2; shift 2 ;;
    --delay) DELAY=$2; shift 2 ;;
    --jitter) JITTER=$2; shift 2 ;;
    --loss) LOSS=$2; shift 2 ;;
    -h|--help) usage 0 ;;
    *) break ;;
  esac
done

case $NAME in
  *[!a-z0-9]*|'') echo "netns-cluster: --name must be lower-case letters and digits" >&2; exit 2 ;;
esac
# Interface names are at most 15 characters: "nc<name>h<i>".
[ ${#NAME} -le 10 ] || { echo "netns-cluster: --name is at most 10 characters" >&2; exit 2; }
if [ "$(id -u)" != 0 ]; then
  echo "netns-cluster: needs root (network namespaces, veth links, tc); the cluster tests then run on one host" >&2
  exit 77
fi

STATE=/run/netns-cluster/$NAME
BRIDGE=nc$NAME
ns() { echo "$NAME-h$1"; }
addr() { echo "$SUBNET.$((10 + $1))"; }

netem() {
  # $1: interface (in namespace $2). Delay applies to what the host sends, so a round trip
  # between two hosts pays it twice.
  [ -n "$DELAY$LOSS" ] || return 0
  set -- "$1" "$2" delay "${DELAY:-0}ms"
  [ -z "$JITTER" ] || set -- "$@" "${JITTER}ms"
  [ -z "$LOSS" ] || set -- "$@" loss "${LOSS}%"
  dev=$1 nsname=$2
  shift 2
  if ! ip netns exec "$nsname" tc qdisc replace dev "$dev" root netem "$@" 2>/dev/null; then
    echo "netns-cluster: tc netem is not available in this kernel (modprobe sch_netem): links run without added delay or loss" >&2
    DELAY= JITTER= LOSS=
  fi
}

up() {
  mkdir -p "$STATE"
  echo "$SUBNET" > "$STATE/subnet"
  if ! ip link show "$BRIDGE" >/dev/null 2>&1; then
    ip link add "$BRIDGE" type bridge
    ip addr add "$SUBNET.1/24" dev "$BRIDGE"
    ip link set "$BRIDGE" up
  fi
  i=1
  while [ "$i" -le "$HOSTS" ]; do
    n=$(ns "$i")
    if ! ip netns list | grep -qw "^$n"; then
      ip netns add "$n"
      ip link add "nc${NAME}h$i" type veth peer name eth0 netns "$n"
      ip link set "nc${NAME}h$i" master "$BRIDGE" up
      ip netns exec "$n" ip addr add "$(addr "$i")/24" dev eth0
      ip netns exec "$n" ip link set eth0 up
      ip netns exec "$n" ip link set lo up
      ip netns exec "$n" ip route add default via "$SUBNET.1"
    fi
    netem eth0 "$n"
    i=$((i + 1))
  done
  # Postgres and Redis listen on the machine's loopback: forward them on the bridge address.
  if [ ! -f "$STATE/forward.pid" ] || ! kill -0 "$(cat "$STATE/forward.pid")" 2>/dev/null; then
    [ -f "$ROOT/dist/scripts/tcpForward.js" ] || { echo "netns-cluster: run npm run build first" >&2; exit 1; }
    node "$ROOT/dist/scripts/tcpForward.js" "$SUBNET.1:$PG_PORT" "127.0.0.1:$PG_PORT" "$SUBNET.1:$REDIS_PORT" "127.0.0.1:$REDIS_PORT" \
      < /dev/null > "$STATE/forward.log" 2>&1 &
    echo $! > "$STATE/forward.pid"
    sleep 0.5
    kill -0 "$(cat "$STATE/forward.pid")" || { cat "$STATE/forward.log" >&2; exit 1; }
  fi
  echo "netns-cluster $NAME: $HOSTS hosts $SUBNET.11..$SUBNET.$((10 + HOSTS)), bridge $SUBNET.1 (Postgres :$PG_PORT, Redis :$REDIS_PORT)${DELAY:+, delay ${DELAY} ms}${JITTER:+ ± ${JITTER} ms}${LOSS:+, loss ${LOSS}%}"
}

down() {
  for pidfile in "$STATE"/*.pid; do
    [ -f "$pidfile" ] || continue
    kill "$(cat "$pidfile")" 2>/dev/null || true
    rm -f "$pidfile"
  done
  for n in $(ip netns list | awk '{print $1}' | grep "^$NAME-h[0-9]*$" || true); do
    # Whatever still runs in the namespace goes with it.
    for pid in $(ip netns pids "$n" 2>/dev/null); do kill "$pid" 2>/dev/null || true; done
    ip netns del "$n" 2>/dev/null || true
  done
  ip link del "$BRIDGE" 2>/dev/null || true
  rm -rf "$STATE"
}

status() {
  [ -d "$STATE" ] || { echo "netns-cluster $NAME: down"; return 0; }
  echo "netns-cluster $NAME: subnet $(cat "$STATE/subnet")"
  for n in $(ip netns list | awk '{print $1}' | grep "^$NAME-h[0-9]*$" || true); do
    echo "  $n: $(ip netns exec "$n" ip -4 -o addr show dev eth0 | awk '{print $4}') $(ip netns exec "$n" tc qdisc show dev eth0 | head -1)"
  done
}

demo() {
  # A three-host deployment: workers w1 (host 1) and w2 (host 2), a front (host 3); the
  # database is created fresh. Stop it with Ctrl-C (everything is removed).
  HOSTS=3
  up
  db=chat_netns_$(date +%s)
  psql -h 127.0.0.1 -p "$PG_PORT" -U postgres -qc "CREATE DATABASE $db" postgres
  common="DATABASE_URL=postgres://postgres@$SUBNET.1:$PG_PORT/$db REDIS_URL=redis://$SUBNET.1:$REDIS_PORT REDIS_PREFIX=$NAME: LOG_LEVEL=${LOG_LEVEL:-info} DEMO_REALM=true"
  stop_demo() {
    trap - INT TERM
    down || true
    psql -h 127.0.0.1 -p "$PG_PORT" -U postgres -qc "DROP DATABASE IF EXISTS $db" postgres
    exit 0
  }
  trap stop_demo INT TERM
  for w in 1 2; do
    ip netns exec "$(ns $w)" env $common WORKER_ID=w$w WORKER_HOST=0.0.0.0 WORKER_ADVERTISE_HOST="$(addr $w)" WORKER_PORT=7001 WORKER_METRICS_PORT=9464 \
      node "$ROOT/dist/cluster/main.js" --role worker > "$STATE/w$w.log" 2>&1 &
    echo $! > "$STATE/w$w.pid"
    sleep 2
  done
  ip netns exec "$(ns 3)" env $common PORT=9991 HOST=0.0.0.0 EXTERNAL_HOST="$(addr 3):9991" \
    node "$ROOT/dist/cluster/main.js" --role front > "$STATE/front.log" 2>&1 &
  echo $! > "$STATE/front.pid"
  echo "front: http://$(addr 3):9991 (logs in $STATE); workers $(addr 1):7001, $(addr 2):7001; Ctrl-C stops"
  # Until Ctrl-C, or until the front ends (its host was taken down with `down`).
  wait "$(cat "$STATE/front.pid")" || true
  stop_demo
}

case $CMD in
  up) up ;;
  down) down ;;
  status) status ;;
  demo) demo ;;
  exec)
    [ $# -ge 2 ] || usage
    host=$1
    shift
    exec ip netns exec "$(ns "$host")" "$@"
    ;;
  *) usage ;;
esac
