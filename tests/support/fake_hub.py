"""A loopback stand-in for the Hugging Face Hub: just the endpoints a Space release and
``evaluate.load("<namespace>/<module>")`` use, so both run through their real client code.

It answers, on 127.0.0.1 only, from a thread of the test process:

* ``POST /api/repos/create`` (``HfApi.create_repo``; 409 when the repo exists);
* ``POST /api/validate-yaml`` (card metadata check before a commit);
* ``POST /api/spaces/<ns>/<name>/preupload/<rev>`` (every file is a "regular" upload);
* ``POST /api/spaces/<ns>/<name>/commit/<rev>`` (the NDJSON commit of ``upload_folder``);
* ``GET /api/spaces/<ns>/<name>[/revision/<rev>]`` (repo info with the file list);
* ``HEAD``/``GET /spaces/<ns>/<name>/resolve/<rev>/<path>``: file resolution, as read by
  ``evaluate``'s downloader and by ``huggingface_hub.hf_hub_download``. Only ``main`` and
  the current commit resolve; another revision (``evaluate`` first asks for ``v0.4.6``) is a 404.

Write endpoints need ``Authorization: Bearer <token>``. Every request is logged; a request
nothing here answers is logged in ``unhandled`` (and gets a 404), so a test can require
that the clients asked for nothing else.

``latency`` (seconds, default 0) delays every reply, to stand in for the round trip to a
real Hub; ``timed_requests`` logs every request again as ``(time.time() at arrival, method,
path)``, so a client can tell which requests fell inside a window it timed.
"""

import base64
import os
import hashlib
import json
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Optional
from urllib.parse import unquote, urlsplit

import yaml

_REPO = r"(?P<namespace>[\w.-]+)/(?P<name>[\w.-]+)"
_RESOLVE = re.compile(rf"^/spaces/{_REPO}/resolve/(?P<revision>[^/]+)/(?P<path>.+)$")
_PREUPLOAD = re.compile(rf"^/api/spaces/{_REPO}/preupload/(?P<revision>[^/]+)$")
_COMMIT = re.compile(rf"^/api/spaces/{_REPO}/commit/(?P<revision>[^/]+)$")
_INFO = re.compile(rf"^/api/spaces/{_REPO}(?:/revision/(?P<revision>[^/]+))?$")


