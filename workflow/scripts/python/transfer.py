"""Suite transfer: a whole dataset as one signed token, posted to a local HTTP server.

The server is the standard library's http.server.ThreadingHTTPServer, bound to 127.0.0.1
on a free port and served from a background thread of the driver process; the client is
http.client.HTTPConnection on one keep-alive connection per cell. While the server
verifies, the client thread waits in a socket read without the GIL (and the server
thread waits likewise while the client signs), so the two do not compete for it. Against
a server in a forked child process, sign and verify times were the same, and a 27 MB
round trip spent about 10 ms (under 1%) more in transport: the GIL handoffs between the
two threads' socket calls.
"""

import http.client
import sys
import threading
from contextlib import closing, contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from correctness import unsigned, with_flipped_signature_bit
from jwt_algorithms import INVALID_TOKEN, InputError, sign, verify
from timing import clock

OPERATIONS = ("request-response", "sign", "verify")  # the rows of one trial, in order


class TransferFailed(Exception):
    pass


@dataclass
class TransferSettings:
    trials: int
    warmup_trials: int
    request_timeout_seconds: float

    @classmethod
    def from_spec(cls, transfer):
        return cls(
            int(transfer["trials"]),
            int(transfer["warmup_trials"]),
            float(transfer["request_timeout_seconds"]),
        )


@dataclass
class Trial:
    elapsed_ns: int  # the whole trial, on the client
    sign_ns: int  # the client's sign call
    verify_ns: int  # the server's verify call, from the receipt
    token_bytes: int

    def rows(self):
        """(operation, elapsed ns) for each of OPERATIONS."""
        return zip(OPERATIONS, (self.elapsed_ns, self.sign_ns, self.verify_ns))


def check_body(body, where):
    """A transfer body is {"dataset": NAME, "records": [...]}."""
    if not isinstance(body.get("dataset"), str) or not isinstance(body.get("records"), list):
        raise InputError(f"{where}: not a transfer body ({{'dataset': NAME, 'records': [...]}})")


class ReceiptHandler(BaseHTTPRequestHandler):
    """POST a compact JWS as application/jwt; 200 with a signed receipt, or 401."""

    protocol_version = "HTTP/1.1"  # keep-alive, every answer with its Content-Length
    disable_nagle_algorithm = True  # headers and body go out as separate writes

    def log_message(self, format, *args):
        pass

    def do_POST(self):
        case = self.server.case
        token = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        start = clock()
        try:
            claims = verify(token, case.verifying_key, case.alg)
        except INVALID_TOKEN:
            self.answer(401)
            return
        verify_ns = clock() - start
        receipt = {
            "dataset": claims["dataset"],
            "records": len(claims["records"]),
            "received_bytes": len(token),
            "verify_ns": verify_ns,
        }
        self.answer(200, sign(receipt, case.signing_key, case.alg).encode("ascii"))

    def answer(self, status, body=b""):
        self.send_response(status)
        if body:
            self.send_header("Content-Type", "application/jwt")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if body:
            self.wfile.write(body)


class ReceiptServer(ThreadingHTTPServer):
    """Verifies and signs receipts with one cell's algorithm and keys; loopback only."""

    def __init__(self, case):
        super().__init__(("127.0.0.1", 0), ReceiptHandler)
        self.case = case

    def handle_error(self, request, client_address):
        """One line on stderr instead of a traceback (a client that timed out and left)."""
        error = sys.exc_info()[1]
        print(f"receipt server: {type(error).__name__}: {error}", file=sys.stderr, flush=True)


@contextmanager
def serving(server):
    """Serve from a background thread; stop it on the way out."""
    thread = threading.Thread(target=server.serve_forever, name="receipt-server", daemon=True)
    thread.start()
    try:
        yield server.server_address
    finally:
        server.shutdown()
        thread.join()


def post(connection, token):
    """(status, body) of POSTing `token` (bytes)."""
    connection.request("POST", "/", body=token, headers={"Content-Type": "application/jwt"})
    response = connection.getresponse()
    return response.status, response.read()


def check_server(connection, case):
    """The body's token with a flipped signature bit, and unsigned, must each get 401."""
    forgeries = {
        "a token with a flipped signature bit": with_flipped_signature_bit(case.token),
        "an alg:none token": unsigned(case.token),
    }
    for what, token in forgeries.items():
        status, _ = post(connection, token.encode("ascii"))
        if status != 401:
            raise TransferFailed(f"the server answered {status} to {what}, not 401")


def trial(connection, case, records):
    """Sign the body, post it, verify the receipt and check it; the trial's timings."""
    start = clock()
    token = sign(case.claims, case.signing_key, case.alg)
    signed = clock()
    body = token.encode("ascii")
    status, answer = post(connection, body)
    if status != 200:
        raise TransferFailed(f"the server answered {status}, not 200")
    receipt = verify(answer, case.verifying_key, case.alg)
    if receipt.get("records") != records or receipt.get("received_bytes") != len(body):
        raise TransferFailed(
            f"receipt says records={receipt.get('records')!r}, received_bytes="
            f"{receipt.get('received_bytes')!r}; sent records={records}, {len(body)} bytes"
        )
    done = clock()
    verify_ns = receipt.get("verify_ns")
    if not isinstance(verify_ns, int) or isinstance(verify_ns, bool) or verify_ns < 0:
        raise TransferFailed(f"receipt's verify_ns {verify_ns!r} is not a count of ns")
    return Trial(done - start, signed - start, verify_ns, len(body))


def describe(result):
    return (
        f"{result.elapsed_ns / 1e6:,.1f} ms (sign {result.sign_ns / 1e6:,.1f} ms, "
        f"server verify {result.verify_ns / 1e6:,.1f} ms, {result.token_bytes:,} bytes)"
    )


def run_trials(connection, case, settings, limit_ns, progress):
    """Warm-up trials, then timed ones, until done or the cell's time runs out.

    Returns (timed trials, whether time ran out, ns spent).
    """
    records = len(case.claims["records"])
    plan = [("warm-up", k, settings.warmup_trials) for k in range(1, settings.warmup_trials + 1)]
    plan += [("trial", k, settings.trials) for k in range(1, settings.trials + 1)]
    timed = []
    start = clock()
    for kind, number, count in plan:
        if clock() - start >= limit_ns:
            return timed, True, clock() - start
        result = trial(connection, case, records)
        progress(f"{kind} {number}/{count}: {describe(result)}")
        if kind == "trial":
            timed.append(result)
    return timed, False, clock() - start


def run_cell(case, settings, max_cell_seconds, progress):
    """Start a server for the cell, check it, run the trials and stop it.

    Returns what run_trials does; raises TransferFailed on any failure.
    """
    try:
        with ReceiptServer(case) as server, serving(server) as (host, port):
            connection = http.client.HTTPConnection(host, port, timeout=settings.request_timeout_seconds)
            with closing(connection):
                check_server(connection, case)
                return run_trials(connection, case, settings, max_cell_seconds * 1e9, progress)
    except (OSError, http.client.HTTPException, INVALID_TOKEN) as exc:
        raise TransferFailed(f"{type(exc).__name__}: {exc}") from exc
