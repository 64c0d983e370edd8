"""deploy/ against the code: every setting the code reads from the environment, as the files
give it to each process (compose.yaml and the Kubernetes Deployments, with the env files
deploy/render_env.py writes from `tabula access`), and the servers' configurations against
services.runtime.access / cluster and contracts.subjects.

No Docker and no server here: the files are parsed, the settings are loaded by
services.runtime.config.load() itself, and nats-server checks its configuration (`-t`).
Each check is a function returning the problems it finds; test_checks_catch_mistakes breaks
the files in memory and sees each check complain.
"""

import ast
import copy
import functools
import importlib.util
import ipaddress
import os
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
import yaml

from contracts import subjects
from services.gateway.door import Door, default_hosts, host_allowed
from services.runtime import access, config
from services.runtime.embedded import PG_SUPERUSER, nats_binary

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
COMPOSE = DEPLOY / "compose"
K8S = DEPLOY / "k8s"
# Every Tabula process: the services and the gateway, one role each.
ROLES = (*access.SERVICES, "gateway")
SOURCES = ("services", "contracts", "domain")


# --- what the code reads ----------------------------------------------------------------------


def _is_environ(node: ast.expr) -> bool:
    """os.environ, environ, or a mapping parameter named env (Door.from_env, thinking.settings)."""
    if isinstance(node, ast.Attribute):
        return node.attr == "environ"
    return isinstance(node, ast.Name) and node.id in {"environ", "env"}


def _const(node: ast.expr | None) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def env_reads(tree: ast.AST) -> set[str]:
    """Names read from the environment: environ.get / env.get / os.getenv / environ[...] /
    `in os.environ` / seconds_from_env(NAME, ...)."""
    found: set[str] = set()
    for node in ast.walk(tree):
        name = None
        if isinstance(node, ast.Call) and node.args:
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr in {"get", "pop", "setdefault"}:
                if _is_environ(func.value):
                    name = _const(node.args[0])
            elif (isinstance(func, ast.Attribute) and func.attr == "getenv") or (
                isinstance(func, ast.Name | ast.Attribute)
                and (func.id if isinstance(func, ast.Name) else func.attr)
                in {"seconds_from_env", "getenv"}
            ):
                name = _const(node.args[0])
        elif isinstance(node, ast.Subscript) and _is_environ(node.value):
            name = _const(node.slice)
        elif (isinstance(node, ast.Compare) and isinstance(node.ops[0], ast.In | ast.NotIn)
              and _is_environ(node.comparators[0])):  # fmt: skip
            name = _const(node.left)
        if name:
            found.add(name)
    return found


@functools.cache
def code_settings() -> dict[str, set[str]]:
    """Every name the code reads from the environment -> the files that read it."""
    where: dict[str, set[str]] = {}
    for source in SOURCES:
        for path in (ROOT / source).rglob("*.py"):
            for name in env_reads(ast.parse(path.read_text(), str(path))):
                where.setdefault(name, set()).add(str(path.relative_to(ROOT)))
    return where


@functools.cache
def database_roles() -> set[str]:
    """The roles `tabula up` gives a DATABASE_URL (a dict with "DATABASE_URL":
    urls.postgres_for(role) in services/cli/stack.py: role a constant, or a name that an
    enclosing `if name in (...)` or `for name in (...)` narrows to constants)."""
    tree = ast.parse((ROOT / "services/cli/stack.py").read_text())
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}

    def narrowed(node: ast.AST, name: str) -> set[str] | None:
        while node in parents:
            node = parents[node]
            if (isinstance(node, ast.IfExp | ast.If) and isinstance(node.test, ast.Compare)
                    and isinstance(node.test.left, ast.Name) and node.test.left.id == name
                    and isinstance(node.test.ops[0], ast.In)):  # fmt: skip
                elts = getattr(node.test.comparators[0], "elts", [])
                return {c for c in map(_const, elts) if c}
            if (isinstance(node, ast.For) and isinstance(node.target, ast.Name)
                    and node.target.id == name):  # fmt: skip
                return {c for c in map(_const, getattr(node.iter, "elts", [])) if c}
        return None

    roles: set[str] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Dict):
            continue
        for key, value in zip(node.keys, node.values, strict=True):
            if not (key is not None and _const(key) == "DATABASE_URL"
                    and isinstance(value, ast.Call) and value.args):  # fmt: skip
                continue
            arg = value.args[0]
            if (role := _const(arg)) is not None:
                roles.add(role)
            elif isinstance(arg, ast.Name) and (found := narrowed(node, arg.id)) is not None:
                roles |= found
    return roles


