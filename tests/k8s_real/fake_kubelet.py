#!/usr/bin/env python3
"""A fake kubelet for tests against a real kube-apiserver, with Python's standard library only.

The control plane built for the tests has no kubelet, so nothing would ever run a pod. This one
registers a Node, binds every pending pod to it, moves it Running, then Succeeded or Failed after
the times a rule gives, and finishes the deletion of pods being deleted (as a kubelet confirms a
graceful delete). The Job controller then sets the Jobs' status and conditions for real.

The rule is per namespace, so concurrent tests do not disturb each other: a JSON object in the
namespace's annotation kubelet.millrace.io/rule (a namespace without it gets the defaults):
  {"pending_ms": 50,            bound -> Running
   "run_ms": 200,               Running -> Succeeded/Failed
   "run_ms_per_unit": 0.0,      plus this many ms per unit of a container env var's value
   "run_ms_env": "MILLRACE_COUNT",
   "exit_code": 1,              exit code of a failing pod
   "fail": [{"label": "value", ...}, ...],  a pod whose labels match any entry fails
   "hold": false,               true: leave the namespace's pods as they are until false again
   "run_command": false}        true: run each container's command for real (below)
Pods are seen by polling (a list every `--period` seconds), so no watch state can go stale.

With "run_command", a pod that goes Running starts each container's command + args (with
$(VAR) references expanded as Kubernetes does) as a local process in its own process group,
in a fresh working directory (the container's workingDir when it names one), with the
environment of the pod spec: `value`, and `valueFrom.fieldRef` of metadata.name, .namespace,
.uid, .labels['K'], .annotations['K'], spec.nodeName, spec.serviceAccountName, status.podIP
and status.hostIP (anything else keeps the pod Pending with CreateContainerConfigError, as a
kubelet does), plus HOSTNAME (the pod's name) and the kubelet's own PATH. Output goes to
LOG_DIR/NAMESPACE_POD_CONTAINER.log. The exit codes decide the phase (a signal N reads 128+N):
all 0 is Succeeded, else Failed; under restartPolicy OnFailure (Always) a container that
exits non-zero (at all) is started again and its restartCount raised, the pod staying Running.
A pod being deleted gets SIGTERM to each process group, SIGKILL when its grace period is over
(at most 30 s), and its deletion finished once they are gone. The run_ms and fail settings
do not apply to such pods.

Usage: fake_kubelet.py --server URL --ca FILE --token-file FILE [--node NAME] [--period S]
                       [--log-dir DIR]
"""

import argparse
import http.client
import json
import os
import re
import shutil
import signal
import ssl
import subprocess
import sys
import tempfile
import time
import urllib.parse

RULE_ANNOTATION = "kubelet.millrace.io/rule"
DEFAULT_RULE = {"pending_ms": 50, "run_ms": 200, "run_ms_per_unit": 0.0,
                "run_ms_env": "MILLRACE_COUNT", "exit_code": 1, "fail": [], "hold": False,
                "run_command": False}
MAX_GRACE_S = 30
FIELD_PATH = re.compile(r"^metadata\.(labels|annotations)\['([^']*)'\]$")


class Api:
    """A JSON client of the API server over one kept-alive HTTPS connection."""

    def __init__(self, server, ca, token):
        url = urllib.parse.urlparse(server)
        self.host, self.port = url.hostname, url.port or 443
        self.context = ssl.create_default_context(cafile=ca)
        self.headers = {"Authorization": "Bearer " + token, "Accept": "application/json"}
        self.connection = None

    def call(self, method, path, body=None, content_type="application/json"):
        """Returns (status, parsed body); reconnects once when the connection went away."""
        for attempt in (0, 1):
            if self.connection is None:
                self.connection = http.client.HTTPSConnection(
                    self.host, self.port, context=self.context, timeout=30)
            headers = dict(self.headers)
            data = None
            if body is not None:
                data = json.dumps(body).encode()
                headers["Content-Type"] = content_type
            try:
                self.connection.request(method, path, body=data, headers=headers)
                response = self.connection.getresponse()
                text = response.read()
            except (OSError, http.client.HTTPException):
                self.connection.close()
                self.connection = None
                if attempt:
                    raise
                continue
            return response.status, json.loads(text) if text else {}
        raise AssertionError("unreachable")


