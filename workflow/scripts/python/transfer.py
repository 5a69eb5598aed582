"""Suite transfer: the server (http.server on 127.0.0.1) runs in a thread of the worker: while
one thread signs or verifies, the other waits in a socket read without the GIL (a server in a
forked child measured the same, a 27 MB trip 10 ms slower)."""

import http.client
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from correctness import unsigned, with_flipped_signature_bit
from jwt_algorithms import INVALID_TOKEN, InputError, sign, verify
from timing import clock


class TransferFailed(Exception):
    pass


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
    """Sign the body, post it, verify the receipt and check it: (the token's bytes, the
    client's sign ns, the server's verify ns from the receipt)."""
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
    verify_ns = receipt.get("verify_ns")
    if not isinstance(verify_ns, int) or isinstance(verify_ns, bool) or verify_ns < 0:
        raise TransferFailed(f"receipt's verify_ns {verify_ns!r} is not a count of ns")
    return len(body), signed - start, verify_ns


class TransferCell:
    """A cell's server (started and checked here, stopped by close) and client connection."""

    def __init__(self, case, request_timeout_seconds):
        self.case, self.records = case, len(case.claims["records"])
        self.server = ReceiptServer(case)
        threading.Thread(target=self.server.serve_forever, name="receipt-server", daemon=True).start()
        self.connection = http.client.HTTPConnection(*self.server.server_address, timeout=request_timeout_seconds)
        try:
            self.guarded(check_server, self.connection, case)
        except BaseException:
            self.close()
            raise

    def guarded(self, call, *args):
        """call(*args), a failed request (status, timeout, receipt) raised as TransferFailed."""
        try:
            return call(*args)
        except (OSError, http.client.HTTPException, INVALID_TOKEN) as exc:
            self.connection.close()  # the next request starts on a new connection
            raise TransferFailed(f"{type(exc).__name__}: {exc}") from exc

    def batch(self, n):
        sink = 0
        for _ in range(n):
            self.last = self.guarded(trial, self.connection, self.case, self.records)
            sink += self.last[0]
        return sink

    def answer(self, n, sink):
        token_bytes, sign_ns, verify_ns = self.last
        return {"output_bytes": token_bytes, "parts": {"sign": sign_ns, "verify": verify_ns}} if n == 1 else {}

    def close(self):
        self.connection.close()
        self.server.shutdown()
        self.server.server_close()
