"""A real intranet engine for the tests: llama.cpp's own ``llama-server`` with the starter
model, on a loopback address other than 127.0.0.1, behind TLS with a CA and a server
certificate made here with ``cryptography``.

``llama-server`` is built by ``packaging/llama_tools.py`` (the test command does it, once,
then from the build cache).
"""

from __future__ import annotations

import contextlib
import datetime
import http.client
import ipaddress
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

ROOT = Path(__file__).resolve().parent.parent
ENGINE_HOST = "127.0.0.2"
ENGINE_NAME = "llm.corp.test"  # in the server certificate, for tests that map it in /etc/hosts


def server_binary() -> Path | None:
    sys.path.insert(0, str(ROOT / "packaging"))
    from llama_tools import tools_folder

    found = tools_folder() / "llama-server"
    return found if found.exists() else None


@dataclass(frozen=True)
class Pki:
    ca_pem: str
    ca_path: Path
    cert_path: Path
    key_path: Path
    cert_der: bytes


def _name(common: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common)])


def _write_key(key: ec.EllipticCurvePrivateKey, path: Path) -> None:
    path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                       serialization.NoEncryption()))


def make_pki(folder: Path, hosts: tuple[str, ...] = (ENGINE_HOST, ENGINE_NAME), label: str = "corp") -> Pki:
    """A CA and a server certificate it signed, for ``hosts`` (IP literals or names)."""
    folder.mkdir(parents=True, exist_ok=True)
    now = datetime.datetime.now(datetime.UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca = (x509.CertificateBuilder().subject_name(_name(f"Hearth test CA {label}"))
          .issuer_name(_name(f"Hearth test CA {label}")).public_key(ca_key.public_key())
          .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(days=1))
          .not_valid_after(now + datetime.timedelta(days=30))
          .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
          .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True,
                                       content_commitment=False, key_encipherment=False,
                                       data_encipherment=False, key_agreement=False,
                                       encipher_only=False, decipher_only=False), critical=True)
          .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False)
          .sign(ca_key, hashes.SHA256()))
    key = ec.generate_private_key(ec.SECP256R1())
    names: list[x509.GeneralName] = []
    for host in hosts:
        try:
            names.append(x509.IPAddress(ipaddress.ip_address(host)))
        except ValueError:
            names.append(x509.DNSName(host))
    cert = (x509.CertificateBuilder().subject_name(_name(hosts[0])).issuer_name(ca.subject)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(days=1)).not_valid_after(now + datetime.timedelta(days=30))
            .add_extension(x509.SubjectAlternativeName(names), critical=False)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
            .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False)
            .sign(ca_key, hashes.SHA256()))
    ca_pem = ca.public_bytes(serialization.Encoding.PEM).decode()
    (folder / "ca.pem").write_text(ca_pem)
    (folder / "server.pem").write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    _write_key(key, folder / "server.key")
    return Pki(ca_pem, folder / "ca.pem", folder / "server.pem", folder / "server.key",
               cert.public_bytes(serialization.Encoding.DER))


def free_port(host: str = ENGINE_HOST) -> int:
    with socket.socket() as probe:
        probe.bind((host, 0))
        return probe.getsockname()[1]


@contextmanager
def serving(handler: type, **attributes: object) -> Iterator[tuple[object, type]]:
    """A stand-in engine on ENGINE_HOST: ``handler`` (an http.server request handler) as a
    fresh subclass with ``attributes`` (its own lists of what it saw), on its own thread."""
    import http.server
    import threading

    fresh = type("Handler", (handler,), dict(attributes))
    httpd = http.server.ThreadingHTTPServer((ENGINE_HOST, free_port()), fresh)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield httpd, fresh
    finally:
        httpd.shutdown()
        httpd.server_close()


@dataclass
class Server:
    process: subprocess.Popen
    host: str
    port: int
    pki: Pki | None
    log: Path

    def log_text(self) -> str:
        return self.log.read_text(errors="replace")

    @property
    def url(self) -> str:
        return f"{'https' if self.pki else 'http'}://{self.host}:{self.port}/v1"

    def stop(self) -> None:
        """Kill the server and whatever it started (its process group)."""
        import os
        import signal

        if self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(20)


def _ready(host: str, port: int, pki: Pki | None) -> bool:
    try:
        if pki is not None:
            context = ssl.create_default_context(cadata=pki.ca_pem)
            context.check_hostname = False  # ready is all this asks; tests check the names
            conn: http.client.HTTPConnection = http.client.HTTPSConnection(host, port, context=context, timeout=2)
        else:
            conn = http.client.HTTPConnection(host, port, timeout=2)
        conn.request("GET", "/health")
        ok = conn.getresponse().status == 200
        conn.close()
        return ok
    except OSError:
        return False