def now_rfc3339():
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


class ConfigError(Exception):
    """A container this kubelet cannot start as specified (a kubelet's CreateContainerConfigError)."""


def field_value(pod, path):
    """The value of an env var's valueFrom.fieldRef.fieldPath, as a kubelet gives it."""
    meta, spec = pod["metadata"], pod["spec"]
    fields = {"metadata.name": meta.get("name"), "metadata.namespace": meta.get("namespace"),
              "metadata.uid": meta.get("uid"), "spec.nodeName": spec.get("nodeName"),
              "spec.serviceAccountName": spec.get("serviceAccountName"),
              "status.podIP": "127.0.0.1", "status.hostIP": "127.0.0.1"}
    if path in fields:
        return fields[path] or ""
    keyed = FIELD_PATH.match(path)
    if keyed:
        return meta.get(keyed.group(1), {}).get(keyed.group(2), "")
    raise ConfigError("fieldRef %s is not supported by the fake kubelet" % path)


def expand(text, env):
    """Kubernetes' $(VAR) expansion: a defined VAR is replaced, $$(VAR) is kept as $(VAR)."""
    def one(match):
        if match.group(0).startswith("$$"):
            return match.group(0)[1:]
        return env.get(match.group(1), match.group(0))
    return re.sub(r"\$?\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)", one, text)


def container_env(pod, container):
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOSTNAME": pod["metadata"]["name"]}
    for var in container.get("env", []):
        name = var["name"]
        if "valueFrom" not in var:
            env[name] = expand(var.get("value", ""), env)
        elif "fieldRef" in var["valueFrom"]:
            env[name] = field_value(pod, var["valueFrom"]["fieldRef"].get("fieldPath", ""))
        else:
            raise ConfigError("env %s: valueFrom %s is not supported by the fake kubelet"
                              % (name, ", ".join(var["valueFrom"])))
    return env


