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
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Suite transfer (README "Suite transfer"): a whole dataset signed into one token and posted
 * to an HTTP/1.1 server in this JVM, which verifies it and answers with a signed receipt.
 *
 * <p>The pair is the JDK's own: com.sun.net.httpserver.HttpServer (module jdk.httpserver) on
 * 127.0.0.1, one handler thread, and java.net.http.HttpClient pinned to HTTP/1.1, whose
 * connection pool keeps one keep-alive connection across a cell's trials. Per cell: server,
 * server check, warm-up trials, timed trials; three rows per timed trial (request-response,
 * the client's sign, the server's verify), written when the cell ends.
 */
final class TransferSuite {
  private static final String JWT_TYPE = "application/jwt";
  private static final JwsLibrary LIBRARY = JwsLibrary.current();

  private TransferSuite() {}

  /** Anything that fails a transfer cell: a status, a timeout, a receipt that does not check. */
  private static final class TransferFailed extends Exception {
    private static final long serialVersionUID = 1L;

    TransferFailed(String message) {
      super(message);
    }
  }

  /** One trial's timings: the whole trial and the client's sign (client clock), the server's verify (receipt). */
  private record Trial(long totalNs, long signNs, long verifyNs, int tokenBytes) {}

  /** The rows of a cell; timedOut when max_cell_seconds stopped it; spentNs since the first warm-up trial. */
  private record Result(List<Trial> trials, boolean timedOut, long spentNs) {}

  // -----------------------------------------------------------------------------------------
  // Server

  /**
   * POST / with an application/jwt body: verified with the cell's algorithm pinned (the same
   * {@link Jws} the client signs with, so the same key objects) and answered 200 application/jwt
   * with the receipt signed by the cell's key, or 401 with no body.
   */
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

  // -----------------------------------------------------------------------------------------
  // Client

