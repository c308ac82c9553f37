# The course hub (make hub; docker/hub.sh starts it and sets the HUB_* variables).
#
# JupyterHub with its own configurable-http-proxy (started by the hub, in this container),
# DockerSpawner starting the lab image once per student: the grading image's memory, CPU and
# process limits (otter_config.json's `containers`), their work in a named volume of their
# own (kept when their server stops, removed by `make hub-stop VOLUMES=1` only), the five
# student notebooks copied in the first time, a network of the hub's own.
#
# Logging in: a shared password (JupyterHub's DummyAuthenticator), for a try-out only:
# anyone who knows it can log in as any name. A course swaps `authenticator_class` below for
# its own: LTI 1.3 from Canvas or Moodle (jupyterhub-ltiauthenticator), OAuth with GitHub,
# Google or the university's identity provider (oauthenticator), or accounts the students
# create and an instructor approves (jupyterhub-nativeauthenticator).
import os

env = os.environ
prefix = env["HUB_PREFIX"]          # every container, volume and network the hub makes
c = get_config()  # noqa: F821 (JupyterHub's config loader defines it)

c.JupyterHub.bind_url = "http://0.0.0.0:8000"          # the proxy: the only published port
c.JupyterHub.hub_ip = "0.0.0.0"                         # the hub's API, on the hub's network only
c.JupyterHub.hub_connect_ip = f"{prefix}"               # how a student's server reaches it
c.JupyterHub.db_url = "sqlite:////srv/jupyterhub/state/jupyterhub.sqlite"
c.JupyterHub.cookie_secret_file = "/srv/jupyterhub/state/cookie_secret"
c.JupyterHub.cleanup_servers = False                    # a hub restart leaves students' servers up
c.ConfigurableHTTPProxy.pid_file = "/srv/jupyterhub/state/proxy.pid"

c.JupyterHub.authenticator_class = "dummy"
c.DummyAuthenticator.password = env["HUB_PASSWORD"]
c.Authenticator.allow_all = True
c.Authenticator.admin_users = set()

# The course's own service: make hub's admin token (dist/hub/admin-token) for the tests and
# an instructor's scripts; it may manage servers, not read students' files.
c.JupyterHub.services = [{"name": "course-admin", "api_token": env["HUB_ADMIN_TOKEN"]}]
c.JupyterHub.load_roles = [{"name": "course-admin", "services": ["course-admin"],
                            "scopes": ["admin:users", "admin:servers", "tokens"]}]

c.JupyterHub.spawner_class = "dockerspawner.DockerSpawner"
c.DockerSpawner.image = env["HUB_LAB_IMAGE"]
c.DockerSpawner.network_name = f"{prefix}-net"
c.DockerSpawner.use_internal_ip = True
c.DockerSpawner.name_template = f"{prefix}-{{username}}"
c.DockerSpawner.remove = True                            # a stopped server's container goes; its volume stays
c.DockerSpawner.pull_policy = "never"                    # the lab image is built here (make lab-image)
c.DockerSpawner.extra_create_kwargs = {"user": "1000:1000"}
c.DockerSpawner.environment = {"HOME": "/home/student"}
c.DockerSpawner.mem_limit = env["HUB_MEMORY"].upper()   # docker's 768m, JupyterHub's 768M
c.DockerSpawner.cpu_limit = float(env["HUB_CPUS"])
c.DockerSpawner.extra_host_config = {
    "memswap_limit": env["HUB_MEMORY"],          # swap included, as make grade's containers
    "pids_limit": int(env["HUB_PIDS"]),
    "security_opt": ["no-new-privileges"], "cap_drop": ["ALL"],
}
c.DockerSpawner.notebook_dir = "/home/student/work"
c.DockerSpawner.default_url = "/lab/tree"
c.DockerSpawner.volumes = {
    f"{prefix}-user-{{username}}": "/home/student/work",
    env["HUB_COURSE_DIR"]: {"bind": "/srv/course", "mode": "ro"},
}
# The notebooks go in the first time only (a marker file records it): never over a
# student's work, and a notebook a student deleted is not brought back by a restart.
c.DockerSpawner.cmd = ["sh", "-c", 'w=/home/student/work; [ -e "$w/.course-copied" ] || '
                       '{ cp -r /srv/course/. "$w"/ && touch "$w/.course-copied"; }; '
                       'exec jupyterhub-singleuser "$@"', "start"]
c.Spawner.start_timeout = 120
c.Spawner.http_timeout = 120
