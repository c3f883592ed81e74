"""A proxy in front of the local API server that cuts its connections the way a load balancer or
a flaky network does (TCP resets, in the middle of a watch's stream too), and can refuse new
connections for a while: the fault of a watch dropped mid-wait.

It holds the local cluster's own server certificate and key, so a kubeconfig that trusts the API
server trusts the proxy. It ends TLS on both sides, so it reads each request line and knows
which connections carry a watch (``?watch=true``, as the Kubernetes Python client asks for one),
and it counts every request by method and path: the benchmark (tools/bench/deploy.py) reads how
many API calls a run makes from it. Used by tests/cluster/test_phases_faults.py too."""

import os
import re
import select
import socket
import ssl
import struct
import threading

WATCH_REQUEST = re.compile(rb"^GET \S*[?&]watch=(?:true|1)\b", re.IGNORECASE | re.MULTILINE)
# An HTTP/1.1 request line (the proxy offers no HTTP/2, so Go's clients, Helm's, speak 1.1 too).
REQUEST_LINE = re.compile(rb"^(GET|POST|PUT|PATCH|DELETE|HEAD) (/\S*) HTTP/1\.[01]\r$", re.MULTILINE)


def reset(sock):
    """Breaks a connection: a TCP reset (SO_LINGER 0) instead of an orderly close. The shutdown
    first wakes the thread blocked reading it; a close alone waits for that read to end."""
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        socket.socket.shutdown(sock, socket.SHUT_RDWR)
    except OSError:
        pass
    sock.close()


class ApiProxy:
    def __init__(self, upstream_port, cert, key, ca):
        self.upstream = ("127.0.0.1", upstream_port)
        # It shows clients the API server's own certificate, and trusts the CA that signed it.
        self.server_tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        self.server_tls.load_cert_chain(cert, key)
        self.client_tls = ssl.create_default_context(cafile=ca)
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.lock = threading.Lock()
        self.open = {}  # client side: (API server side, whether it carried a watch), for each open connection
        self.watch_requests = []  # the watches' request lines, in order
        self.requests = []  # (method, path without its query) of every request, in order
        self.refusing = False
        self.refused = 0
        threading.Thread(target=self._accept, daemon=True).start()

    @classmethod
    def in_front_of(cls, kubeconfig, pki, path):
        """A proxy in front of the local cluster whose kubeconfig is ``kubeconfig`` (its server
        certificate, its key and the CA in ``pki``), and a copy of that kubeconfig pointing at it, written to ``path``."""
        with open(kubeconfig, encoding="utf-8") as handle:
            original = handle.read()
        proxy = cls(int(re.search(r"server: https://127\.0\.0\.1:(\d+)", original).group(1)),
                    os.path.join(pki, "apiserver.crt"), os.path.join(pki, "apiserver.key"), os.path.join(pki, "ca.crt"))
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(proxy.kubeconfig(original))
        return proxy

    def kubeconfig(self, original):
        """The text of ``original`` (a kubeconfig) with its server moved to this proxy."""
        return re.sub(r"server: https://127\.0\.0\.1:\d+", "server: https://127.0.0.1:%d" % self.port, original)

    def watching(self):
        """How many open connections carry a watch."""
        with self.lock:
            return sum(1 for _unused, watch in self.open.values() if watch)

    def cut(self):
        """Resets every open connection, as a network blip does; returns how many carried a watch."""
        with self.lock:
            cut, self.open = self.open, {}
        for client_side, (server_side, _unused) in cut.items():
            reset(client_side)
            if server_side is not None:
                reset(server_side)
        return sum(1 for _unused, watch in cut.values() if watch)

    def close(self):
        self.listener.close()
        self.cut()

    def _accept(self):
        while True:
            try:
                raw, _unused = self.listener.accept()
            except OSError:
                return  # closed
            if self.refusing:
                with self.lock:
                    self.refused += 1
                reset(raw)
                continue
            threading.Thread(target=self._serve, args=(raw,), daemon=True).start()

    def _serve(self, raw):
        """One client connection. Its API server side is opened only when the client's first
        request arrives, as an L7 load balancer does: Go's HTTP/1.1 clients (Helm's) dial spare
        connections they may leave unused, and the API server closes a connection that brings
        no request within 32 s; opened at once, that close reached the client while it was
        sending a DELETE on the connection (Helm: "failed to delete release")."""
        client_side = server_side = None
        try:
            client_side = self.server_tls.wrap_socket(raw, server_side=True)
            with self.lock:
                self.open[client_side] = (None, False)
            first = client_side.recv(65536)
            if first:
                while client_side.pending():
                    first += client_side.recv(client_side.pending())
                server_side = self.client_tls.wrap_socket(socket.create_connection(self.upstream), server_hostname="127.0.0.1")
                with self.lock:
                    if client_side not in self.open:
                        return  # cut meanwhile
                    self.open[client_side] = (server_side, False)
                self._note(client_side, first)
                server_side.sendall(first)
                self._relay(client_side, server_side)
        except (OSError, ssl.SSLError, ValueError):
            reset(client_side or raw)
        finally:
            with self.lock:
                self.open.pop(client_side, None)
            # One side ended: end the other too, as a TCP proxy does.
            for side in (client_side or raw, server_side):
                if side is None:
                    continue
                try:
                    socket.socket.shutdown(side, socket.SHUT_RDWR)
                except OSError:
                    pass
                side.close()

    def _relay(self, client_side, server_side):
        """Copies both ways until a side ends, in this one thread: OpenSSL's SSL objects are not
        to be read in one thread while another writes them."""
        peer = {client_side: server_side, server_side: client_side}
        try:
            while True:
                readable = select.select(list(peer), [], [])[0]
                for source in readable:
                    # recv returns what one TLS record holds; pending() tells what is decrypted and left.
                    data = source.recv(65536)
                    if not data:
                        return
                    while source.pending():
                        data += source.recv(source.pending())
                    if source is client_side:
                        self._note(client_side, data)
                    peer[source].sendall(data)
        except (OSError, ssl.SSLError, ValueError):
            return  # reset or closed (cut() closes the sockets under this loop)

    def _note(self, client_side, data):
        """Counts the request lines in what the client sent, and marks a connection that asks for a watch."""
        lines = [(m.group(1).decode(), m.group(2).decode().split("?", 1)[0]) for m in REQUEST_LINE.finditer(data)]
        request = WATCH_REQUEST.search(data)
        with self.lock:
            self.requests.extend(lines)
            if request:
                self.watch_requests.append(data[request.start():data.find(b"\r\n", request.start())].decode())
                if client_side in self.open:
                    self.open[client_side] = (self.open[client_side][0], True)