  private static HttpResponse<byte[]> post(HttpClient client, URI uri, byte[] token, Duration timeout)
      throws TransferFailed {
    HttpRequest request = HttpRequest.newBuilder(uri)
        .timeout(timeout)
        .header("Content-Type", JWT_TYPE)
        .header("Accept", JWT_TYPE)
        .POST(HttpRequest.BodyPublishers.ofByteArray(token))
        .build();
    try {
      return client.send(request, HttpResponse.BodyHandlers.ofByteArray());
    } catch (java.net.http.HttpTimeoutException e) {
      throw new TransferFailed("no response within request_timeout_seconds (" + timeout.toMillis() / 1000.0 + " s)");
    } catch (IOException e) {
      throw new TransferFailed("the request failed: " + e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new TransferFailed("interrupted");
    }
  }

  private static long integerClaim(Object receipt, String name) throws TransferFailed {
    Object value = LIBRARY.claim(receipt, name);
    BigInteger number = value instanceof BigInteger big ? big
        : value instanceof Long || value instanceof Integer ? BigInteger.valueOf(((Number) value).longValue()) : null;
    if (number == null || number.signum() < 0 || number.bitLength() > 63) {
      throw new TransferFailed("the receipt's " + name + " is " + value + ", not a count");
    }
    return number.longValue();
  }

  /** The receipt's claims once its status, type, signature, records and received_bytes check. */
  private static Object checkReceipt(HttpResponse<byte[]> response, Jws jws, int records, int sentBytes)
      throws TransferFailed {
    if (response.statusCode() != 200) {
      throw new TransferFailed("the server answered " + response.statusCode());
    }
    String type = response.headers().firstValue("Content-Type").orElse("");
    if (!type.split(";", 2)[0].trim().equalsIgnoreCase(JWT_TYPE)) {
      throw new TransferFailed("the receipt's Content-Type is \"" + type + "\"");
    }
    Object receipt;
    try {
      receipt = jws.verify(new String(response.body(), StandardCharsets.ISO_8859_1));
    } catch (RuntimeException e) {
      throw new TransferFailed("the receipt does not verify: " + e);
    }
    if (integerClaim(receipt, "records") != records) {
      throw new TransferFailed("the receipt says " + LIBRARY.claim(receipt, "records") + " records, the body has " + records);
    }
    if (integerClaim(receipt, "received_bytes") != sentBytes) {
      throw new TransferFailed("the receipt says " + LIBRARY.claim(receipt, "received_bytes") + " bytes received, "
          + sentBytes + " were sent");
    }
    integerClaim(receipt, "verify_ns");
    return receipt;
  }

  /** The body's token with a flipped signature bit, and the alg:none token, must each get 401. */
  private static void checkServer(HttpClient client, URI uri, String token, Duration timeout) throws TransferFailed {
    String[][] forged = {
      {"a flipped signature bit", Forgeries.flippedSignatureBit(token)},
      {"alg none", Forgeries.unsigned(token)},
    };
    for (String[] f : forged) {
      int status = post(client, uri, f[1].getBytes(StandardCharsets.US_ASCII), timeout).statusCode();
      if (status != 401) {
        throw new TransferFailed("server check: the token with " + f[0] + " got " + status + ", not 401");
      }
    }
  }

  /** One trial, timed from before the client's sign to after the receipt is checked. */
  private static Trial trial(HttpClient client, URI uri, Bench.Ready ready, int records, Duration timeout)
      throws TransferFailed {
    Jws jws = ready.checks().jws();
    long t0 = System.nanoTime();
    String token = jws.sign(ready.input().first().claims());
    long t1 = System.nanoTime();
    byte[] sent = token.getBytes(StandardCharsets.US_ASCII);
    Object receipt = checkReceipt(post(client, uri, sent, timeout), jws, records, sent.length);
    long t2 = System.nanoTime();
    return new Trial(t2 - t0, t1 - t0, integerClaim(receipt, "verify_ns"), sent.length);
  }

  // -----------------------------------------------------------------------------------------

  /**
   * Runs one checked cell: server, server check, warm-up and timed trials. No trial starts
   * once max_cell_seconds, counted from the first warm-up trial, is used up.
   */
  private static Result runCell(HttpClient client, Bench.Ready ready, Spec.Transfer settings, Bench.Run run)
      throws TransferFailed {
    Duration timeout = Duration.ofNanos(Math.round(settings.requestTimeoutSeconds() * 1e9));
    long limitNs = run.spec.timing().maxCellNs();
    String head = run.head(ready.cell());
    int records = ready.input().first().tree().get("records").size();
    List<Trial> trials = new ArrayList<>(settings.trials());
    try (ReceiptServer server = new ReceiptServer(ready.checks().jws())) {
      URI uri = server.uri();
      checkServer(client, uri, ready.checks().token(), timeout);
      long start = System.nanoTime();
      for (int w = 1; w <= settings.warmupTrials(); w++) {
        if (System.nanoTime() - start >= limitNs) {
          return new Result(trials, true, System.nanoTime() - start);
        }
        Trial t = trial(client, uri, ready, records, timeout);
        Progress.line(head + ": warm-up trial " + w + "/" + settings.warmupTrials() + ": " + Progress.ms(t.totalNs()));
      }
      for (int k = 1; k <= settings.trials(); k++) {
        if (System.nanoTime() - start >= limitNs) {
          return new Result(trials, true, System.nanoTime() - start);
        }
        Trial t = trial(client, uri, ready, records, timeout);
        trials.add(t);
        Progress.line(head + ": trial " + k + "/" + settings.trials() + ": " + Progress.ms(t.totalNs())
            + " (sign " + Progress.ms(t.signNs()) + ", server verify " + Progress.ms(t.verifyNs())
            + ", token " + Progress.grouped(t.tokenBytes()) + " bytes)");
      }
      return new Result(trials, false, System.nanoTime() - start);
    } catch (IOException e) {
      throw new TransferFailed("cannot start the server on 127.0.0.1: " + e);
    }
  }

  static long run(List<Bench.Ready> ready, Bench.Run run) {
    Spec.Transfer settings = run.spec.transfer();
    HttpClient client = HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .proxy(HttpClient.Builder.NO_PROXY)
        .connectTimeout(Duration.ofNanos(Math.round(settings.requestTimeoutSeconds() * 1e9)))
        .build();
    long sink = 0;
    for (Bench.Ready r : ready) {
      Spec.Cell cell = r.cell();
      long inputBytes = r.input().inputBytes;
      Result result;
      try {
        result = runCell(client, r, settings, run);
      } catch (TransferFailed | RuntimeException e) {
        run.finish(cell, inputBytes, "failed", "failed (" + e.getMessage() + ")", true);
        continue;
      }
      String status = result.timedOut() ? "timeout" : "ok";
      if (result.trials().isEmpty()) {
        run.out.untimed(cell, inputBytes, status, result.spentNs());
        run.finish(cell, inputBytes, status, "timeout after " + Progress.ms(result.spentNs()) + ", no trial timed", false);
        continue;
      }
      long[] totals = new long[result.trials().size()];
      for (int k = 0; k < totals.length; k++) {
        Trial t = result.trials().get(k);
        run.out.row(cell, "request-response", inputBytes, k + 1, 1, t.totalNs(), t.tokenBytes(), status);
        run.out.row(cell, "sign", inputBytes, k + 1, 1, t.signNs(), t.tokenBytes(), status);
        run.out.row(cell, "verify", inputBytes, k + 1, 1, t.verifyNs(), t.tokenBytes(), status);
        totals[k] = t.totalNs();
        sink += t.tokenBytes();
      }
      java.util.Arrays.sort(totals);
      long median = totals.length % 2 == 1 ? totals[totals.length / 2]
          : (totals[totals.length / 2 - 1] + totals[totals.length / 2]) / 2;
      run.finish(cell, inputBytes, status, totals.length + " trials, median request-response " + Progress.ms(median)
          + (result.timedOut() ? " (timeout: max_cell_seconds ran out)" : ""), false);
    }
    return sink;
  }
}
