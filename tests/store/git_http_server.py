#!/usr/bin/python3
"""A git server over http for the records tests: `git http-backend` as a CGI
program behind Python's http.server on loopback, with HTTP Basic auth.

    git_http_server.py ROOT USER PASSWORD PORTFILE LOG

Serves the bare repositories under ROOT (GIT_PROJECT_ROOT, as in
git-http-backend(1)); writes the port it listens on to PORTFILE; appends one
line per request to LOG: "METHOD PATH auth=none|bad|ok STATUS". A request
without the right credential gets 401 with a Basic challenge. Pushes are
enabled by REMOTE_USER, which git-http-backend requires for receive-pack.
"""
import base64
import os
import subprocess
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ROOT, USER, PASSWORD, PORTFILE, LOG = sys.argv[1:6]
BACKEND = os.environ.get("GIT_HTTP_BACKEND", "/usr/lib/git-core/git-http-backend")
GOOD = "Basic " + base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def note(self, auth, status):
        with open(LOG, "a") as f:
            f.write(f"{self.command} {self.path} auth={auth} {status}\n")

    def body(self):
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            data = b""
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip(), 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return data
                data += self.rfile.read(size)
                self.rfile.readline()
        return self.rfile.read(int(self.headers.get("Content-Length", "0")))

    def reply(self, status, headers, data):
        self.send_response(status)
        for k, v in headers:
            if k.lower() not in ("content-length", "status"):
                self.send_header(k, v)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def serve(self):
        data = self.body()
        given = self.headers.get("Authorization")
        auth = "none" if given is None else "ok" if given == GOOD else "bad"
        if auth != "ok":
            self.note(auth, 401)
            # closed after the challenge: libgit2 1.5 replays on a new connection
            self.close_connection = True
            self.reply(401, [("WWW-Authenticate", 'Basic realm="records"'), ("Connection", "close")], b"")
            return
        path, _, query = self.path.partition("?")
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "GIT_PROJECT_ROOT": ROOT,
            "GIT_HTTP_EXPORT_ALL": "1",
            "REQUEST_METHOD": self.command,
            "PATH_INFO": path,
            "QUERY_STRING": query,
            "CONTENT_TYPE": self.headers.get("Content-Type", ""),
            "CONTENT_LENGTH": str(len(data)),
            "REMOTE_USER": USER,
            "REMOTE_ADDR": self.client_address[0],
            "GATEWAY_INTERFACE": "CGI/1.1",
            "SERVER_PROTOCOL": "HTTP/1.1",
        }
        if self.headers.get("Content-Encoding"):
            env["HTTP_CONTENT_ENCODING"] = self.headers["Content-Encoding"]
        if self.headers.get("Git-Protocol"):
            env["GIT_PROTOCOL"] = self.headers["Git-Protocol"]
        out = subprocess.run([BACKEND], input=data, env=env, capture_output=True).stdout
        head, _, rest = out.partition(b"\r\n\r\n")
        if not _:
            head, _, rest = out.partition(b"\n\n")
        status, headers = 200, []
        for line in head.decode("latin-1").splitlines():
            k, _, v = line.partition(":")
            if k.lower() == "status":
                status = int(v.split()[0])
            headers.append((k.strip(), v.strip()))
        self.note(auth, status)
        self.reply(status, headers, rest)

    do_GET = serve
    do_POST = serve


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
with open(PORTFILE + ".tmp", "w") as f:
    f.write(str(server.server_address[1]))
os.rename(PORTFILE + ".tmp", PORTFILE)
server.serve_forever()
