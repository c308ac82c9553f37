#!/usr/bin/env bash
# JupyterLab from the lab image (the grading image plus JupyterLab: a student's notebook runs
# the code the grader runs), unprivileged, on 127.0.0.1 only.
#
#   bash docker/lab.sh students [PORT [CONTAINER]]   # make lab: the five student notebooks
#   bash docker/lab.sh authors  [PORT [CONTAINER]]   # make authoring-lab: the repository
#
# students: dist/lab/<name>/ is a copy of dist/<name>/student/ made the first time (never
# overwritten: it holds the student's work), owned by the lab's user, so the notebooks can be
# saved and exported whoever runs make (as root, the lab runs as uid 1000, `student`).
# With CONTAINER, the server runs detached under that name (the browser tests); otherwise
# in the foreground until Ctrl-C. LAB_ROOT (default dist/lab) moves the students' copy.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:?usage: lab.sh students|authors [PORT [CONTAINER]]}
port=${2:-8888}
name=${3:-}
image=${LAB_IMAGE:-$(python3 -c 'import json; print(json.load(open("otter_config.json"))["lab_image"])')}
uid=$(id -u)
user=$([[ $uid == 0 ]] && echo 1000:1000 || echo "$uid:$(id -g)")

if [[ $mode == students ]]; then
  root=${LAB_ROOT:-dist/lab}
  mkdir -p "$root"
  for student in dist/*/student; do
    assignment=$(basename "$(dirname "$student")")
    [[ -e $root/$assignment ]] || cp -r "$student" "$root/$assignment"
  done
  [[ $uid == 0 ]] && chown -R "$user" "$root"
  url=/lab/tree
else
  root=.
  url=/lab
fi

run=(docker run --rm -p "127.0.0.1:$port:8888" --user "$user" -e HOME=/tmp/home
     -v "$(realpath "$root"):/home/student/work" -w /home/student/work)
serve=(jupyter lab --ip=0.0.0.0 --port=8888 --no-browser --IdentityProvider.token=''
       --ServerApp.root_dir=/home/student/work --LabApp.default_url="$url")
if [[ -n $name ]]; then
  "${run[@]}" -d --name "$name" "$image" "${serve[@]}" >/dev/null
  for _ in $(seq 1 60); do
    curl -fsS "http://127.0.0.1:$port/api/status" >/dev/null 2>&1 && exit 0
    sleep 1
  done
  docker logs "$name" 2>&1 | tail -20 >&2
  exit 1
fi
echo "JupyterLab on http://127.0.0.1:$port$url (Ctrl-C stops it)"
"${run[@]}" -it "$image" "${serve[@]}"