def metrics_roles() -> bool:
    """`tabula up` gives every service but the gateway a TABULA_METRICS_PORT of its own."""
    return '"TABULA_METRICS_PORT"' in (ROOT / "services/cli/stack.py").read_text()


def required(role: str) -> set[str]:
    """What `role`'s process must be given in a container (no stack file to fall back on)."""
    need = {"NATS_URL", "REDIS_URL"}  # config.load: both, or a `tabula up` stack file
    if role in database_roles():
        need.add("DATABASE_URL")
    if role == "gateway":
        # Listening on every address of its container, told where and its names.
        need |= {"TABULA_GATEWAY_HOST", "TABULA_GATEWAY_PORT", "TABULA_GATEWAY_ALLOWED_HOSTS",
                 "TABULA_GATEWAY_TRUSTED_PROXIES"}  # fmt: skip
    else:
        # Served where the probes and the scraper reach it (127.0.0.1 by default).
        need |= {"TABULA_METRICS_PORT", "TABULA_METRICS_HOST"}
    if role == "rules":
        # Every replica the same (docs/operations.md), rather than one kept in the store.
        need |= {"TABULA_SECRET", "TABULA_SIGNING_KEY"}
    return need


def test_the_code_reads_what_the_checks_know() -> None:
    """The scan finds the settings (it would find nothing if it were broken), and every name
    `required` asks for is one the code reads."""
    found = code_settings()
    known = {"NATS_URL", "REDIS_URL", "DATABASE_URL", "TABULA_SECRET", "TABULA_SIGNING_KEY",
             "TABULA_METRICS_PORT", "TABULA_METRICS_HOST", "TABULA_SWEEP_S",
             "TABULA_GATEWAY_HOST", "TABULA_GATEWAY_ALLOWED_HOSTS", "TABULA_RETRY_DEADLINE_S",
             "TABULA_BOTS_LEASE_S", "TABULA_BOTS_THINKERS", "TABULA_BOTS_MOVE_CPU_S"}  # fmt: skip
    assert known <= set(found), known - set(found)
    for role in ROLES:
        assert required(role) <= set(found), (role, required(role) - set(found))
    assert database_roles() == {"rules", "archiver", "projector", "gateway"}
    assert metrics_roles()
    # The services that refuse to start without it are among those given it.
    for role in ROLES:
        main = ROOT / "services" / role / "__main__.py"
        if "needs DATABASE_URL" in main.read_text():
            assert role in database_roles(), role


# --- the files, with their secrets rendered ---------------------------------------------------


def render(folder: Path, target: str) -> dict[str, dict[str, str]]:
    spec = importlib.util.spec_from_file_location("render_env", DEPLOY / "render_env.py")
    assert spec
    assert spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.render(folder, target)


def read_env_file(path: Path) -> dict[str, str]:
    env = {}
    for line in path.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, _, value = line.partition("=")
            env[name] = value
    return env


def interpolate(value: str) -> str:
    """Compose's ${NAME:-default}, with nothing set: the default."""
    return re.sub(r"\$\{[A-Z_]+:-([^}]*)\}", r"\1", value)


