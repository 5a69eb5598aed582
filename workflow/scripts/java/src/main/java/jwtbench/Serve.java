package jwtbench;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * `serve --spec FILE`: the conductor's worker (workflow/scripts/README.md, "serve"); a
 * cross-check spec's batches and native requests run in JMH's fork ({@link Native}).
 */
final class Serve {
  static final String PROTOCOL = "jwtbench-worker/1";
  static final String REFERENCE = "reference";
  /** The suites with a drift reference. */
  private static final List<String> REFERENCED = List.of("jwt", "hash", "primitive", "harness", "keygen");

  private Serve() {}

  static int run(String specFile) throws Exception {
    Spec spec = Spec.load(specFile);
    System.setOut(System.err); // a library's printing; the protocol writes to the stdout descriptor
    try (Native jmh = spec.crosscheck() ? new Native(spec, specFile) : null) {
      Cells cells = Cells.prepare(spec, specFile);
      Cells.Timed reference = spec.crosscheck() || REFERENCED.contains(spec.suite())
          ? Cells.Reference.served(spec.suite()) : null;
      Map<String, Object> hello = new LinkedHashMap<>();
      hello.put("protocol", PROTOCOL);
      hello.put("cells", cells.entries);
      hello.put("reference", reference == null ? null : Cells.entry(reference));
      if (jmh != null) {
        hello.put("harness", Native.harness());
      }
      Progress.stdout(Json.write(hello));
      Progress.line("serve: " + cells.entries.size() + " cells prepared and checked");
      try {
        return serve(cells, reference, jmh, new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)));
      } finally {
        for (Cells.Served served : cells.served) {
          if (served != null) {
            served.close();
          }
        }
      }
    }
  }

  /** Each request in turn: batches answered one line each as they end, a native request with one line, the end. */
  private static int serve(Cells cells, Cells.Timed reference, Native jmh, BufferedReader requests) throws Exception {
    long count = 0;
    for (String line; (line = requests.readLine()) != null; ) {
      if (line.isBlank()) {
        continue;
      }
      String where = "serve: request " + ++count;
      JsonNode request = parse(line, where);
      if (request.size() == 1 && request.path("end").asBoolean(false)) {
        long sink = reference == null ? 0 : reference.sink;
        for (Cells.Served served : cells.served) {
          sink += served == null ? 0 : served.sink;
        }
        sink += jmh == null ? 0 : jmh.sink();
        Progress.stdout("{\"sink\":" + sink + "}");
        Progress.line("serve: " + (count - 1) + " requests; sink " + sink);
        return Driver.EXIT_OK;
      }
      JsonNode item = request.get("native");
      if (request.size() == 1 && item != null && jmh != null) {
        Object key = key(item.get(0), cells, reference, where);
        if (!item.get(1).isNumber() || !(item.get(1).asDouble() > 0)) {
          throw new InputError(where + ": a native request is {\"native\": [cell, seconds > 0]}");
        }
        Progress.stdout(Json.write(jmh.measure(key, item.get(1).asDouble())));
        continue;
      }
      JsonNode list = request.get("batches");
      if (request.size() != 1 || list == null || !list.isArray() || list.isEmpty()) {
        throw new InputError(where + " is neither {\"batches\": [[cell, n], ...]}, " + (jmh == null ? ""
            : "{\"native\": [cell, seconds]}, ") + "nor {\"end\": true}");
      }
      Object[] keys = new Object[list.size()];
      long[] sizes = new long[list.size()];
      for (int i = 0; i < keys.length; i++) {
        JsonNode batch = list.get(i);
        JsonNode n = batch.path(1);
        if (!batch.isArray() || batch.size() != 2 || !n.isIntegralNumber() || !n.canConvertToLong() || n.asLong() < 1) {
          throw new InputError(where + ": batch " + batch + " is not [cell, n], n an integer >= 1");
        }
        keys[i] = key(batch.get(0), cells, reference, where);
        sizes[i] = n.asLong();
      }
      // A round (reference and cells): JitQueue runs before each batch, outside its clock.
      boolean round = List.of(keys).contains(REFERENCE) && List.of(keys).stream().anyMatch(k -> k != REFERENCE);
      for (int i = 0; i < keys.length; i++) {
        Cells.Served served = keys[i] == REFERENCE ? reference : cells.served[(int) keys[i]];
        String answer;
        try {
          if (jmh != null) {
            answer = jmh.batch(keys[i], sizes[i]);
          } else {
            if (round) {
              JitQueue.awaitIdle();
            }
            answer = Json.write(Cells.answer(served, sizes[i]));
          }
        } catch (Exception e) { // the batch threw: its answer ends the request
          answer = Json.write(Map.of("error", Driver.reason(e)));
        }
        Progress.stdout(answer);
        if (answer.startsWith("{\"error\"")) {
          Progress.line(where + ": cell " + keys[i] + ", a batch of " + sizes[i] + ": " + answer);
          break;
        }
      }
    }
    Progress.line("serve: the conductor closed the pipe without an end request");
    return Driver.EXIT_ERROR;
  }

  /** A request's cell: a served cell's spec index (an Integer) or REFERENCE. */
  private static Object key(JsonNode cell, Cells cells, Cells.Timed reference, String where) {
    if (cell != null && cell.isTextual() && cell.asText().equals(REFERENCE) && reference != null) {
      return REFERENCE;
    }
    if (cell != null && cell.isIntegralNumber() && cell.canConvertToInt() && cell.asInt() >= 0
        && cell.asInt() < cells.served.length && cells.served[cell.asInt()] != null) {
      return cell.asInt();
    }
    throw new InputError(where + ": " + cell + " is neither a served cell's index nor \"reference\"");
  }

  private static JsonNode parse(String line, String where) {
    try {
      JsonNode request = Json.MAPPER.readTree(line);
      if (request != null && request.isObject()) {
        return request;
      }
    } catch (JsonProcessingException e) {
      throw new InputError(where + " is not a JSON line: " + e.getOriginalMessage());
    }
    throw new InputError(where + " is not a JSON object");
  }
}
