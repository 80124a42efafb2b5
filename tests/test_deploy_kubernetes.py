"""deploy/kubernetes: every manifest valid against the Kubernetes schemas, the overlays
rendered by kustomize, and what the objects promise checked on the rendered output.

Validation is offline: kubernetes-validate bundles the OpenAPI schemas (strict: unknown
fields are errors), checked here for the oldest and the newest Kubernetes the manifests
target. Rendering needs ``kubectl`` (its built-in kustomize, v5); without it the overlay
tests are skipped with the reason and only the renderer-free checks run (every file valid,
every file a kustomization names present).
"""

from __future__ import annotations

import shutil
import subprocess
from functools import cache
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml

from corpus_mcp.config import load_manifest, load_settings
from corpus_mcp.server.app import HEALTH_PATH, METRICS_PATH, READY_PATH, allowed_hosts
from corpus_mcp.server.http import header_allowed

KUBERNETES = Path(__file__).resolve().parents[1] / "deploy" / "kubernetes"
OVERLAYS = sorted(path.parent.name for path in KUBERNETES.glob("overlays/*/kustomization.yaml"))
VERSIONS = ("1.27.0", kubernetes_validate.latest_version())
"""The oldest Kubernetes the manifests target and the newest the bundled schemas know."""
APP_UID = 10001
SERVER_PORT = 8000
PROBE_HOST = f"127.0.0.1:{SERVER_PORT}"
KUBECTL = shutil.which("kubectl")
needs_kubectl = pytest.mark.skipif(
    KUBECTL is None, reason="kubectl (with its kustomize) is not installed: overlays not rendered"
)

Doc = dict[str, Any]


def validate(doc: Doc) -> None:
    """``doc`` against the strict schemas of every version in :data:`VERSIONS`."""
    for version in VERSIONS:
        kubernetes_validate.validate(doc, version, strict=True)


def manifest_files() -> list[Path]:
    return sorted(path for path in KUBERNETES.rglob("*.yaml") if path.name != "kustomization.yaml")