@pytest.fixture(scope="module")
def compose_secrets(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("compose") / "secrets"
    render(folder, "compose")
    return folder


@pytest.fixture(scope="module")
def k8s_secrets(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("k8s") / "secrets"
    render(folder, "k8s")
    return folder


def load_compose() -> dict[str, Any]:
    return yaml.safe_load((COMPOSE / "compose.yaml").read_text())


def load_k8s() -> list[dict[str, Any]]:
    docs = []
    for path in sorted(K8S.glob("*.yaml")):
        docs += [d for d in yaml.safe_load_all(path.read_text())
                 if d and d["kind"] != "Kustomization"]  # fmt: skip
    return docs


def module_role(command: list[str] | None) -> str | None:
    """`python -m services.<role>` -> role."""
    if command and command[:2] == ["python", "-m"] and command[2].startswith("services."):
        return command[2].removeprefix("services.")
    return None


def compose_processes(doc: dict[str, Any], secrets: Path) -> Iterator[tuple[str, str, dict]]:
    """(compose service, role, its environment: env files then `environment`)."""
    for name, service in doc["services"].items():
        role = module_role(service.get("command"))
        if role is None:
            continue
        env: dict[str, str] = {}
        for env_file in service.get("env_file", []):
            assert env_file.startswith("./secrets/"), env_file
            env |= read_env_file(secrets / env_file.removeprefix("./secrets/"))
        environment = service.get("environment", {})
        if isinstance(environment, list):
            environment = dict(item.split("=", 1) for item in environment)
        env |= {k: interpolate(str(v)) for k, v in environment.items()}
        yield name, role, env


def k8s_processes(docs: list[dict], secrets: Path) -> Iterator[tuple[str, str, dict]]:
    """(Deployment, role, its container's environment: Secret tabula-<file> from
    env/<file>.env, then `env`)."""
    for doc in docs:
        if doc["kind"] != "Deployment":
            continue
        for container in doc["spec"]["template"]["spec"]["containers"]:
            role = module_role(container.get("command"))
            env: dict[str, str] = {}
            for source in container.get("envFrom", []):
                secret = source["secretRef"]["name"]
                env |= read_env_file(secrets / "env" / f"{secret.removeprefix('tabula-')}.env")
            env |= {item["name"]: item["value"] for item in container.get("env", [])}
            yield doc["metadata"]["name"], role, env


def load_settings(env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> config.Settings:
    """The process's Settings, as config.load() reads them from exactly this environment."""
    with monkeypatch.context() as m:
        for name in list(os.environ):
            m.delenv(name)
        m.setenv("TABULA_HOME", "/nonexistent")  # never a stack file from this machine
        for name, value in env.items():
            m.setenv(name, value)
        return config.load()


# --- the checks -------------------------------------------------------------------------------


def check_env(role: str, env: dict[str, str], nats_hosts: set[str], valkey_hosts: set[str],
              postgres_host: str, creds: access.Credentials,
              monkeypatch: pytest.MonkeyPatch) -> list[str]:  # fmt: skip
    problems = []
    known = set(code_settings())
    problems += [f"{role}: {name} is read by no code" for name in sorted(set(env) - known)]
    problems += [f"{role}: {name} missing" for name in sorted(required(role) - set(env))]
    if problems:
        return problems
    try:
        settings = load_settings(env, monkeypatch)
    except config.ConfigError as exc:
        return [f"{role}: {exc}"]
    for setting, hosts, port in ((settings.nats_url, nats_hosts, 4222),
                                 (settings.redis_url, valkey_hosts, 6379)):  # fmt: skip
        urls = [urlsplit(u) for u in setting.split(",")]
        if {u.hostname for u in urls} != hosts or {u.port for u in urls} != {port}:
            problems.append(f"{role}: {setting.split('@')[-1]} names not every node {hosts}")
        for u in urls:
            if (u.username, u.password) != (role, creds.passwords[role]):
                problems.append(f"{role}: a URL is not the role's user and password")
    if "DATABASE_URL" in env:
        db = urlsplit(settings.database_url)
        if (db.username, db.password) != (role, creds.postgres[role]):
            problems.append(f"{role}: DATABASE_URL is not its PostgreSQL role")
        if (db.hostname, db.port, db.path) != (postgres_host, 5432, f"/{access.PG_DATABASE}"):
            problems.append(f"{role}: DATABASE_URL is not the tabula database")
    if role == "gateway":
        door = Door.from_env(env)
        try:
            hosts = door.allowed_hosts or default_hosts(env["TABULA_GATEWAY_HOST"])
        except ValueError as exc:
            return [*problems, f"gateway: {exc}"]
        if not host_allowed("localhost", hosts):
            problems.append("gateway: the probes' Host (localhost) is not allowed")
    elif settings.metrics_port == 0 or settings.metrics_host in {"127.0.0.1", "localhost"}:
        problems.append(f"{role}: metrics not reachable from outside the container")
    if role == "rules" and not (settings.secret and settings.signing_key):
        problems.append("rules: no shared TABULA_SECRET / TABULA_SIGNING_KEY")
    return problems


def compose_problems(doc: dict[str, Any], secrets: Path,
                     monkeypatch: pytest.MonkeyPatch) -> list[str]:  # fmt: skip
    creds = access.load_or_create(secrets)
    services = doc["services"]
    nats_hosts = {n for n in services if re.fullmatch(r"nats-\d+", n)}
    valkey_hosts = {n for n in services if re.fullmatch(r"valkey-\d+", n)}
    problems = []
    if len(nats_hosts) != 3 or len(valkey_hosts) != 6:
        problems.append(f"compose: {len(nats_hosts)} NATS and {len(valkey_hosts)} Valkey nodes")
    counts: dict[str, int] = {}
    envs: dict[str, list[dict[str, str]]] = {}
    for name, role, env in compose_processes(doc, secrets):
        service = services[name]
        counts[role] = counts.get(role, 0) + service.get("deploy", {}).get("replicas", 1)
        envs.setdefault(role, []).append(env)
        problems += check_env(role, env, nats_hosts, valkey_hosts, "postgres", creds, monkeypatch)
        waits = service.get("depends_on", {})
        for before in ("migrate", "valkey-init"):
            if waits.get(before, {}).get("condition") != "service_completed_successfully":
                problems.append(f"{name}: does not wait for {before}")
        if service.get("restart") not in {"always", "unless-stopped", "on-failure"}:
            problems.append(f"{name}: no restart policy")
        probe = " ".join(service.get("healthcheck", {}).get("test", []))
        port = env.get("TABULA_METRICS_PORT") if role != "gateway" else None
        expected = (
            f"127.0.0.1:{port}/metrics"
            if port
            else (f"127.0.0.1:{env.get('TABULA_GATEWAY_PORT')}/readyz")
        )
        if expected not in probe:
            problems.append(f"{name}: healthcheck does not ask {expected}")
    wanted = {"rules": 2, "randomness": 2, "matchmaking": 2, "archiver": 1, "projector": 1,
              "bots": 2, "gateway": 2}  # fmt: skip
    if counts != wanted:
        problems.append(f"compose: replicas {counts}, not {wanted}")
    # Replicas of a role share its settings (the rules' secret and signing key above all).
    for role, role_envs in envs.items():
        if any(e != role_envs[0] for e in role_envs):
            problems.append(f"compose: the {role} replicas differ in their settings")
    return problems


def k8s_problems(docs: list[dict], secrets: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    creds = access.load_or_create(secrets)
    sets = {d["metadata"]["name"]: d for d in docs if d["kind"] == "StatefulSet"}
    problems = []
    sizes = {name: sets[name]["spec"]["replicas"] for name in ("nats", "valkey", "postgres")
             if name in sets}  # fmt: skip
    if sizes != {"nats": 3, "valkey": 6, "postgres": 1}:
        problems.append(f"k8s: StatefulSets {sizes}")
    hosts = {name: {f"{name}-{i}.{name}.tabula.svc.cluster.local" for i in range(size)}
             for name, size in sizes.items()}  # fmt: skip
    pdbs = [d for d in docs if d["kind"] == "PodDisruptionBudget"]
    counts = {}
    for name, role, env in k8s_processes(docs, secrets):
        deployment = next(d for d in docs if d["kind"] == "Deployment"
                          and d["metadata"]["name"] == name)  # fmt: skip
        counts[role] = deployment["spec"]["replicas"]
        problems += check_env(
            role,
            env,
            hosts.get("nats", set()),
            hosts.get("valkey", set()),
            next(iter(hosts.get("postgres", {""}))),
            creds,
            monkeypatch,
        )
        labels = deployment["spec"]["template"]["metadata"]["labels"]
        if not any(p["spec"]["selector"]["matchLabels"].items() <= labels.items() for p in pdbs):
            problems.append(f"{name}: no PodDisruptionBudget")
        container = deployment["spec"]["template"]["spec"]["containers"][0]
        resources = container.get("resources", {})
        if not (resources.get("requests") and resources.get("limits")):
            problems.append(f"{name}: no resource requests and limits")
        ports = {p["name"]: p["containerPort"] for p in container.get("ports", [])}
        for kind in ("livenessProbe", "readinessProbe"):
            get = container.get(kind, {}).get("httpGet", {})
            path, port = get.get("path"), ports.get(get.get("port"), get.get("port"))
            if role == "gateway":
                want = (
                    "/livez" if kind == "livenessProbe" else "/readyz",
                    int(env["TABULA_GATEWAY_PORT"]),
                )
                host = {h["name"]: h["value"] for h in get.get("httpHeaders", [])}.get("Host")
                if host is None or not host_allowed(host, Door.from_env(env).allowed_hosts
                                                    or frozenset()):  # fmt: skip
                    problems.append(f"{name}: {kind} sends no Host the gateway answers to")
            else:
                want = ("/metrics", int(env["TABULA_METRICS_PORT"]))
            if (path, port) != want:
                problems.append(f"{name}: {kind} asks {path} on {port}, not {want}")
    wanted = {"rules": 2, "randomness": 2, "matchmaking": 2, "archiver": 1, "projector": 1,
              "bots": 2, "gateway": 2}  # fmt: skip
    if counts != wanted:
        problems.append(f"k8s: replicas {counts}, not {wanted}")
    service = next((d for d in docs if d["kind"] == "Service"
                    and d["metadata"]["name"] == "gateway"), None)  # fmt: skip
    ingress = next((d for d in docs if d["kind"] == "Ingress"), None)
    if service is None or ingress is None:
        problems.append("k8s: no Service and Ingress for the gateway")
    else:
        backend = ingress["spec"]["rules"][0]["http"]["paths"][0]["backend"]["service"]
        if backend["name"] != "gateway":
            problems.append("k8s: the Ingress does not lead to the gateway")
    return problems


def mapping_problems(nats_users: str, texts: dict[str, str]) -> list[str]:
    """The bus's mapping as `tabula access` writes it is the code's, and no deploy file says
    (or sets) another partition count."""
    problems = []
    line = next((x for x in nats_users.splitlines() if x.startswith("mappings:")), "")
    mapping = yaml.safe_load(line.removeprefix("mappings:")) if line else None
    if mapping != subjects.ACT_MAPPING:
        problems.append(f"nats-users.conf maps {mapping}, not {subjects.ACT_MAPPING}")
    counts = re.findall(r"partition\((\d+)", nats_users)
    if counts != [str(subjects.ACT_PARTITIONS)]:
        problems.append(f"nats-users.conf: partitions {counts}")
    for name, text in texts.items():
        if re.search(r"^\s*mappings\s*[:=]", text, re.MULTILINE):
            problems.append(f"{name}: a mapping of its own (only nats-users.conf's)")
        for count in re.findall(r"partition\((\d+)|\b(\d+) partitions|\((\d+): contracts", text):
            if str(subjects.ACT_PARTITIONS) not in count:
                problems.append(f"{name}: says {count} partitions")
    return problems


# --- the tests --------------------------------------------------------------------------------


def test_compose_gives_each_process_its_settings(
    compose_secrets: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert compose_problems(load_compose(), compose_secrets, monkeypatch) == []


def test_k8s_gives_each_process_its_settings(
    k8s_secrets: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert k8s_problems(load_k8s(), k8s_secrets, monkeypatch) == []


def test_every_role_is_deployed(compose_secrets: Path, k8s_secrets: Path) -> None:
    compose = {role for _, role, _ in compose_processes(load_compose(), compose_secrets)}
    k8s = {role for _, role, _ in k8s_processes(load_k8s(), k8s_secrets)}
    assert compose == k8s == set(ROLES)
    for role in ROLES:
        assert (ROOT / "services" / role / "__main__.py").is_file()


def deploy_texts() -> dict[str, str]:
    return {str(p.relative_to(ROOT)): p.read_text() for p in DEPLOY.rglob("*")
            if p.is_file() and p.suffix in {".conf", ".yaml", ".md", ""}}  # fmt: skip


def test_nats_mapping_and_partitions_match_the_code(compose_secrets: Path) -> None:
    nats_users = (compose_secrets / "nats-users.conf").read_text()
    assert nats_users == access.nats_config(access.load_or_create(compose_secrets))
    assert mapping_problems(nats_users, deploy_texts()) == []


def nats_layout(folder: Path, nats_conf: str, secrets: Path) -> Path:
    """/etc/nats as the containers see it: the config, and the secret files under tabula/."""
    (folder / "tabula").mkdir(parents=True)
    (folder / "nats.conf").write_text(nats_conf)
    for name in ("nats-users.conf", "nats-cluster.conf"):
        (folder / "tabula" / name).write_bytes((secrets / name).read_bytes())
    return folder / "nats.conf"


def test_nats_configs_are_valid_and_clustered(
    compose_secrets: Path, k8s_secrets: Path, tmp_path: Path
) -> None:
    """nats-server accepts each node's configuration with the files mounted where the
    containers have them, and the cluster block routes to every node with `route`."""
    doc = load_compose()
    for name in ("nats-1", "nats-2", "nats-3"):
        mounts = dict(v.rsplit(":", 2)[:2] for v in doc["services"][name]["volumes"])
        assert mounts == {
            "./nats.conf": "/etc/nats/nats.conf",
            "./secrets/nats-users.conf": "/etc/nats/tabula/nats-users.conf",
            "./secrets/nats-cluster.conf": "/etc/nats/tabula/nats-cluster.conf",
        }
        assert doc["services"][name]["command"][-2:] == ["--name", name]
    configmap = next(d for d in load_k8s() if d["kind"] == "ConfigMap"
                     and d["metadata"]["name"] == "nats-config")  # fmt: skip
    for target, text, secrets in (
        ("compose", (COMPOSE / "nats.conf").read_text(), compose_secrets),
        ("k8s", configmap["data"]["nats.conf"], k8s_secrets),
    ):
        conf = nats_layout(tmp_path / target, text, secrets)
        command = [nats_binary(), "-t", "-c", str(conf)]
        run = subprocess.run(command, check=False, capture_output=True, text=True, timeout=30)
        assert run.returncode == 0, run.stderr + run.stdout
        cluster = yaml.safe_load((secrets / "nats-cluster.conf").read_text())["cluster"]
        password = access.load_or_create(secrets).passwords["route"]
        assert cluster["authorization"] == {"user": "route", "password": password}
        nodes = (
            ["nats-1", "nats-2", "nats-3"]
            if target == "compose"
            else [f"nats-{i}.nats.tabula.svc.cluster.local" for i in range(3)]
        )
        assert cluster["routes"] == [f"nats://route:{password}@{n}:6222" for n in nodes]


def valkey_settings(text: str) -> dict[str, str]:
    return dict(line.split(None, 1) for line in text.splitlines()
                if line.strip() and not line.startswith("#"))  # fmt: skip


def test_valkey_is_a_durable_closed_cluster(compose_secrets: Path) -> None:
    configmap = next(d for d in load_k8s() if d["kind"] == "ConfigMap"
                     and d["metadata"]["name"] == "valkey-config")  # fmt: skip
    for text in ((COMPOSE / "valkey.conf").read_text(), configmap["data"]["valkey.conf"]):
        settings = valkey_settings(text)
        for name, value in {
            "appendonly": "yes",
            "appendfsync": "always",
            "cluster-enabled": "yes",
            "maxmemory-policy": "noeviction",
            "aclfile": "/etc/valkey/tabula/users.acl",
            "include": "/etc/valkey/tabula/valkey-replica.conf",
        }.items():
            assert settings.get(name) == value, name
    creds = access.load_or_create(compose_secrets)
    replica = (compose_secrets / "valkey-replica.conf").read_text()
    assert valkey_settings(replica) == {
        "masteruser": "replica",
        "masterauth": creds.passwords["replica"],
    }
    assert (compose_secrets / "users.acl").read_text() == access.valkey_acl(creds)
    doc = load_compose()
    for i in range(1, 7):
        service = doc["services"][f"valkey-{i}"]
        assert {
            "./secrets/users.acl:/etc/valkey/tabula/users.acl:ro",
            "./secrets/valkey-replica.conf:/etc/valkey/tabula/valkey-replica.conf:ro",
            "./valkey.conf:/etc/valkey/valkey.conf:ro",
        } <= set(service["volumes"])
    for script in (doc["services"]["valkey-init"]["command"][0],
                   next(d for d in load_k8s() if d["metadata"]["name"] == "valkey-init")
                   ["spec"]["template"]["spec"]["containers"][0]["command"][-1]):  # fmt: skip
        assert "--cluster create" in script
        assert "--cluster-replicas 1" in script
        assert "--user admin" in script
        assert (
            len(re.findall(r"valkey-\d", script.split("for ")[1].split("do")[0])) == 6
            or "0 1 2 3 4 5" in script
        )
    admin = read_env_file(compose_secrets / "env" / "valkey-admin.env")
    assert admin["REDISCLI_AUTH"] == creds.passwords["admin"]


def test_postgres_roles_and_migrations(compose_secrets: Path) -> None:
    creds = access.load_or_create(compose_secrets)
    doc = load_compose()["services"]
    assert (compose_secrets / "postgres-roles.sql").read_text() == access.postgres_roles_sql(creds)
    assert (
        "./secrets/postgres-roles.sql:/etc/tabula/postgres-roles.sql:ro"
        in (doc["postgres-init"]["volumes"])
    )
    assert doc["postgres-init"]["command"][-2:] == ["-f", "/etc/tabula/postgres-roles.sql"]
    server = read_env_file(compose_secrets / "env" / "postgres.env")
    assert server == {
        "POSTGRES_USER": PG_SUPERUSER,
        "POSTGRES_PASSWORD": creds.postgres[PG_SUPERUSER],
    }
    migrate = read_env_file(compose_secrets / "env" / "migrate.env")
    owner = urlsplit(migrate["DATABASE_URL"])
    assert (owner.username, owner.password) == (access.PG_OWNER, creds.postgres[access.PG_OWNER])
    for command in (doc["migrate"]["command"],
                    next(d for d in load_k8s() if d["metadata"]["name"] == "migrate")
                    ["spec"]["template"]["spec"]["containers"][0]["command"]):  # fmt: skip
        assert "migrations.apply(os.environ['DATABASE_URL'])" in command[-1]
        ast.parse(command[-1])
    assert doc["migrate"]["depends_on"]["postgres-init"]["condition"] == (
        "service_completed_successfully"
    )


def test_the_proxy_leads_to_every_gateway(compose_secrets: Path) -> None:
    doc = load_compose()
    caddy = (COMPOSE / "Caddyfile").read_text()
    gateways = {name: env for name, role, env in compose_processes(doc, compose_secrets)
                if role == "gateway"}  # fmt: skip
    upstreams = re.search(r"reverse_proxy ([^{]+)\{", caddy)[1].split()
    assert sorted(upstreams) == sorted(f"{n}:{e['TABULA_GATEWAY_PORT']}"
                                       for n, e in gateways.items())  # fmt: skip
    assert "health_uri /readyz" in caddy
    host = re.search(r"health_headers \{\s*Host (\S+)", caddy)[1]
    proxy = doc["services"]["caddy"]["networks"]["tabula"]["ipv4_address"]
    ipam = doc["networks"]["tabula"]["ipam"]["config"][0]
    assert ipaddress.ip_address(proxy) in ipaddress.ip_network(ipam["subnet"])
    assert ipaddress.ip_address(proxy) not in ipaddress.ip_network(ipam["ip_range"])
    for env in gateways.values():
        door = Door.from_env(env)
        assert host_allowed(host, door.allowed_hosts or frozenset())
        assert proxy in door.trusted_proxies


def test_the_image() -> None:
    dockerfile = (DEPLOY / "Dockerfile").read_text()
    assert "FROM python:3.11-slim" in dockerfile
    # Editable: the gateway finds docs/rules next to the source tree (app.RULES_DIR).
    assert "pip install -e ." in dockerfile
    assert "COPY docs/rules docs/rules" in dockerfile
    for package in ("contracts", "domain", "services"):
        assert f"COPY {package} {package}" in dockerfile


def test_checks_catch_mistakes(
    compose_secrets: Path, k8s_secrets: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each check fails on a file broken the way a person might break it."""
    doc = load_compose()

    def broken(edit: Any) -> list[str]:
        copied = copy.deepcopy(doc)
        edit(copied["services"])
        return compose_problems(copied, compose_secrets, monkeypatch)

    env = doc["services"]["rules"]["environment"]
    misspelled = {("TABULA_METRIC_PORT" if k == "TABULA_METRICS_PORT" else k): v
                  for k, v in env.items()}  # fmt: skip
    assert any(
        "TABULA_METRIC_PORT is read by no code" in p
        for p in broken(lambda s: s["rules"].update(environment=misspelled))
    )
    assert any(
        "TABULA_METRICS_HOST missing" in p
        for p in broken(lambda s: s["archiver"].update(environment={"TABULA_METRICS_PORT": "9100"}))
    )
    assert any(
        "gateway" in p and "TABULA_GATEWAY_ALLOWED_HOSTS" in p
        for p in broken(
            lambda s: s["gateway-2"].update(
                environment={
                    k: v
                    for k, v in s["gateway-2"]["environment"].items()
                    if k != "TABULA_GATEWAY_ALLOWED_HOSTS"
                }
            )
        )
    )
    assert any("replicas" in p for p in broken(lambda s: s["rules"].update(deploy={})))
    assert any(
        "does not wait for migrate" in p
        for p in broken(lambda s: s["projector"].update(depends_on={}))
    )
    assert any("names not every node" in p for p in broken(lambda s: s.pop("nats-3")))
    # A role's env file with another role's credentials, or no DATABASE_URL.
    assert any(
        "not the role's user" in p
        for p in broken(
            lambda s: s["randomness"].update(env_file=["./secrets/env/matchmaking.env"])
        )
    )
    assert any(
        "DATABASE_URL missing" in p
        for p in broken(lambda s: s["archiver"].update(env_file=["./secrets/env/randomness.env"]))
    )

    docs = load_k8s()
    deployment = next(d for d in docs if d.get("kind") == "Deployment"
                      and d["metadata"]["name"] == "gateway")  # fmt: skip
    probe = deployment["spec"]["template"]["spec"]["containers"][0]["readinessProbe"]
    probe["httpGet"]["path"] = "/healthz"
    docs = [d for d in docs if not (d["kind"] == "PodDisruptionBudget"
                                    and d["metadata"]["name"] == "projector")]  # fmt: skip
    problems = k8s_problems(docs, k8s_secrets, monkeypatch)
    assert any("readinessProbe asks /healthz" in p for p in problems)
    assert any("projector: no PodDisruptionBudget" in p for p in problems)

    nats_users = (compose_secrets / "nats-users.conf").read_text()
    assert mapping_problems(
        nats_users.replace(f"partition({subjects.ACT_PARTITIONS},", "partition(8,"), {}
    )
    assert mapping_problems(nats_users, {"x.conf": 'mappings: {"a": "b"}'})
    assert mapping_problems(nats_users, {"README.md": "the 8 partitions of a game's actions"})
