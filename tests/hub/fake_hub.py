"""A local stand-in for the Hugging Face Hub, for vramsheet's Hub tests.

It answers what huggingface_hub asks of huggingface.co, as far as vramsheet
uses it:
- GET /api/models/ORG/NAME/revision/REV -> {"sha": COMMIT, "siblings":
  [{"rfilename": ...}]} (HfApi.model_info); an unknown repository answers 401
  with X-Error-Code: RepoNotFound (the Hub does so without a token), an unknown
  revision 404 RevisionNotFound, a gated repository without the right token
  401 GatedRepo;
- GET /ORG/NAME/resolve/REV/FILE (hf_hub_url): small files whole with an ETag
  and X-Repo-Commit; large ("LFS") files as a 302 to a second server (the CDN,
  another port) with X-Linked-Etag (the sha256) and X-Linked-Size, where Range
  requests are answered 206 with Content-Range.
Files are served from disk (the weights are sparse files: header bytes, then a
hole). Every body byte sent is counted, per server; the CDN records any
Authorization header it receives (a token must never reach it).

Modes (FakeHub.mode): "ok"; "ignore_range" (the CDN answers 200 and the
whole file); "slow" (each CDN answer waits `delay` seconds first); "stall"
(the CDN sends its headers, then nothing for `delay` seconds); "broken" (the
API answers 500 with a page); "plain" (statuses without the Hub's X-Error-Code
and X-Error-Message).
"""
import hashlib
import http.server
import json
import os
import threading
import time
import urllib.parse

LFS_MIN = 1 << 20  # files this large go through the CDN, as LFS files do


class Repo:
    def __init__(self, repo_id, commit, folder, refs=None, gated_token=None, gate="all"):
        self.id = repo_id
        self.commit = commit
        self.folder = folder  # the files, by their names in the repository
        self.refs = refs or {"main": commit}
        self.gated_token = gated_token  # the token that opens it, or None
        self.gate = gate  # "all"; "lfs": the API and small files answer, large ones are gated

    def names(self):
        out = []
        for root, _, files in os.walk(self.folder):
            for f in files:
                out.append(os.path.relpath(os.path.join(root, f), self.folder))
        return sorted(out)


class Counter:
    def __init__(self):
        self.lock = threading.Lock()
        self.bytes = 0
        self.requests = 0
        self.auth_seen = []
        self.ranges = []

    def add(self, n):
        with self.lock:
            self.bytes += n


