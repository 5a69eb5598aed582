package jwtbench;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;

/**
 * A cell's input file (README "Inputs: claims and records"), each item as its JSON tree and the
 * library's claims object (null if the library refused it: `refused` says why, the checks fail).
 */
record Input(List<Item> items, long inputBytes, String refused) {
  record Item(int bytes, JsonNode tree, Object claims) {}

  Item first() {
    return items.get(0);
  }

  /** A claims file: one JSON object. */
  static Input claims(String file, String origin) {
    byte[] bytes = Json.readBytes(file, origin);
    JsonNode tree = Json.parseObject(bytes, origin + " " + file);
    List<Item> items = new ArrayList<>(1);
    String refused = add(items, bytes.length, tree, "the claims");
    return new Input(items, bytes.length, refused);
  }

  /** A transfer body: {"dataset": NAME, "records": [...]}. */
  static Input transferBody(String file, String origin) {
    Input input = claims(file, origin);
    JsonNode body = input.first().tree();
    if (!body.path("dataset").isTextual() || !body.path("records").isArray()) {
      throw new InputError(origin + " " + file + " is not a transfer body ({\"dataset\": NAME, \"records\": [...]})");
    }
    return input;
  }

  /** JSON Lines records; a record's size is its line's bytes without the \n. */
  static Input records(String file, String origin) {
    byte[] data = Json.readBytes(file, origin);
    String where = origin + " " + file;
    if (data.length == 0) {
      throw new InputError(where + " is empty (JSON Lines records expected)");
    }
    if (data[data.length - 1] != '\n') {
      throw new InputError(where + " does not end with a newline (JSON Lines records expected)");
    }
    List<Item> items = new ArrayList<>();
    long total = 0;
    String refused = null;
    for (int start = 0; start < data.length; ) {
      int end = start;
      while (data[end] != '\n') {
        end++;
      }
      int line = items.size() + 1;
      if (end == start) {
        throw new InputError(where + " line " + line + " is blank");
      }
      JsonNode tree = Json.parseObject(data, start, end - start, where + " line " + line);
      String problem = add(items, end - start, tree, "record " + line);
      if (refused == null) {
        refused = problem;
      }
      total += end - start;
      start = end + 1;
    }
    return new Input(items, Json.roundedMean(total, items.size()), refused);
  }

  /** Appends the item; returns why the library refused its claims, or null. */
  private static String add(List<Item> items, int bytes, JsonNode tree, String what) {
    Object claims = null;
    String refused = null;
    try {
      claims = JwsLibrary.current().claims(Json.toMap(tree));
    } catch (IllegalArgumentException e) {
      refused = JwsLibrary.current().name() + " refused " + what + ": " + e.getMessage();
    }
    items.add(new Item(bytes, tree, claims));
    return refused;
  }
}