@contextmanager
def _serving(what: str, args: list[str], host: str, port: int, pki: Pki | None, ready_seconds: float,
             tls_flags: tuple[str, str], env: dict[str, str] | None = None) -> Iterator[Server]:
    """Start a server (in its own process group: vLLM starts helpers) and wait until ready;
    ``tls_flags``: its options for the key and the certificate files."""
    if pki is not None:
        args = [*args, tls_flags[0], str(pki.key_path), tls_flags[1], str(pki.cert_path)]
    log = tempfile.NamedTemporaryFile(prefix=f"{what}-", suffix=".log", delete=False)  # noqa: SIM115
    process = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True)
    server = Server(process, host, port, pki, Path(log.name))
    log.close()
    try:
        deadline = time.monotonic() + ready_seconds
        while not _ready(host, port, pki):
            if process.poll() is not None:
                raise AssertionError(f"{what} exited: " + server.log_text()[-3000:])
            if time.monotonic() > deadline:
                raise AssertionError(f"{what} was not ready in {ready_seconds:.0f} s: " + server.log_text()[-3000:])
            time.sleep(0.3)
        yield server
    finally:
        server.stop()
        server.log.unlink(missing_ok=True)


@contextmanager
def llama_server(model: Path, pki: Pki | None, host: str = ENGINE_HOST, n_ctx: int = 4096,
                 parallel: int = 2, extra: tuple[str, ...] = (), threads: int = 1) -> Iterator[Server]:
    """llama-server serving ``model`` on ``host`` (TLS with ``pki``), ready to answer."""
    binary = server_binary()
    assert binary is not None, "llama-server is not built: run packaging/llama_tools.py"
    port = free_port(host)
    args = [str(binary), "-m", str(model), "--host", host, "--port", str(port), "-c", str(n_ctx),
            "--parallel", str(parallel), "-t", str(threads), "--no-webui", *extra]
    with _serving("llama-server", args, host, port, pki, 120, ("--ssl-key-file", "--ssl-cert-file")) as server:
        yield server


def vllm_setup() -> tuple[Path, Path] | str:
    """vLLM's python and the starter model in its format (packaging/vllm_engine.py), or why not."""
    sys.path.insert(0, str(ROOT / "packaging"))
    import vllm_engine

    if not vllm_engine.python().exists():
        return "vLLM is not installed: the test command installs it (packaging/vllm_engine.py)"
    models = sorted((vllm_engine.FOLDER / "models").glob("*/config.json"))
    if not models:
        return "the starter model is not converted for vLLM: run packaging/vllm_engine.py"
    return vllm_engine.python(), models[0].parent


@contextmanager
def vllm_server(pki: Pki | None, host: str = ENGINE_HOST, max_model_len: int = 2048,
                name: str = "corp-vllm") -> Iterator[Server]:
    """vLLM (CPU) serving the starter model on ``host``, TLS with ``pki``, ready to answer."""
    import vllm_engine

    found = vllm_setup()
    assert not isinstance(found, str), found
    python, model = found
    port = free_port(host)
    args = [str(python), "-m", "vllm.entrypoints.openai.api_server", "--model", str(model),
            "--served-model-name", name, "--host", host, "--port", str(port), "--enforce-eager",
            "--max-model-len", str(max_model_len)]
    with _serving("vLLM", args, host, port, pki, 300, ("--ssl-keyfile", "--ssl-certfile"),
                  vllm_engine.offline_env()) as server:
        yield server


@dataclass
class Silent:
    """A TCP server on a free loopback port that takes one connection, reads the request
    and never answers (``headers``: it sends a response's head, then nothing of its body)."""

    headers: bool = False
    listener: socket.socket = field(default_factory=lambda: socket.create_server(("127.0.0.1", 0)))
    asked: threading.Event = field(default_factory=threading.Event)  # the request arrived
    closed: threading.Event = field(default_factory=threading.Event)  # Hearth closed the connection
    stop: threading.Event = field(default_factory=threading.Event)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.listener.getsockname()[1]}/v1"

    def serve(self) -> None:
        self.listener.settimeout(0.2)
        conn = None
        while conn is None and not self.stop.is_set():
            with contextlib.suppress(TimeoutError):
                conn, _ = self.listener.accept()
        if conn is None:
            return
        with conn:
            conn.settimeout(0.2)
            while not self.stop.is_set():
                try:
                    data = conn.recv(4096)
                except TimeoutError:
                    continue
                except OSError:  # reset: closed too
                    data = b""
                if not data:
                    self.closed.set()
                    return
                if b"\r\n\r\n" in data and not self.asked.is_set():
                    if self.headers:
                        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                                     b"Content-Length: 100000\r\n\r\n{\"data\": [")
                    self.asked.set()
