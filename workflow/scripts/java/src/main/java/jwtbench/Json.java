package jwtbench;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/** Reading files and JSON with Jackson; every problem an {@link InputError} naming the file, never its contents. */
final class Json {
  /** The driver's own mapper: strict about trailing content, numbers as Jackson reads them. */
  static final ObjectMapper MAPPER =
      new ObjectMapper().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

  private Json() {}

  static byte[] readBytes(String file, String origin) {
    try {
      return Files.readAllBytes(Path.of(file));
    } catch (NoSuchFileException e) {
      throw new InputError("cannot read " + origin + " " + file + ": no such file");
    } catch (AccessDeniedException e) {
      throw new InputError("cannot read " + origin + " " + file + ": permission denied");
    } catch (IOException | RuntimeException e) {
      throw new InputError("cannot read " + origin + " " + file + ": " + e.getMessage());
    }
  }

  /** `bytes[offset, offset + length)` as a JSON object; `where` names it in errors. */
  static JsonNode parseObject(byte[] bytes, int offset, int length, String where) {
    JsonNode node;
    try {
      node = MAPPER.readTree(bytes, offset, length);
    } catch (JsonProcessingException e) {
      throw new InputError(where + " is not valid JSON: " + e.getOriginalMessage());
    } catch (IOException e) {
      throw new InputError(where + " cannot be parsed: " + e.getMessage());
    }
    if (node == null || !node.isObject()) {
      throw new InputError(where + " is not a JSON object");
    }
    return node;
  }

  static JsonNode parseObject(byte[] bytes, String where) {
    return parseObject(bytes, 0, bytes.length, where);
  }

  /** A JSON object as Java's own object: a LinkedHashMap of String, Number, Boolean, List, Map. */
  @SuppressWarnings("unchecked")
  static Map<String, Object> toMap(JsonNode object) {
    return MAPPER.convertValue(object, LinkedHashMap.class);
  }

  static String write(Object value) {
    try {
      return MAPPER.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write JSON: " + e.getOriginalMessage(), e);
    }
  }

  /** The mean of non-negative integers rounded to the nearest integer, halves up (exact). */
  static long roundedMean(long sum, int count) {
    return (2 * sum + count) / (2L * count);
  }
}
