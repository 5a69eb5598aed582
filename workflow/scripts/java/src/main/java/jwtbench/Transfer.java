package jwtbench;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.math.BigInteger;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/** Suite transfer (README "Suite transfer"); the server starts and is checked before the hello. */
final class Transfer extends Cells.Served {
  private static final String JWT_TYPE = "application/jwt";
  private static final JwsLibrary LIBRARY = JwsLibrary.current();

  private final Cells.Ready ready;
  private final int records;
  private final Duration timeout;
  private final HttpClient client;
  private final ReceiptServer server;
  private final URI uri;

  Transfer(Cells.Ready ready, double requestTimeoutSeconds) throws Cells.CheckFailed {
    super(ready.cell(), ready.input().inputBytes(), ready.checks().token().length());
    this.ready = ready;
    this.records = ready.input().first().tree().get("records").size();
    this.timeout = Duration.ofNanos(Math.round(requestTimeoutSeconds * 1e9));
    this.client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).proxy(HttpClient.Builder.NO_PROXY)
        .connectTimeout(timeout).build();
    try {
      this.server = new ReceiptServer(ready.checks().jws());
    } catch (IOException e) {
      throw new Cells.CheckFailed("cannot start the server on 127.0.0.1: " + e);
    }
    this.uri = server.uri();
    try {
      checkServer(client, uri, ready.checks().token(), timeout);
    } catch (Cells.CheckFailed e) {
      server.close();
      throw e;
    }
  }

  /** n trials, each from the client's sign to the receipt checked; a batch of one also says its parts. */
  @Override
  void batch(long n, Map<String, Object> answer) throws Cells.CheckFailed {
    Jws jws = ready.checks().jws();
    long elapsed = 0;
    for (long k = 0; k < n; k++) {
      long t0 = System.nanoTime();
      String token = jws.sign(ready.input().first().claims());
      long t1 = System.nanoTime();
      byte[] sent = token.getBytes(StandardCharsets.US_ASCII);
      Object receipt = checkReceipt(post(client, uri, sent, timeout), jws, records, sent.length);
      long t2 = System.nanoTime();
      elapsed += t2 - t0;
      sink += sent.length;
      if (n == 1) {
        answer.put("output_bytes", sent.length);
        answer.put("parts", Map.of("sign", t1 - t0, "verify", integerClaim(receipt, "verify_ns")));
      }
    }
    answer.put("elapsed_ns", elapsed);
  }

  @Override
  void close() {
    server.close();
  }

  /** POST / application/jwt: verified by the client's own {@link Jws}, answered 200 with the signed receipt or 401. */
  private static final class ReceiptServer implements AutoCloseable {
    private final Jws jws;
    private final HttpServer server;
    private final ExecutorService handler;

    ReceiptServer(Jws jws) throws IOException {
      this.jws = jws;
      InetAddress loopback = InetAddress.getByAddress(new byte[] {127, 0, 0, 1});
      this.server = HttpServer.create(new InetSocketAddress(loopback, 0), 0);
      this.handler = Executors.newSingleThreadExecutor(task -> {
        Thread thread = new Thread(task, "receipt-server");
        thread.setDaemon(true);
        return thread;
      });
      server.setExecutor(handler);
      server.createContext("/", this::handle);
      server.start();
    }

    URI uri() {
      return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/");
    }

    private void handle(HttpExchange exchange) throws IOException {
      try {
        String type = exchange.getRequestHeaders().getFirst("Content-Type");
        if (!exchange.getRequestMethod().equals("POST")) {
          answer(exchange, 405, null);
          return;
        }
        if (type == null || !type.split(";", 2)[0].trim().equalsIgnoreCase(JWT_TYPE)) {
          answer(exchange, 415, null);
          return;
        }
        byte[] body;
        try (InputStream in = exchange.getRequestBody()) {
          body = in.readAllBytes();
        }
        String token = new String(body, StandardCharsets.ISO_8859_1); // a compact JWS is ASCII
        Object claims;
        long t0 = System.nanoTime();
        try {
          claims = jws.verify(token);
        } catch (RuntimeException e) {
          answer(exchange, 401, null);
          return;
        }
        long verifyNs = System.nanoTime() - t0;
        Object records = LIBRARY.claim(claims, "records");
        Map<String, Object> receipt = new LinkedHashMap<>();
        receipt.put("dataset", (String) LIBRARY.claim(claims, "dataset"));
        receipt.put("records", records instanceof List<?> list ? (Object) list.size() : null);
        receipt.put("received_bytes", body.length);
        receipt.put("verify_ns", verifyNs);
        answer(exchange, 200, jws.sign(LIBRARY.claims(receipt)).getBytes(StandardCharsets.US_ASCII));
      } catch (RuntimeException e) {
        Progress.line("receipt server: " + e);
        answer(exchange, 500, null);
      } finally {
        exchange.close();
      }
    }

    private static void answer(HttpExchange exchange, int status, byte[] body) throws IOException {
      if (body == null) {
        exchange.sendResponseHeaders(status, -1);
        return;
      }
      exchange.getResponseHeaders().set("Content-Type", JWT_TYPE);
      exchange.sendResponseHeaders(status, body.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
    }

    @Override
    public void close() {
      server.stop(0);
      handler.shutdownNow();
    }
  }

  private static HttpResponse<byte[]> post(HttpClient client, URI uri, byte[] token, Duration timeout)
      throws Cells.CheckFailed {
    HttpRequest request = HttpRequest.newBuilder(uri)
        .timeout(timeout)
        .header("Content-Type", JWT_TYPE)
        .header("Accept", JWT_TYPE)
        .POST(HttpRequest.BodyPublishers.ofByteArray(token))
        .build();
    try {
      return client.send(request, HttpResponse.BodyHandlers.ofByteArray());
    } catch (java.net.http.HttpTimeoutException e) {
      throw new Cells.CheckFailed("no response within request_timeout_seconds (" + timeout.toMillis() / 1000.0 + " s)");
    } catch (IOException e) {
      throw new Cells.CheckFailed("the request failed: " + e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new Cells.CheckFailed("interrupted");
    }
  }

  private static long integerClaim(Object receipt, String name) throws Cells.CheckFailed {
    Object value = LIBRARY.claim(receipt, name);
    BigInteger number = value instanceof BigInteger big ? big
        : value instanceof Long || value instanceof Integer ? BigInteger.valueOf(((Number) value).longValue()) : null;
    if (number == null || number.signum() < 0 || number.bitLength() > 63) {
      throw new Cells.CheckFailed("the receipt's " + name + " is " + value + ", not a count");
    }
    return number.longValue();
  }

  /** The receipt's claims once its status, type, signature, records and received_bytes check. */
  private static Object checkReceipt(HttpResponse<byte[]> response, Jws jws, int records, int sentBytes)
      throws Cells.CheckFailed {
    if (response.statusCode() != 200) {
      throw new Cells.CheckFailed("the server answered " + response.statusCode());
    }
    String type = response.headers().firstValue("Content-Type").orElse("");
    if (!type.split(";", 2)[0].trim().equalsIgnoreCase(JWT_TYPE)) {
      throw new Cells.CheckFailed("the receipt's Content-Type is \"" + type + "\"");
    }
    Object receipt;
    try {
      receipt = jws.verify(new String(response.body(), StandardCharsets.ISO_8859_1));
    } catch (RuntimeException e) {
      throw new Cells.CheckFailed("the receipt does not verify: " + e);
    }
    if (integerClaim(receipt, "records") != records) {
      throw new Cells.CheckFailed("the receipt says " + LIBRARY.claim(receipt, "records") + " records, the body has " + records);
    }
    if (integerClaim(receipt, "received_bytes") != sentBytes) {
      throw new Cells.CheckFailed("the receipt says " + LIBRARY.claim(receipt, "received_bytes") + " bytes received, "
          + sentBytes + " were sent");
    }
    integerClaim(receipt, "verify_ns");
    return receipt;
  }

  /** The body's token with a flipped signature bit, and the alg:none token, must each get 401. */
  private static void checkServer(HttpClient client, URI uri, String token, Duration timeout) throws Cells.CheckFailed {
    String[][] forged = {
      {"a flipped signature bit", Forgeries.flippedSignatureBit(token)},
      {"alg none", Forgeries.unsigned(token)},
    };
    for (String[] f : forged) {
      int status = post(client, uri, f[1].getBytes(StandardCharsets.US_ASCII), timeout).statusCode();
      if (status != 401) {
        throw new Cells.CheckFailed("server check: the token with " + f[0] + " got " + status + ", not 401");
      }
    }
  }
}