class FakeHub:
    """Spaces kept in memory: ``spaces["ns/name"] = {"sdk": ..., "files": {path: bytes}, "sha": ...}``."""

    def __init__(self, token: str, latency: float = 0.0):
        self.token = token
        self.latency = latency  # seconds added before every reply (may be changed while serving)
        self.spaces = {}
        self.requests = []  # (method, path) of every request
        self.timed_requests = []  # (arrival time, method, path); kept apart so clearing `requests` is safe
        self.unhandled = []
        self.lock = threading.Lock()
        hub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):  # keep test output clean
                pass

            def do_HEAD(self):
                hub._handle(self, "HEAD")

            def do_GET(self):
                hub._handle(self, "GET")

            def do_POST(self):
                hub._handle(self, "POST")

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.endpoint = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=10)

    # ------------------------------------------------------------------ plumbing

    def _reply(self, handler, status, body=b"", headers=None, send_body=True):
        if isinstance(body, (dict, list)):
            body = json.dumps(body).encode()
            headers = {"Content-Type": "application/json", **(headers or {})}
        handler.send_response(status)
        for key, value in (headers or {}).items():
            handler.send_header(key, value)
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        if send_body and body:
            handler.wfile.write(body)

    def _error(self, handler, status, code, message, send_body=True):
        self._reply(handler, status, {"error": message}, {"X-Error-Code": code, "X-Error-Message": message}, send_body)

    def _authorised(self, handler):
        return handler.headers.get("Authorization") == f"Bearer {self.token}"

    def _read_body(self, handler):
        length = int(handler.headers.get("Content-Length") or 0)
        return handler.rfile.read(length) if length else b""

    def _handle(self, handler, method):
        path = unquote(urlsplit(handler.path).path)
        with self.lock:
            self.requests.append((method, path))
            self.timed_requests.append((time.time(), method, path))
        body = self._read_body(handler) if method == "POST" else b""
        if self.latency:
            # Outside the lock: concurrent requests wait in parallel, as on a real network.
            time.sleep(self.latency)
        routes = [
            ("POST", re.compile(r"^/api/repos/create$"), self._create_repo),
            ("POST", re.compile(r"^/api/validate-yaml$"), self._validate_yaml),
            ("POST", _PREUPLOAD, self._preupload),
            ("POST", _COMMIT, self._commit),
            ("GET", _INFO, self._info),
            ("GET", _RESOLVE, self._resolve),
            ("HEAD", _RESOLVE, self._resolve),
        ]
        for route_method, pattern, action in routes:
            match = pattern.match(path)
            if match and route_method == method:
                return action(handler, method, match, body)
        with self.lock:
            self.unhandled.append((method, path))
        self._error(handler, 404, "NotFound", f"fake hub: no route for {method} {path}", method != "HEAD")

    # ------------------------------------------------------------------ write API

    def _create_repo(self, handler, method, match, body):
        if not self._authorised(handler):
            return self._error(handler, 401, "Unauthorized", "invalid credentials")
        payload = json.loads(body)
        repo_id = f"{payload.get('organization')}/{payload['name']}"
        url = f"{self.endpoint}/spaces/{repo_id}"
        with self.lock:
            if payload.get("type") != "space":
                return self._error(handler, 400, "BadRequest", f"fake hub only holds spaces, got type {payload.get('type')!r}")
            if repo_id in self.spaces:
                return self._reply(handler, 409, {"error": "You already created this space repo", "url": url})
            self.spaces[repo_id] = {"sdk": payload.get("sdk"), "private": payload.get("private"), "files": {}, "sha": "0" * 40}
        self._reply(handler, 200, {"url": url, "name": repo_id})

    def _validate_yaml(self, handler, method, match, body):
        content = json.loads(body)["content"]
        header = re.match(r"^---\n(.*?)\n---\n", content, flags=re.S)
        try:
            yaml.safe_load(header.group(1) if header else "")
        except yaml.YAMLError as error:
            return self._reply(handler, 400, {"errors": [{"message": str(error)}], "warnings": []})
        self._reply(handler, 200, {"errors": [], "warnings": []})

    def _space_or_404(self, handler, match, send_body=True):
        space = self.spaces.get(f"{match['namespace']}/{match['name']}")
        if space is None:
            self._error(handler, 404, "RepoNotFound", "Repository not found", send_body)
        return space

    def _preupload(self, handler, method, match, body):
        if not self._authorised(handler):
            return self._error(handler, 401, "Unauthorized", "invalid credentials")
        if self._space_or_404(handler, match) is None:
            return
        files = [{"path": item["path"], "uploadMode": "regular", "shouldIgnore": False} for item in json.loads(body)["files"]]
        self._reply(handler, 200, {"files": files, "commitOid": None})

    def _commit(self, handler, method, match, body):
        if not self._authorised(handler):
            return self._error(handler, 401, "Unauthorized", "invalid credentials")
        with self.lock:
            space = self._space_or_404(handler, match)
            if space is None:
                return
            for line in body.splitlines():
                item = json.loads(line)
                if item["key"] == "file":
                    value = item["value"]
                    assert value["encoding"] == "base64", value
                    space["files"][value["path"]] = base64.b64decode(value["content"])
                elif item["key"] in ("deletedFile",):
                    space["files"].pop(item["value"]["path"], None)
                elif item["key"] != "header":
                    return self._error(handler, 400, "BadRequest", f"fake hub: unsupported commit item {item['key']!r}")
            space["sha"] = hashlib.sha1(repr(sorted(space["files"].items())).encode()).hexdigest()
            sha = space["sha"]
        repo_id = f"{match['namespace']}/{match['name']}"
        self._reply(handler, 200, {"commitUrl": f"{self.endpoint}/spaces/{repo_id}/commit/{sha}", "commitOid": sha, "pullRequestUrl": None})

    # ------------------------------------------------------------------ read API

    def _info(self, handler, method, match, body):
        space = self._space_or_404(handler, match)
        if space is None:
            return
        repo_id = f"{match['namespace']}/{match['name']}"
        siblings = [{"rfilename": path} for path in sorted(space["files"])]
        self._reply(handler, 200, {"id": repo_id, "sha": space["sha"], "sdk": space["sdk"], "siblings": siblings, "private": False})

    def _resolve(self, handler, method, match, body):
        send_body = method == "GET"
        space = self._space_or_404(handler, match, send_body)
        if space is None:
            return
        if match["revision"] not in ("main", space["sha"]):
            return self._error(handler, 404, "RevisionNotFound", f"Invalid rev id: {match['revision']}", send_body)
        content = space["files"].get(match["path"])
        if content is None:
            return self._error(handler, 404, "EntryNotFound", "Entry not found", send_body)
        blob_sha = hashlib.sha1(b"blob %d\0" % len(content) + content).hexdigest()
        headers = {"ETag": f'"{blob_sha}"', "X-Repo-Commit": space["sha"], "Content-Type": "text/plain; charset=utf-8"}
        handler.send_response(200)
        for key, value in headers.items():
            handler.send_header(key, value)
        handler.send_header("Content-Length", str(len(content)))
        handler.end_headers()
        if send_body:
            handler.wfile.write(content)