class ContainerProcess:
    """One container's command, run as a local process in its own process group."""

    def __init__(self, pod, container, workdir, log_dir):
        self.name = container["name"]
        if not container.get("command"):
            raise ConfigError("container %s has no command (the fake kubelet has no image "
                              "entrypoint)" % self.name)
        self.env = container_env(pod, container)
        self.argv = [expand(a, self.env) for a in container["command"] + container.get("args", [])]
        self.cwd = container.get("workingDir") or workdir
        meta = pod["metadata"]
        self.log_path = os.path.join(log_dir, "%s_%s_%s.log" % (meta["namespace"], meta["name"],
                                                              self.name))
        self.restarts = 0
        self.exit_code = None
        self.process = None
        self.started_at = None

    def start(self):
        self.exit_code = None
        self.started_at = now_rfc3339()
        with open(self.log_path, "ab") as log:
            try:
                self.process = subprocess.Popen(self.argv, env=self.env, cwd=self.cwd,
                                                stdin=subprocess.DEVNULL, stdout=log,
                                                stderr=subprocess.STDOUT, start_new_session=True)
            except OSError as error:  # what a runtime reports as a failed start
                log.write(("fake kubelet: cannot start %s: %s\n" % (self.argv, error)).encode())
                self.process = None
                self.exit_code = 127

    def poll(self):
        """The exit code once the process has ended (a signal N reads 128+N), else None. What
        the process left running in its group goes with it, as a container's processes go
        when its first one exits."""
        if self.exit_code is None and self.process is not None:
            code = self.process.poll()
            if code is not None:
                self.exit_code = 128 - code if code < 0 else code
                try:
                    os.killpg(self.process.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        return self.exit_code

    def signal(self, number):
        if self.process is not None and self.exit_code is None:
            try:
                os.killpg(self.process.pid, number)
            except ProcessLookupError:
                pass

    def state(self):
        if self.exit_code is None:
            return {"running": {"startedAt": self.started_at}}
        return {"terminated": {"exitCode": self.exit_code,
                               "reason": "Completed" if self.exit_code == 0 else "Error",
                               "startedAt": self.started_at, "finishedAt": now_rfc3339()}}


class PodProcesses:
    """The processes of a pod's containers, with the pod's working directory."""

    def __init__(self, pod, log_dir):
        self.restart_policy = pod["spec"].get("restartPolicy", "Always")
        self.workdir = tempfile.mkdtemp(prefix="fake-kubelet-%s-" % pod["metadata"]["name"])
        try:
            self.containers = [ContainerProcess(pod, c, self.workdir, log_dir)
                               for c in pod["spec"].get("containers", [])]
        except ConfigError:
            shutil.rmtree(self.workdir, ignore_errors=True)
            raise
        for container in self.containers:
            container.start()
        self.kill_at = None

    def restarted(self):
        """Starts again each container the restart policy restarts; true if any was."""
        again = False
        for container in self.containers:
            code = container.poll()
            if code is None:
                continue
            if self.restart_policy == "Always" or (self.restart_policy == "OnFailure" and code):
                container.restarts += 1
                container.start()
                again = True
        return again

    def exit_codes(self):
        """Every container's exit code once all have ended for good, else None."""
        codes = [c.poll() for c in self.containers]
        return None if None in codes else codes

    def terminate(self, grace_s):
        """SIGTERM now, SIGKILL once the grace period is over; true when all are gone."""
        now = time.monotonic()
        if self.kill_at is None:
            self.kill_at = now + min(grace_s, MAX_GRACE_S)
            for container in self.containers:
                container.signal(signal.SIGTERM)
        elif now >= self.kill_at:
            for container in self.containers:
                container.signal(signal.SIGKILL)
        if self.exit_codes() is None:
            return False
        shutil.rmtree(self.workdir, ignore_errors=True)
        return True

    def kill(self):
        for container in self.containers:
            container.signal(signal.SIGKILL)
            if container.process is not None:
                container.process.wait()
                container.poll()
        shutil.rmtree(self.workdir, ignore_errors=True)

    def statuses(self):
        return [{"name": c.name, "ready": c.exit_code is None, "restartCount": c.restarts,
                 "image": "fake", "imageID": "fake", "state": c.state()}
                for c in self.containers]


class Kubelet:
    def __init__(self, api, node, log_dir):
        self.api = api
        self.node = node
        self.log_dir = log_dir
        self.pods = {}    # uid -> {"bound": t, "running": t, "processes": PodProcesses}
        self.rules = {}   # namespace -> (read at, rule)

    def register_node(self):
        ready = {"type": "Ready", "status": "True", "reason": "KubeletReady",
                 "message": "fake kubelet", "lastHeartbeatTime": now_rfc3339(),
                 "lastTransitionTime": now_rfc3339()}
        node = {"apiVersion": "v1", "kind": "Node",
                "metadata": {"name": self.node, "labels": {"kubernetes.io/hostname": self.node}},
                "status": {"conditions": [ready],
                           "capacity": {"cpu": "64", "memory": "256Gi", "pods": "1000"},
                           "allocatable": {"cpu": "64", "memory": "256Gi", "pods": "1000"},
                           "nodeInfo": {"kubeletVersion": "v1.20.2-fake"}}}
        status, body = self.api.call("POST", "/api/v1/nodes", node)
        if status not in (201, 409):
            raise RuntimeError("registering node %s: HTTP %d %s" % (self.node, status, body))

    def rule(self, namespace):
        read_at, rule = self.rules.get(namespace, (0.0, None))
        if rule is None or time.monotonic() - read_at > 1.0:
            status, body = self.api.call("GET", "/api/v1/namespaces/" + namespace)
            rule = dict(DEFAULT_RULE)
            if status == 200:
                text = body.get("metadata", {}).get("annotations", {}).get(RULE_ANNOTATION)
                if text:
                    rule.update(json.loads(text))
            self.rules[namespace] = (time.monotonic(), rule)
        return rule

    @staticmethod
    def fails(rule, pod):
        labels = pod["metadata"].get("labels", {})
        return any(all(labels.get(k) == v for k, v in entry.items()) for entry in rule["fail"])

    @staticmethod
    def run_ms(rule, pod):
        extra = 0.0
        if rule["run_ms_per_unit"]:
            for container in pod["spec"].get("containers", []):
                for env in container.get("env", []):
                    if env.get("name") == rule["run_ms_env"]:
                        extra = float(env.get("value", "0")) * rule["run_ms_per_unit"]
        return rule["run_ms"] + extra

    def pod_path(self, pod):
        meta = pod["metadata"]
        return "/api/v1/namespaces/%s/pods/%s" % (meta["namespace"], meta["name"])

    @staticmethod
    def conditions(pod, ready, at):
        """The pod's conditions with Ready set as given: a merge patch replaces the whole list, and
        a real kubelet keeps the PodScheduled condition the binding set."""
        kept = [c for c in pod.get("status", {}).get("conditions", []) if c.get("type") != "Ready"]
        return kept + [{"type": "Ready", "status": ready, "lastTransitionTime": at}]

    def patch_status(self, pod, status):
        self.api.call("PATCH", self.pod_path(pod) + "/status", {"status": status},
                      "application/merge-patch+json")

    def step(self):
        selector = urllib.parse.quote("status.phase!=Succeeded,status.phase!=Failed")
        status, body = self.api.call("GET", "/api/v1/pods?fieldSelector=" + selector)
        if status != 200:
            return
        live = set()
        for pod in body.get("items", []):
            uid = pod["metadata"]["uid"]
            live.add(uid)
            self.advance(pod, self.pods.setdefault(uid, {}))
        for uid in list(self.pods):
            if uid not in live:
                self.forget(uid)

    def forget(self, uid):
        """A pod gone from the API (or ended): its processes, if still there, go with it."""
        processes = self.pods.pop(uid, {}).get("processes")
        if processes is not None:
            processes.kill()

    def stop(self):
        for uid in list(self.pods):
            self.forget(uid)

    def advance(self, pod, seen):
        meta, spec = pod["metadata"], pod["spec"]
        phase = pod.get("status", {}).get("phase", "Pending")
        now = time.monotonic()
        if meta.get("deletionTimestamp"):
            processes = seen.get("processes")
            if processes is not None and not processes.terminate(meta.get("deletionGracePeriodSeconds", 30)):
                return
            self.api.call("DELETE", self.pod_path(pod),
                          {"kind": "DeleteOptions", "apiVersion": "v1", "gracePeriodSeconds": 0,
                           "preconditions": {"uid": meta["uid"]}})
            return
        rule = self.rule(meta["namespace"])
        if rule["hold"]:
            seen.pop("bound", None)
            seen.pop("running", None)
            return
        if not spec.get("nodeName"):
            binding = {"apiVersion": "v1", "kind": "Binding",
                       "metadata": {"name": meta["name"], "namespace": meta["namespace"]},
                       "target": {"apiVersion": "v1", "kind": "Node", "name": self.node}}
            status, _ = self.api.call("POST", self.pod_path(pod) + "/binding", binding)
            if status == 201:
                seen["bound"] = now
            return
        seen.setdefault("bound", now)
        names = [c["name"] for c in spec.get("containers", [])]
        if rule["run_command"]:
            self.run_commands(pod, phase, seen, now, rule)
        elif phase == "Pending" and now - seen["bound"] >= rule["pending_ms"] / 1000.0:
            started = now_rfc3339()
            self.patch_status(pod, {
                "phase": "Running", "startTime": started, "hostIP": "127.0.0.1",
                "podIP": "127.0.0.1",
                "conditions": self.conditions(pod, "True", started),
                "containerStatuses": [{"name": n, "ready": True, "restartCount": 0,
                                       "image": "fake", "imageID": "fake",
                                       "state": {"running": {"startedAt": started}}}
                                      for n in names]})
            seen["running"] = now
        elif phase == "Running":
            seen.setdefault("running", now)
            if now - seen["running"] < self.run_ms(rule, pod) / 1000.0:
                return
            failed = self.fails(rule, pod)
            code = rule["exit_code"] if failed else 0
            ended = now_rfc3339()
            self.patch_status(pod, {
                "phase": "Failed" if failed else "Succeeded",
                "conditions": self.conditions(pod, "False", ended),
                "containerStatuses": [{"name": n, "ready": False, "restartCount": 0,
                                       "image": "fake", "imageID": "fake",
                                       "state": {"terminated": {
                                           "exitCode": code,
                                           "reason": "Error" if failed else "Completed",
                                           "startedAt": ended, "finishedAt": ended}}}
                                      for n in names]})


    def run_commands(self, pod, phase, seen, now, rule):
        """The phases of a pod whose containers run as local processes (rule run_command)."""
        processes = seen.get("processes")
        if processes is None:
            if phase != "Pending" or now - seen["bound"] < rule["pending_ms"] / 1000.0:
                return
            if "config_error" in seen:
                return
            try:
                processes = PodProcesses(pod, self.log_dir)
            except ConfigError as error:
                seen["config_error"] = str(error)
                self.patch_status(pod, {"containerStatuses": [
                    {"name": c["name"], "ready": False, "restartCount": 0, "image": "fake",
                     "imageID": "", "state": {"waiting": {"reason": "CreateContainerConfigError",
                                                          "message": str(error)}}}
                    for c in pod["spec"].get("containers", [])]})
                return
            seen["processes"] = processes
            started = now_rfc3339()
            self.patch_status(pod, {
                "phase": "Running", "startTime": started, "hostIP": "127.0.0.1",
                "podIP": "127.0.0.1", "conditions": self.conditions(pod, "True", started),
                "containerStatuses": processes.statuses()})
            return
        if processes.restarted():
            self.patch_status(pod, {"containerStatuses": processes.statuses()})
            return
        codes = processes.exit_codes()
        if codes is None:
            return
        failed = any(codes)
        self.patch_status(pod, {
            "phase": "Failed" if failed else "Succeeded",
            "conditions": self.conditions(pod, "False", now_rfc3339()),
            "containerStatuses": processes.statuses()})
        processes.kill()  # the working directory (the processes have ended)
        del seen["processes"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", required=True)
    parser.add_argument("--ca", required=True)
    parser.add_argument("--token-file", required=True)
    parser.add_argument("--node", default="fake-node-0")
    parser.add_argument("--period", type=float, default=0.05)
    parser.add_argument("--log-dir", default=tempfile.gettempdir(),
                        help="where the output of the containers run for real goes")
    args = parser.parse_args()
    os.makedirs(args.log_dir, exist_ok=True)
    with open(args.token_file) as f:
        token = f.read().strip()
    kubelet = Kubelet(Api(args.server, args.ca, token), args.node, args.log_dir)
    kubelet.register_node()
    print("fake kubelet: node %s registered" % args.node, flush=True)
    signal.signal(signal.SIGTERM, lambda number, frame: sys.exit(0))
    try:
        while True:
            try:
                kubelet.step()
            except (OSError, http.client.HTTPException, ValueError) as error:
                print("fake kubelet: %s" % error, file=sys.stderr, flush=True)
                time.sleep(0.5)
            time.sleep(args.period)
    finally:
        kubelet.stop()  # no pod's process outlives the node


if __name__ == "__main__":
    main()