def _lfs_sha(path):
    """Stands for the LFS sha256 (hashing 163 sparse shards whole would take
    minutes): the digest of the file's first 64 KiB and its size."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        h.update(f.read(1 << 16))
    h.update(str(os.path.getsize(path)).encode())
    return h.hexdigest()


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # headers and body in one write, sent at once: unbuffered writes would
    # meet the client's delayed ACK (40 ms a request on Linux loopback)
    wbufsize = 1 << 16
    disable_nagle_algorithm = True

    def log_message(self, fmt, *args):  # quiet
        pass

    def _send(self, code, body=b"", headers=None):
        self.send_response(code)
        for k, v in (headers or {}).items():
            if self.server.hub.mode == "plain" and k.startswith("X-Error"):
                continue  # a stand-in that answers with statuses only
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if body:
            self.wfile.write(body)
            self.counter.add(len(body))


class _HubHandler(_Handler):
    def do_GET(self):
        hub = self.server.hub
        self.counter = hub.hub_count
        with self.counter.lock:
            self.counter.requests += 1
        if self.headers.get("Authorization"):
            with self.counter.lock:
                self.counter.auth_seen.append(self.headers["Authorization"])
        path = urllib.parse.unquote(urllib.parse.urlsplit(self.path).path)
        if hub.mode == "broken":
            return self._send(500, b"<html>Internal Server Error</html>")
        parts = path.strip("/").split("/")
        if len(parts) >= 6 and parts[0] == "api" and parts[1] == "models" and \
                parts[4] == "revision":
            return self._api("/".join(parts[2:4]), "/".join(parts[5:]))
        if len(parts) >= 5 and parts[2] == "resolve":
            return self._resolve("/".join(parts[0:2]), parts[3], "/".join(parts[4:]))
        return self._send(404, b"no route")

    def _repo(self, repo_id, large=False):
        hub = self.server.hub
        repo = hub.repos.get(repo_id)
        if not repo:
            self._send(401, b'{"error":"Repository Not Found"}',
                       {"X-Error-Code": "RepoNotFound",
                        "X-Error-Message": "Repository not found"})
            return None
        if repo.gated_token and (repo.gate == "all" or large):
            auth = self.headers.get("Authorization", "")
            if auth != "Bearer " + repo.gated_token:
                self._send(401, b'{"error":"Access to this model is restricted: ' +
                           b'you must be authenticated and accept its conditions."}',
                           {"X-Error-Code": "GatedRepo",
                            "X-Error-Message": "Access to model %s is restricted." % repo_id})
                return None
        return repo

    def _commit(self, repo, rev):
        if rev in repo.refs:
            return repo.refs[rev]
        if rev == repo.commit:
            return rev
        self._send(404, b'{"error":"Invalid rev id"}',
                   {"X-Error-Code": "RevisionNotFound", "X-Error-Message": "Invalid rev id"})
        return None

    def _api(self, repo_id, rev):
        repo = self._repo(repo_id)
        if not repo:
            return
        commit = self._commit(repo, rev)
        if not commit:
            return
        body = json.dumps({"id": repo.id, "sha": commit,
                           "siblings": [{"rfilename": n} for n in repo.names()]}).encode()
        self._send(200, body, {"Content-Type": "application/json"})

    def _resolve(self, repo_id, rev, name):
        hub = self.server.hub
        repo = hub.repos.get(repo_id)
        path = os.path.join(repo.folder, name) if repo else ""
        repo = self._repo(repo_id, large=os.path.isfile(path) and
                          os.path.getsize(path) >= LFS_MIN)
        if not repo:
            return
        commit = self._commit(repo, rev)
        if not commit:
            return
        path = os.path.join(repo.folder, name)
        if not os.path.isfile(path):
            return self._send(404, b'{"error":"Entry not found"}',
                              {"X-Error-Code": "EntryNotFound",
                               "X-Error-Message": "Entry not found", "X-Repo-Commit": commit})
        size = os.path.getsize(path)
        if size >= LFS_MIN:
            sha = hub.sha_of(path)
            loc = "http://127.0.0.1:%d/cdn/%s/%s?sig=x" % (
                hub.cdn_port, urllib.parse.quote(repo_id), urllib.parse.quote(name))
            return self._send(302, b"", {"Location": loc, "X-Linked-Etag": '"%s"' % sha,
                                         "X-Linked-Size": str(size), "X-Repo-Commit": commit,
                                         "ETag": 'W/"hub-%s"' % sha[:8]})
        with open(path, "rb") as f:
            body = f.read()
        etag = hashlib.sha1(b"blob %d\0" % len(body) + body).hexdigest()  # git's blob id
        self._send(200, body, {"ETag": '"%s"' % etag, "X-Repo-Commit": commit})


class _CdnHandler(_Handler):
    def do_GET(self):
        hub = self.server.hub
        self.counter = hub.cdn_count
        with self.counter.lock:
            self.counter.requests += 1
            if self.headers.get("Authorization"):
                self.counter.auth_seen.append(self.headers["Authorization"])
        parts = urllib.parse.unquote(urllib.parse.urlsplit(self.path).path).strip("/").split("/")
        repo = hub.repos.get("/".join(parts[1:3]))
        if parts[0] != "cdn" or not repo:
            return self._send(404, b"no such object")
        path = os.path.join(repo.folder, "/".join(parts[3:]))
        size = os.path.getsize(path)
        rng = self.headers.get("Range")
        if hub.mode == "slow":
            time.sleep(hub.delay)
        if hub.mode == "ignore_range" or not rng:
            return self._whole(path, size)
        a, b = rng.split("=", 1)[1].split("-")
        a, b = int(a), min(int(b), size - 1)
        with self.counter.lock:
            self.counter.ranges.append((a, b))
        with open(path, "rb") as f:
            f.seek(a)
            body = f.read(b - a + 1)
        self.send_response(206)
        self.send_header("Content-Range", "bytes %d-%d/%d" % (a, b, size))
        self.send_header("Content-Length", str(len(body)))
        self.send_header("ETag", '"cdn-etag"')
        self.end_headers()
        if hub.mode == "stall":
            self.wfile.flush()
            time.sleep(hub.delay)
        try:
            self.wfile.write(body)
            self.counter.add(len(body))
        except OSError:
            pass

    def _whole(self, path, size):
        """A server that ignores Range: the whole file, counted as it goes."""
        self.send_response(200)
        self.send_header("Content-Length", str(size))
        self.end_headers()
        chunk = b"\0" * (1 << 16)
        with open(path, "rb") as f:
            head = f.read(1 << 16)
        sent = 0
        try:
            self.wfile.write(head)
            sent = len(head)
            self.counter.add(len(head))
            while sent < size:
                n = min(len(chunk), size - sent)
                self.wfile.write(chunk[:n])
                sent += n
                self.counter.add(n)
        except OSError:  # the client hung up: what it refused is not counted again
            pass
        self.close_connection = True


class _Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 64  # socketserver's 5 drops the client's 8 parallel SYNs (1 s retry)

    def handle_error(self, request, client_address):
        pass  # a client that hangs up (the refused whole file) is expected here


class FakeHub:
    def __init__(self):
        self.repos = {}
        self.mode = "ok"
        self.delay = 0.0
        self.hub_count = Counter()
        self.cdn_count = Counter()
        self._sha = {}
        self.hub = _Server(("127.0.0.1", 0), _HubHandler)
        self.cdn = _Server(("127.0.0.1", 0), _CdnHandler)
        self.hub.hub = self.cdn.hub = self
        self.cdn_port = self.cdn.server_address[1]
        self.endpoint = "http://127.0.0.1:%d" % self.hub.server_address[1]
        for s in (self.hub, self.cdn):
            threading.Thread(target=s.serve_forever, daemon=True).start()

    def sha_of(self, path):
        if path not in self._sha:
            self._sha[path] = _lfs_sha(path)
        return self._sha[path]

    def add(self, repo):
        self.repos[repo.id] = repo

    def reset_counts(self):
        self.hub_count = Counter()
        self.cdn_count = Counter()

    def bytes(self):
        return self.hub_count.bytes + self.cdn_count.bytes

    def requests(self):
        return self.hub_count.requests + self.cdn_count.requests

    def close(self):
        for s in (self.hub, self.cdn):
            s.shutdown()
            s.server_close()
