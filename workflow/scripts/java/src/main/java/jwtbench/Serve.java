package jwtbench;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * `serve --spec FILE`: the worker of the conductor's protocol, jwtbench-worker/1
 * (workflow/scripts/README.md, "serve"; its lines' schema:
 * workflow/schemas/protocol/worker.schema.yaml). The conductor (workflow/scripts/jwtbench/
 * conductor.py) makes every timing decision; this process only prepares and checks the spec's
 * cells exactly as `bench` does ({@link Bench#timed}), says so in one line, then runs the batches
 * it is asked for and says how long each took.
 *
 * <p>A batch is {@link TimedSuite.Timer#time}, the very method bench's warm-up, calibration and
 * samples time (System.nanoTime around the cell's own batch loop, {@link Workload#run}, its
 * result folded into the timer's sink), on the cell's one Timer, so a records cell's position
 * carries over from batch to batch. The drift reference ("reference") is
 * {@link TimedSuite.Reference}'s: one MessageDigest and one output array, reused.
 *
 * <p>Before each batch of a round, outside its clock, {@link JitQueue#awaitIdle} waits for the
 * JIT's compiler threads, as bench does before every sample and only there: the protocol's own
 * work between batches (reading a request, writing an answer) queues compilations as bench's
 * bookkeeping between rounds did (docs/disturbances-java.md). A round is a request that holds
 * both the reference's batches and cells' (README, "serve": the reference's settling batch and
 * sample, then each sampling cell's); the conductor's warm-up, calibration and windows until
 * steady are requests of one cell (or of the reference) alone and run without the wait, as
 * bench's do.
 *
 * <p>A batch that throws is answered {"error": ...} and ends its request. The conductor caps a
 * batch's calls itself (a loop C2 removed takes the same time for any n).
 *
 * <p>stdout carries the protocol's lines alone, each written and flushed at once
 * ({@link Progress#stdout}); System.out goes to stderr, where a library's printing belongs.
 * Exit status: 0 after the end request; 4 when stdin ends without one; 2 for a spec that is not
 * served or a request that breaks the protocol (the message on stderr names it).
 */
final class Serve {
  static final String PROTOCOL = "jwtbench-worker/1";
  /** The suites the conductor times through serve (driver.yaml `conducted`). */
  static final List<String> SUITES = List.of("jwt", "hash", "primitive", "harness");
  static final String REFERENCE = "reference";

  private Serve() {}

  /** One batch of a request: n calls of a cell's (or the reference's) timer. */
  private record Batch(TimedSuite.Timer timer, long n) {}

  static int run(String specFile) {
    Spec spec = Spec.load(specFile);
    if (!SUITES.contains(spec.suite())) {
      throw new InputError("--spec " + specFile + ": suite " + spec.suite() + " is not served (serve times "
          + String.join(", ", SUITES) + "; bench times the others)");
    }
    // The protocol's lines go to the stdout descriptor itself (Progress.stdout); anything a
    // library prints through System.out goes to stderr.
    System.setOut(System.err);
    List<Bench.Prepared> prepared = spec.suite().equals("jwt") ? Bench.prepare(spec, specFile) : List.of();
    Bench.Run run = new Bench.Run(spec, null);
    TimedSuite.Timer[] timers = new TimedSuite.Timer[spec.cells().size()];
    for (TimedSuite.Entry entry : Bench.timed(spec, specFile, prepared, run)) {
      Spec.Cell cell = entry.cell();
      try {
        timers[cell.index()] = new TimedSuite.Timer(entry, entry.workload().get(), spec.timing());
      } catch (RuntimeException e) { // as bench's "failed while timing", before any batch
        run.notPassed(cell, entry.inputBytes(), "failed", e.toString());
      }
    }
    TimedSuite.Timer reference = TimedSuite.Reference.timer(spec);
    Progress.stdout(Json.write(hello(spec, run, timers, reference)));
    BufferedReader requests = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    try {
      return serve(timers, reference, requests);
    } catch (IOException e) {
      throw new UncheckedIOException("serve: cannot read the conductor's requests", e);
    }
  }

  /** The first line: every spec cell's entry in spec order, and the drift reference's. */
  private static Map<String, Object> hello(Spec spec, Bench.Run run, TimedSuite.Timer[] timers,
      TimedSuite.Timer reference) {
    List<Map<String, Object>> cells = new ArrayList<>(timers.length);
    Map<String, Integer> counts = new LinkedHashMap<>();
    for (Spec.Cell cell : spec.cells()) {
      TimedSuite.Timer timer = timers[cell.index()];
      if (timer != null) {
        cells.add(ok(timer));
        counts.merge("ok", 1, Integer::sum);
        continue;
      }
      Bench.NotPassed not = run.notPassed(cell.index());
      if (not == null) {
        throw new IllegalStateException(run.head(cell) + " was neither checked nor refused");
      }
      Map<String, Object> entry = entry(cell, not.status(), not.inputBytes());
      entry.put("reason", not.reason());
      cells.add(entry);
      counts.merge(not.status(), 1, Integer::sum);
    }
    Progress.line("serve: " + cells.size() + " cells prepared and checked " + counts);
    Map<String, Object> hello = new LinkedHashMap<>();
    hello.put("protocol", PROTOCOL);
    hello.put("cells", cells);
    hello.put("reference", ok(reference));
    return hello;
  }

  /** A cell's entry as its raw rows name it: the implementation columns and input_bytes. */
  private static Map<String, Object> entry(Spec.Cell cell, String status, long inputBytes) {
    Versions.Implementation implementation = Versions.implementationOf(cell);
    Map<String, Object> entry = new LinkedHashMap<>();
    entry.put("status", status);
    entry.put("implementation", implementation.name());
    entry.put("implementation_version", implementation.version());
    entry.put("input_bytes", inputBytes);
    return entry;
  }

  /**
   * A timed cell's entry: also output_bytes and pass_length, the calls of one pass through its
   * inputs (the records of a records cell, else 1), which bench rounds a calibrated batch to.
   */
  private static Map<String, Object> ok(TimedSuite.Timer timer) {
    Map<String, Object> entry = entry(timer.entry.cell(), "ok", timer.entry.inputBytes());
    entry.put("output_bytes", timer.work.outputBytes);
    entry.put("pass_length", timer.work.passLength());
    return entry;
  }

  /**
   * Each request's batches in order, one answer line as each ends; a batch that throws is
   * answered with its error and ends its request. The exit status: 0 at the end request, 4 if
   * stdin ends first.
   */
  private static int serve(TimedSuite.Timer[] timers, TimedSuite.Timer reference, BufferedReader requests)
      throws IOException {
    long requestCount = 0;
    long batchCount = 0;
    String line;
    while ((line = requests.readLine()) != null) {
      if (line.isBlank()) {
        continue;
      }
      requestCount++;
      String where = "serve: request " + requestCount;
      JsonNode request = parse(line, where);
      if (request.has("end")) {
        if (request.size() != 1 || !request.get("end").isBoolean() || !request.get("end").asBoolean()) {
          throw new InputError(where + ": an end request is {\"end\": true}");
        }
        long sink = reference.sink;
        for (TimedSuite.Timer timer : timers) {
          sink += timer == null ? 0 : timer.sink;
        }
        Progress.stdout("{\"sink\":" + sink + "}");
        Progress.line("serve: " + batchCount + " batches in " + (requestCount - 1) + " requests; "
            + JitQueue.summary() + "; sink " + sink);
        return Driver.EXIT_OK;
      }
      List<Batch> batches = batches(request, timers, reference, where);
      boolean round = batches.stream().anyMatch(b -> b.timer() == reference)
          && batches.stream().anyMatch(b -> b.timer() != reference);
      for (Batch batch : batches) {
        if (round) {
          JitQueue.awaitIdle();
        }
        long elapsed;
        // What the runtime did meanwhile, read outside the batch's clock: the conductor's
        // warm-up until steady counts a window only if the JIT compiled nothing and this
        // thread had the CPU (README, "Calibration").
        long jitBefore = TimedSuite.Timer.jitMillis();
        long cpuBefore = TimedSuite.Timer.threadCpuNs();
        try {
          elapsed = batch.timer().time(batch.n());
        } catch (RuntimeException e) {
          refuse(where, batch, Driver.reason(e));
          break;
        }
        long cpuAfter = TimedSuite.Timer.threadCpuNs();
        long jitAfter = TimedSuite.Timer.jitMillis();
        batchCount++;
        Progress.stdout("{\"elapsed_ns\":" + Math.max(1, elapsed)
            + (jitBefore < 0 ? "" : ",\"jit_ms\":" + (jitAfter - jitBefore))
            + (cpuBefore < 0 ? "" : ",\"cpu_ns\":" + (cpuAfter - cpuBefore)) + "}");
      }
    }
    Progress.line("serve: the conductor closed the pipe without an end request");
    return Driver.EXIT_ERROR;
  }

  /** A batch not timed: its answer {"error": why}, which ends its request, and a stderr line. */
  private static void refuse(String where, Batch batch, String why) {
    Progress.stdout(Json.write(Map.of("error", why)));
    Progress.line(where + ": " + label(batch.timer()) + ", a batch of " + batch.n() + ": " + why);
  }

  private static JsonNode parse(String line, String where) {
    JsonNode request;
    try {
      request = Json.MAPPER.readTree(line);
    } catch (JsonProcessingException e) {
      throw new InputError(where + " is not a JSON line: " + e.getOriginalMessage());
    }
    if (request == null || !request.isObject()) {
      throw new InputError(where + " is not a JSON object");
    }
    return request;
  }

  /**
   * A batches request, checked whole before any batch runs: {"batches": [[cell, n], ...]}, cell a
   * timed cell's spec index or "reference", n an integer >= 1.
   */
  private static List<Batch> batches(JsonNode request, TimedSuite.Timer[] timers, TimedSuite.Timer reference,
      String where) {
    JsonNode list = request.get("batches");
    if (request.size() != 1 || list == null || !list.isArray() || list.isEmpty()) {
      throw new InputError(where + " is neither {\"batches\": [[cell, n], ...]} nor {\"end\": true}");
    }
    List<Batch> batches = new ArrayList<>(list.size());
    for (JsonNode item : list) {
      String bad = where + ": batch " + item + " is not [cell, n], cell a timed cell's index or \"reference\","
          + " n an integer >= 1";
      if (!item.isArray() || item.size() != 2) {
        throw new InputError(bad);
      }
      JsonNode cell = item.get(0);
      JsonNode n = item.get(1);
      if (!n.isIntegralNumber() || !n.canConvertToLong() || n.asLong() < 1) {
        throw new InputError(bad);
      }
      TimedSuite.Timer timer;
      if (cell.isTextual() && cell.asText().equals(REFERENCE)) {
        timer = reference;
      } else if (cell.isIntegralNumber() && cell.canConvertToInt() && cell.asInt() >= 0 && cell.asInt() < timers.length
          && timers[cell.asInt()] != null) {
        timer = timers[cell.asInt()];
      } else {
        throw new InputError(bad);
      }
      batches.add(new Batch(timer, n.asLong()));
    }
    return batches;
  }

  /** "cell 3 (sign HS256)" or "the drift reference", for stderr. */
  private static String label(TimedSuite.Timer timer) {
    Spec.Cell cell = timer.entry.cell();
    return cell.index() < 0 ? "the drift reference"
        : "cell " + cell.index() + " (" + cell.operation() + " " + cell.variant() + ")";
  }
}
