#!/usr/bin/env bash
# The registry a swarm's nodes pull the grading image from (make grade --backend swarm):
# Debian's docker-registry package, served over TLS with a self-signed certificate for
# ADDRESS, whose CA every Docker daemon trusts from /etc/docker/certs.d/ADDRESS/ca.crt
# (read at each pull: no daemon restart, no insecure-registries setting).
#
#   bash docker/registry.sh start IP:PORT [DATA_DIR]   # install if missing, serve, trust here
#   bash docker/registry.sh stop [DATA_DIR]
#
# On every other node: copy /etc/docker/certs.d/IP:PORT/ca.crt to the same path.
# DATA_DIR (default /var/lib/jax-interop-registry) holds the key, the certificate, the
# configuration, the pid and the stored images.
set -euo pipefail
log() { echo "[registry] $*" >&2; }

cmd=${1:?usage: registry.sh start IP:PORT [DATA_DIR] | stop [DATA_DIR]}
if [[ $cmd == stop ]]; then
  dir=${2:-/var/lib/jax-interop-registry}
  [[ -f $dir/pid ]] && kill "$(cat "$dir/pid")" 2>/dev/null || true
  rm -f "$dir/pid"
  exit 0
fi
address=${2:?give the address IP:PORT that the nodes reach the registry at}
dir=${3:-/var/lib/jax-interop-registry}
ip=${address%:*}

if ! command -v docker-registry >/dev/null; then
  log "installing Debian's docker-registry"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq docker-registry >/dev/null
fi
mkdir -p "$dir/data"
if [[ ! -f $dir/ca.crt ]] || ! openssl x509 -in "$dir/ca.crt" -noout -ext subjectAltName | grep -q "$ip"; then
  san="IP:$ip"; [[ $ip =~ ^[0-9.]+$ ]] || san="DNS:$ip"
  openssl req -x509 -newkey rsa:2048 -nodes -days 365 -subj "/CN=jax-interop-registry" \
    -addext "subjectAltName=$san" -keyout "$dir/key.pem" -out "$dir/ca.crt" 2>/dev/null
fi
cat >"$dir/config.yml" <<EOF
version: 0.1
log: {level: warn}
storage:
  filesystem: {rootdirectory: $dir/data}
  delete: {enabled: true}
http:
  addr: $address
  tls: {certificate: $dir/ca.crt, key: $dir/key.pem}
EOF
install -D -m 0644 "$dir/ca.crt" "/etc/docker/certs.d/$address/ca.crt"
if [[ -f $dir/pid ]] && kill -0 "$(cat "$dir/pid")" 2>/dev/null; then
  log "already serving on $address"
  exit 0
fi
nohup docker-registry serve "$dir/config.yml" >"$dir/registry.log" 2>&1 &
echo $! >"$dir/pid"
for _ in $(seq 1 30); do
  curl -fsS --cacert "$dir/ca.crt" "https://$address/v2/" >/dev/null 2>&1 && { log "serving on $address"; exit 0; }
  sleep 0.5
done
tail -5 "$dir/registry.log" >&2
log "the registry did not start"
exit 1
