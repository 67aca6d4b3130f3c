#!/usr/bin/env python3
"""Faults of a worker-pool pod for the RealApiServer checks, with Python's standard library only.

A pool pod's command becomes `pod_fault_shim.py CLAIM_DIR -- WORKER...`: the shim runs the worker
with MILLRACE_LEASE_URL pointed at a local proxy of the run's lease API. Each fault is acted out
once over all pods sharing CLAIM_DIR (claimed by mkdir CLAIM_DIR/FAULT), by a worker process at its
first bundle or its first completion, one fault a process:
  tamper  its first bundle (GET /v1/bundles/SHA256) has its first byte flipped, so its SHA-256 no
          longer matches
  kill    its first completion (POST /v1/leases/ID/complete) is never sent: the worker is killed
          (SIGKILL) and the shim exits 137, as a container whose process was killed mid-item, its
          work lost: the kubelet restarts it, and the worker asks again under the same pod name
          (its lease is abandoned)
  stall   (kill taken) at its first completion the worker is stopped (SIGSTOP: no heartbeats)
          until 1.5 s after its lease expired, then continued and the completion sent: refused
Each fault, once acted out (the stall: once the worker is stopped), writes CLAIM_DIR/FAULT/POD_NAME.
Otherwise the shim only proxies. Its exit code is the worker's. The signals act on the worker's
process (a single process, as `millrace sweep-worker` is).
"""

import http.client
import http.server
import json
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.parse

FORWARDED = ("Authorization", "Content-Type")


class Shim:
    def __init__(self, claim_dir, upstream):
        self.claim_dir = claim_dir
        url = urllib.parse.urlparse(upstream)
        self.upstream = (url.hostname, url.port or 80)
        self.fault = None  # the one this process acts out, once claimed
        self.chances = {"bundle", "completion"}  # the firsts of this process not yet seen
        self.lease_s = 60.0  # a lease's duration, as the last grant said
        self.lock = threading.Lock()
        self.worker = None

    def claim(self, chance, faults):
        """At this process's first `chance` (bundle, completion): the first of `faults` no pod
        has claimed yet, now this one's. None at a later one, once this process has a fault, or
        when all are taken."""
        with self.lock:
            if self.fault is not None or chance not in self.chances:
                return None
            self.chances.discard(chance)
            for fault in faults:
                try:
                    os.mkdir(os.path.join(self.claim_dir, fault))
                except FileExistsError:
                    continue
                self.fault = fault
                return fault
            return None

    def done(self):
        pod = os.environ.get("POD_NAME", "pod")
        with open(os.path.join(self.claim_dir, self.fault, pod), "w") as f:
            f.write("done\n")

    def forward(self, method, path, headers, body):
        connection = http.client.HTTPConnection(*self.upstream, timeout=60)
        try:
            connection.request(method, path, body=body, headers=headers)
            response = connection.getresponse()
            return response.status, response.getheader("Content-Type", ""), response.read()
        finally:
            connection.close()

    def before_request(self, path):
        """Acts out kill or stall at the worker's first completion, before it is sent."""
        if not path.endswith("/complete"):
            return
        fault = self.claim("completion", ("kill", "stall"))
        if fault is None:
            return
        if fault == "kill":
            self.done()
            self.worker.kill()
            os._exit(137)
        self.worker.send_signal(signal.SIGSTOP)
        self.done()
        time.sleep(self.lease_s + 1.5)
        self.worker.send_signal(signal.SIGCONT)

    def after_answer(self, path, status, body):
        """The answer to the worker, the first bundle tampered with under the tamper fault."""
        if path == "/v1/lease" and status == 200:
            lease = json.loads(body or b"{}").get("lease")
            if lease:
                self.lease_s = lease["expires_in_ms"] / 1000.0
        if path.startswith("/v1/bundles/") and status == 200 and body and self.claim("bundle", ("tamper",)):
            self.done()
            return bytes([body[0] ^ 0xFF]) + body[1:]
        return body


def proxy_handler(shim):
    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def relay(self):
            length = int(self.headers.get("Content-Length", "0"))
            body = self.rfile.read(length) if length else None
            headers = {k: self.headers[k] for k in FORWARDED if self.headers.get(k)}
            shim.before_request(self.path)
            try:
                status, content_type, answer = shim.forward(self.command, self.path, headers, body)
            except OSError:
                status, content_type, answer = 502, "application/json", b'{"error": "upstream"}'
            answer = shim.after_answer(self.path, status, answer)
            self.send_response(status)
            if content_type:
                self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)

        do_GET = do_POST = relay

        def log_message(self, *args):
            pass

    return Handler


def main():
    if len(sys.argv) < 4 or sys.argv[2] != "--":
        sys.exit("usage: pod_fault_shim.py CLAIM_DIR -- WORKER...")
    shim = Shim(sys.argv[1], os.environ["MILLRACE_LEASE_URL"])
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), proxy_handler(shim))
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    env = dict(os.environ, MILLRACE_LEASE_URL="http://127.0.0.1:%d" % server.server_address[1])
    print("pod_fault_shim: fault %s" % shim.fault, file=sys.stderr, flush=True)
    # In the shim's process group: the kubelet's signals to the container reach it too.
    shim.worker = subprocess.Popen(sys.argv[3:], env=env)
    code = shim.worker.wait()
    sys.exit(128 - code if code < 0 else code)


if __name__ == "__main__":
    main()
