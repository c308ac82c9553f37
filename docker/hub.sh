#!/usr/bin/env bash
# A course's JupyterHub on this machine (docker/hub/jupyterhub_config.py says what it runs).
#
#   bash docker/hub.sh start     # make hub: http://127.0.0.1:$HUB_PORT (default 8000)
#   bash docker/hub.sh stop      # make hub-stop: the hub, the students' containers, the network
#   HUB_VOLUMES=1 bash docker/hub.sh stop    # make hub-stop VOLUMES=1: the students' work too
#
# Everything it makes is named $HUB_PREFIX (default jaxgrade-hub): the hub's container, its
# network ($HUB_PREFIX-net), its state volume ($HUB_PREFIX-state), each student's container
# ($HUB_PREFIX-<name>) and volume ($HUB_PREFIX-user-<name>). dist/hub/ holds the course's
# notebooks (copied from dist/<name>/student/ at every start; a student's volume gets them
# the first time), the shared password and the course-admin service's API token (0600).
set -euo pipefail
cd "$(dirname "$0")/.."
prefix=${HUB_PREFIX:-jaxgrade-hub}
port=${HUB_PORT:-8000}
image=${HUB_IMAGE:-jax-interop-hub:latest}
setting() { python3 -c "import json,sys; c=json.load(open('otter_config.json')); print(eval(sys.argv[1]))" "$1"; }

stop() {
  local ids
  ids=$(docker ps -aq --filter "name=^${prefix}(-|$)")
  [[ -n $ids ]] && docker rm -f $ids >/dev/null
  docker network rm "$prefix-net" >/dev/null 2>&1 || true
  if [[ ${HUB_VOLUMES:-} == 1 ]]; then
    ids=$(docker volume ls -q --filter "name=^${prefix}-")
    [[ -n $ids ]] && docker volume rm $ids >/dev/null
  fi
  return 0
}

secret() {   # a file of dist/hub/ holding a random secret, made once
  local f=dist/hub/$1
  [[ -s $f ]] || { (umask 077; python3 -c 'import secrets; print(secrets.token_urlsafe(24))' > "$f"); }
  cat "$f"
}

case ${1:?usage: hub.sh start|stop} in
  stop) stop ;;
  start)
    mkdir -p dist/hub/course
    for student in dist/*/student; do
      assignment=$(basename "$(dirname "$student")")
      rm -rf "dist/hub/course/$assignment" && cp -r "$student" "dist/hub/course/$assignment"
    done
    chmod -R a+rX dist/hub/course
    password=${HUB_PASSWORD:-$(secret password)}
    docker network inspect "$prefix-net" >/dev/null 2>&1 || docker network create "$prefix-net" >/dev/null
    docker rm -f "$prefix" >/dev/null 2>&1 || true
    # The hub starts students' containers through the engine's socket (DockerSpawner):
    # whoever runs the hub's process runs the engine; students never see the socket.
    docker run -d --name "$prefix" --network "$prefix-net" -p "127.0.0.1:$port:8000" \
      -v /var/run/docker.sock:/var/run/docker.sock -v "$prefix-state:/srv/jupyterhub/state" \
      -e HUB_PREFIX="$prefix" -e HUB_PASSWORD="$password" -e HUB_ADMIN_TOKEN="$(secret admin-token)" \
      -e HUB_LAB_IMAGE="${LAB_IMAGE:-$(setting 'c["lab_image"]')}" \
      -e HUB_MEMORY="$(setting 'c["containers"]["memory"]')" -e HUB_CPUS="$(setting 'c["containers"]["cpus"]')" \
      -e HUB_PIDS="$(setting 'c["containers"]["pids"]')" -e HUB_COURSE_DIR="$(realpath dist/hub/course)" \
      "$image" >/dev/null
    for _ in $(seq 1 60); do
      if curl -fsS "http://127.0.0.1:$port/hub/health" >/dev/null 2>&1; then
        echo "JupyterHub on http://127.0.0.1:$port (password in dist/hub/password; make hub-stop stops it)"
        exit 0
      fi
      sleep 1
    done
    docker logs "$prefix" 2>&1 | tail -30 >&2
    exit 1 ;;
  *) echo "usage: hub.sh start|stop" >&2; exit 2 ;;
esac
