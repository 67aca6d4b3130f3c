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
   "hold": false}               true: leave the namespace's pods as they are until false again
Pods are seen by polling (a list every `--period` seconds), so no watch state can go stale.

Usage: fake_kubelet.py --server URL --ca FILE --token-file FILE [--node NAME] [--period S]
"""

import argparse
import http.client
import json
import ssl
import sys
import time
import urllib.parse

RULE_ANNOTATION = "kubelet.millrace.io/rule"
DEFAULT_RULE = {"pending_ms": 50, "run_ms": 200, "run_ms_per_unit": 0.0,
                "run_ms_env": "MILLRACE_COUNT", "exit_code": 1, "fail": [], "hold": False}


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


class Kubelet:
    def __init__(self, api, node):
        self.api = api
        self.node = node
        self.pods = {}    # uid -> {"bound": t, "running": t}
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
                del self.pods[uid]

    def advance(self, pod, seen):
        meta, spec = pod["metadata"], pod["spec"]
        phase = pod.get("status", {}).get("phase", "Pending")
        now = time.monotonic()
        if meta.get("deletionTimestamp"):
            self.api.call("DELETE", self.pod_path(pod),
                          {"kind": "DeleteOptions", "apiVersion": "v1", "gracePeriodSeconds": 0,
                           "preconditions": {"uid": meta["uid"]}})
            return
        rule = self.rule(meta["namespace"])
        if rule["hold"]:
            seen.clear()
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
        if phase == "Pending" and now - seen["bound"] >= rule["pending_ms"] / 1000.0:
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


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", required=True)
    parser.add_argument("--ca", required=True)
    parser.add_argument("--token-file", required=True)
    parser.add_argument("--node", default="fake-node-0")
    parser.add_argument("--period", type=float, default=0.05)
    args = parser.parse_args()
    with open(args.token_file) as f:
        token = f.read().strip()
    kubelet = Kubelet(Api(args.server, args.ca, token), args.node)
    kubelet.register_node()
    print("fake kubelet: node %s registered" % args.node, flush=True)
    while True:
        try:
            kubelet.step()
        except (OSError, http.client.HTTPException, ValueError) as error:
            print("fake kubelet: %s" % error, file=sys.stderr, flush=True)
            time.sleep(0.5)
        time.sleep(args.period)


if __name__ == "__main__":
    main()