@cache
def rendered(overlay: str) -> tuple[Doc, ...]:
    assert KUBECTL is not None
    output = subprocess.run(
        [KUBECTL, "kustomize", str(KUBERNETES / "overlays" / overlay)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return tuple(yaml.safe_load_all(output))


def one(docs: tuple[Doc, ...], kind: str) -> Doc:
    [found] = [doc for doc in docs if doc["kind"] == kind]
    return found


def pod_spec(docs: tuple[Doc, ...]) -> Doc:
    spec: Doc = one(docs, "Deployment")["spec"]["template"]["spec"]
    return spec


def container(docs: tuple[Doc, ...]) -> Doc:
    server: Doc
    [server] = pod_spec(docs)["containers"]
    return server


# -- without a renderer ------------------------------------------------------------------


def test_there_is_a_base_and_the_two_overlays() -> None:
    assert (KUBERNETES / "base" / "kustomization.yaml").is_file()
    assert OVERLAYS == ["cluster", "single-node"]


@pytest.mark.parametrize("path", manifest_files(), ids=lambda path: path.name)
def test_every_manifest_file_is_valid_kubernetes(path: Path) -> None:
    docs = list(yaml.safe_load_all(path.read_text()))
    assert docs
    for doc in docs:
        validate(doc)


@pytest.mark.parametrize(
    "kustomization",
    sorted(KUBERNETES.rglob("kustomization.yaml")),
    ids=lambda path: str(path.parent.relative_to(KUBERNETES)),
)
def test_every_file_a_kustomization_names_exists(kustomization: Path) -> None:
    spec = yaml.safe_load(kustomization.read_text())
    here = kustomization.parent
    for resource in spec.get("resources", []):
        target = here / resource
        assert target.is_file() or (target / "kustomization.yaml").is_file(), resource
    for generator in spec.get("configMapGenerator", []):
        for file in generator.get("files", []):
            assert (here / file).is_file(), file
    for patch in spec.get("patches", []):
        assert "patch" in patch or (here / patch["path"]).is_file(), patch


def test_strict_validation_refuses_a_misspelt_field() -> None:
    """The check above is not vacuous: a typo in a security field is an error."""
    deployment = yaml.safe_load((KUBERNETES / "base" / "deployment.yaml").read_text())
    deployment["spec"]["template"]["spec"]["containers"][0]["securityContext"][
        "readOnlyRootFileSystem"
    ] = True
    with pytest.raises(kubernetes_validate.ValidationError, match="readOnlyRootFileSystem"):
        validate(deployment)


def test_the_base_corpus_manifest_is_one_the_server_accepts(tmp_path: Path) -> None:
    manifest = load_manifest(KUBERNETES / "base" / "corpus.toml", tmp_path, check_files=False)
    assert manifest.enabled


# -- rendered ----------------------------------------------------------------------------


@needs_kubectl
@pytest.mark.parametrize("overlay", OVERLAYS)
def test_overlays_render_to_valid_objects_in_one_namespace(overlay: str) -> None:
    docs = rendered(overlay)
    for doc in docs:
        validate(doc)
    kinds = {doc["kind"] for doc in docs}
    assert kinds >= {
        "Namespace",
        "ConfigMap",
        "Service",
        "Deployment",
        "HorizontalPodAutoscaler",
        "PodDisruptionBudget",
        "PersistentVolumeClaim",
    }
    namespace = one(docs, "Namespace")["metadata"]["name"]
    cluster_scoped = {"Namespace", "PersistentVolume"}
    for doc in docs:
        if doc["kind"] not in cluster_scoped:
            assert doc["metadata"]["namespace"] == namespace, doc["metadata"]["name"]
    assert one(docs, "Namespace")["metadata"]["labels"]["pod-security.kubernetes.io/enforce"] == (
        "restricted"
    )


@needs_kubectl
@pytest.mark.parametrize("overlay", OVERLAYS)
def test_the_pods_are_hardened_like_the_compose_service(overlay: str) -> None:
    docs = rendered(overlay)
    pod, server = pod_spec(docs), container(docs)
    assert pod["securityContext"] == {
        "runAsNonRoot": True,
        "runAsUser": APP_UID,
        "runAsGroup": APP_UID,
        "seccompProfile": {"type": "RuntimeDefault"},
    }
    assert pod["automountServiceAccountToken"] is False
    assert pod["enableServiceLinks"] is False
    assert server["securityContext"] == {
        "allowPrivilegeEscalation": False,
        "readOnlyRootFilesystem": True,
        "privileged": False,
        "runAsNonRoot": True,
        "capabilities": {"drop": ["ALL"]},
    }
    volumes = {volume["name"]: volume for volume in pod["volumes"]}
    assert all("hostPath" not in volume for volume in volumes.values())  # restricted PSS
    mounts = {mount["mountPath"]: mount for mount in server["volumeMounts"]}
    assert mounts["/corpus"]["readOnly"] is True
    assert mounts["/config"]["readOnly"] is True
    assert volumes[mounts["/corpus"]["name"]]["persistentVolumeClaim"]["readOnly"] is True
    assert "emptyDir" in volumes[mounts["/tmp"]["name"]]


@needs_kubectl
@pytest.mark.parametrize("overlay", OVERLAYS)
def test_probes_reach_the_servers_health_and_readiness_with_an_accepted_host(
    overlay: str,
) -> None:
    server = container(rendered(overlay))
    [port] = server["ports"]
    assert port == {"name": "http", "containerPort": SERVER_PORT, "protocol": "TCP"}
    probes = {name: server[name]["httpGet"] for name in ("startupProbe", "livenessProbe")}
    probes["readinessProbe"] = server["readinessProbe"]["httpGet"]
    assert probes["readinessProbe"]["path"] == READY_PATH
    assert probes["livenessProbe"]["path"] == probes["startupProbe"]["path"] == HEALTH_PATH
    settings = load_settings({})
    for probe in probes.values():
        assert probe["port"] == "http"
        [host] = probe["httpHeaders"]
        assert host == {"name": "Host", "value": PROBE_HOST}
        assert header_allowed(host["value"], allowed_hosts(settings, SERVER_PORT))


@needs_kubectl
@pytest.mark.parametrize("overlay", OVERLAYS)
def test_the_service_names_are_accepted_hosts(overlay: str) -> None:
    """MCP_ALLOWED_HOSTS, as the kubelet expands it, parses and admits the Service's names."""
    docs = rendered(overlay)
    namespace = one(docs, "Namespace")["metadata"]["name"]
    service = one(docs, "Service")["metadata"]["name"]
    env = {item["name"]: item for item in container(docs)["env"]}
    assert env["POD_NAMESPACE"]["valueFrom"]["fieldRef"]["fieldPath"] == "metadata.namespace"
    assert env["POD_IP"]["valueFrom"]["fieldRef"]["fieldPath"] == "status.podIP"
    pod_ip = "10.42.0.17"
    expanded = (
        env["MCP_ALLOWED_HOSTS"]["value"]
        .replace("$(POD_NAMESPACE)", namespace)
        .replace("$(POD_IP)", pod_ip)
    )
    settings = load_settings({"MCP_ALLOWED_HOSTS": expanded})
    accepted = allowed_hosts(settings, SERVER_PORT)
    for name in (service, f"{service}.{namespace}.svc", f"{service}.{namespace}.svc.cluster.local"):
        assert header_allowed(f"{name}:{SERVER_PORT}", accepted), name
    # A Prometheus scraping the pod by its address sends that as the Host.
    assert header_allowed(f"{pod_ip}:{SERVER_PORT}", accepted)
    annotations = one(docs, "Deployment")["spec"]["template"]["metadata"]["annotations"]
    assert annotations["prometheus.io/path"] == METRICS_PATH
    assert annotations["prometheus.io/port"] == str(SERVER_PORT)


@needs_kubectl
@pytest.mark.parametrize("overlay", OVERLAYS)
def test_the_objects_point_at_each_other(overlay: str) -> None:
    docs = rendered(overlay)
    deployment, pod, server = one(docs, "Deployment"), pod_spec(docs), container(docs)
    labels = deployment["spec"]["template"]["metadata"]["labels"]
    assert deployment["spec"]["selector"]["matchLabels"].items() <= labels.items()
    service = one(docs, "Service")["spec"]
    assert service["selector"].items() <= labels.items()
    assert [port["targetPort"] for port in service["ports"]] == ["http"]
    budget = one(docs, "PodDisruptionBudget")["spec"]
    assert budget["selector"]["matchLabels"].items() <= labels.items()
    autoscaler = one(docs, "HorizontalPodAutoscaler")["spec"]
    assert autoscaler["scaleTargetRef"] == {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "name": deployment["metadata"]["name"],
    }
    [metric] = autoscaler["metrics"]
    assert metric["resource"]["name"] == "cpu"
    assert 1 < autoscaler["minReplicas"] < autoscaler["maxReplicas"]
    # CPU utilisation is relative to the request: there must be one, and limits above it.
    resources = server["resources"]
    assert set(resources["requests"]) == set(resources["limits"]) == {"cpu", "memory"}
    volumes = {volume["name"]: volume for volume in pod["volumes"]}
    config_map = one(docs, "ConfigMap")["metadata"]["name"]
    assert volumes["config"]["configMap"]["name"] == config_map
    claims = {
        doc["metadata"]["name"]: doc for doc in docs if doc["kind"] == "PersistentVolumeClaim"
    }
    corpus = claims[volumes["corpus"]["persistentVolumeClaim"]["claimName"]]
    assert corpus["spec"]["accessModes"] == ["ReadOnlyMany"]
    # The section indexes: a volume of their own, written by every replica.
    indexes = claims[volumes["indexes"]["persistentVolumeClaim"]["claimName"]]
    assert indexes["spec"]["accessModes"] == ["ReadWriteMany"]
    [mount] = [m for m in server["volumeMounts"] if m["name"] == "indexes"]
    assert mount["mountPath"] == "/indexes" and not mount.get("readOnly")


@needs_kubectl
@pytest.mark.parametrize("overlay", OVERLAYS)
def test_the_configmap_holds_a_manifest_the_server_accepts(overlay: str, tmp_path: Path) -> None:
    data = one(rendered(overlay), "ConfigMap")["data"]
    (tmp_path / "corpus.toml").write_text(data["corpus.toml"])
    manifest = load_manifest(tmp_path / "corpus.toml", tmp_path, check_files=False)
    assert len(manifest.enabled) >= 1


@needs_kubectl
def test_single_node_reaches_a_host_folder_through_a_volume_bound_to_the_claim() -> None:
    docs = rendered("single-node")
    volumes = {d["metadata"]["name"]: d for d in docs if d["kind"] == "PersistentVolume"}
    claims = {d["metadata"]["name"]: d for d in docs if d["kind"] == "PersistentVolumeClaim"}
    assert set(volumes) == set(claims) == {"corpus-mcp-corpus", "corpus-mcp-indexes"}
    for name, volume in volumes.items():  # the corpus's folder, the indexes' folder
        claim = claims[name]
        assert volume["spec"]["hostPath"]["type"] == "Directory"
        assert volume["spec"]["claimRef"] == {
            "namespace": claim["metadata"]["namespace"],
            "name": claim["metadata"]["name"],
        }
        assert claim["spec"]["volumeName"] == volume["metadata"]["name"]
        assert volume["spec"]["accessModes"] == claim["spec"]["accessModes"]
        assert volume["spec"]["storageClassName"] == claim["spec"]["storageClassName"] == ""
