package jwtbench;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.security.Key;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The JWS library a driver times, behind one small adapter (workflow/scripts/README.md, "A
 * further library of a language"); JWTBENCH_LIBRARY names it, unset fusionauth-jwt.
 */
interface JwsLibrary {
  String DEFAULT = "fusionauth-jwt";
  /** Every library this harness has an adapter for, the language's own first. */
  List<String> NAMES = List.of(DEFAULT, "nimbus-jose-jwt", "jjwt");
  /** The artifactIds only one library brings (envs/java/pom.xml): `versions` lists the current one's alone. */
  Map<String, Set<String>> ARTIFACTS = Map.of(
      "fusionauth-jwt", Set.of("fusionauth-jwt"),
      "nimbus-jose-jwt", Set.of("nimbus-jose-jwt", "jcip-annotations", "tink", "gson", "jsr305",
          "error_prone_annotations"),
      "jjwt", Set.of("jjwt-api", "jjwt-impl", "jjwt-jackson"));

  static String requested() {
    String name = System.getenv("JWTBENCH_LIBRARY");
    return name == null || name.isEmpty() ? DEFAULT : name;
  }

  /** The adapter of this process; {@link Driver} checks the name first. */
  static JwsLibrary current() {
    return Current.LIBRARY;
  }

  /** Holds the process's adapter, made on first use. */
  final class Current {
    static final JwsLibrary LIBRARY = switch (requested()) {
      case "nimbus-jose-jwt" -> new NimbusJoseJwt();
      case "jjwt" -> new Jjwt();
      default -> new FusionauthJwt();
    };

    private Current() {}
  }

  /** Its name: versions' implementation and every row's. */
  String name();

  /** Its version as loaded (read from its jar). */
  String version();

  /** Libraries it loads whose jars carry no pom.properties: artifactId -> version. */
  default Map<String, String> unlistedLibraries() {
    return Map.of();
  }

  /** What computes its signatures and MACs, for versions' crypto_backend: by default the JDK's JCA. */
  default String cryptoBackend() {
    return Versions.jcaProviders(Jws.CONTRACT_ALGORITHMS);
  }

  /** A PKCS#8 or SPKI PEM as the key object `bind` takes; an InputError naming `where` if not. */
  default Key pem(byte[] file, Keys.Role role, String alg, String where) {
    String keyAlgorithm = alg.startsWith("ES") ? "EC" : alg.equals("EdDSA") ? "Ed25519" : "RSA";
    return role == Keys.Role.SIGNING ? Jca.privateKey(file, keyAlgorithm, where)
        : Jca.publicKey(file, keyAlgorithm, where);
  }

  /** The library's claims object for a parsed JSON object; IllegalArgumentException when it refuses a claim. */
  Object claims(Map<String, Object> claims);

  /** The library bound to `alg` and its keys (either may be null); its exceptions on a refused key pass through. */
  Jws bind(String alg, Key signingKey, Key verifyingKey) throws UnsupportedAlgorithm;

  /** Why the library cannot decode without verifying (decode cells: unsupported); null if it can. */
  default String noDecode() {
    return null;
  }

  /** The claims of a token without checking its signature, through the library's own API. */
  Object decode(String token);

  /** Whether something {@link Jws#verify} threw is the library's verdict (exit 1) rather than its failure (exit 4). */
  boolean isInvalidToken(Throwable thrown);

  /** The claims as JSON, as the library writes them: what `verify` prints. */
  String toJson(Object claims);

  /** Whether the library's claims are exactly `expected` as JSON trees (the checks). */
  default boolean same(Object claims, JsonNode expected) {
    try {
      return Json.MAPPER.readTree(toJson(claims)).equals(expected);
    } catch (IOException e) {
      throw new IllegalStateException(name() + " wrote claims that are not JSON", e);
    }
  }

  /** One claim's value as the library hands it out (suite transfer's receipts). */
  Object claim(Object claims, String name);

  /** A cheap count of the claims, folded into the sink per call so no call is dead code. */
  int fold(Object claims);
}