def client_env(cache_root: Path, hub: Optional["FakeHub"] = None, token: Optional[str] = None) -> dict:
    """Environment of a child process that talks to ``hub`` (or, without one, to nothing).

    Every Hugging Face cache lies under ``cache_root``; the user's own Hugging Face settings
    (token, caches, offline flags, endpoint) and proxies are dropped so that only these apply;
    ``loopback_only/sitecustomize.py`` refuses, and logs to
    ``cache_root/refused-connections.log``, any connection off the loopback interface.
    """
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.upper().endswith("_PROXY") and not key.startswith(("HF_", "HUGGINGFACE_")) and key != "TRANSFORMERS_OFFLINE"
    }
    home = cache_root / "hf-home"
    online = "0" if hub is not None else "1"
    env.update(
        HF_HOME=str(home),
        # evaluate 0.4.6 derives these from HF_HOME too; set explicitly so a change of default
        # cannot make a child read a cache outside cache_root.
        HF_EVALUATE_CACHE=str(home / "evaluate"),  # downloaded files (script, helpers), keyed by URL + ETag
        HF_MODULES_CACHE=str(home / "modules"),  # the importable copy of the script and helpers
        HF_METRICS_CACHE=str(home / "metrics"),
        HF_DATASETS_CACHE=str(home / "datasets"),
        HF_HUB_CACHE=str(home / "hub"),
        XDG_CACHE_HOME=str(cache_root / "xdg-cache"),
        HF_HUB_OFFLINE=online,
        HF_EVALUATE_OFFLINE=online,
        HF_DATASETS_OFFLINE="1",
        HF_HUB_DISABLE_TELEMETRY="1",
        HF_UPDATE_DOWNLOAD_COUNTS="0",  # else evaluate HEADs a download counter on S3, off the Hub
        GRADIO_ANALYTICS_ENABLED="False",
        NO_PROXY="127.0.0.1,localhost",
        PYTHONPATH=str(Path(__file__).resolve().parent / "loopback_only"),
        LOOPBACK_ONLY_LOG=str(cache_root / "refused-connections.log"),
    )
    if hub is not None:
        env["HF_ENDPOINT"] = hub.endpoint
    if token is not None:
        env["HF_TOKEN"] = token
    return env
