package jwtbench;

import java.security.Key;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The JWS library a driver times, behind one small adapter (workflow/scripts/README.md, "A
 * further library of a language"). The harness (CLI, timing loop, stopping rule, raw samples,
 * verify-batch) is shared; only these calls differ. JWTBENCH_LIBRARY names the adapter of the
 * process; unset, it is the language's own library, fusionauth-jwt.
 *
 * <p>Claims are the library's own object (an Object to the harness): made once from Java's Map
 * before anything is timed ({@link #claims}), signed by {@link Jws#sign}, returned by {@link
 * Jws#verify} and {@link #decode}. Each adapter lives in a file named after its library.
 */
interface JwsLibrary {
  /** The language's own library: the driver workflow/scripts/java/ times it. */
  String DEFAULT = "fusionauth-jwt";
  /** Every library this harness has an adapter for, the language's own first. */
  List<String> NAMES = List.of(DEFAULT, "nimbus-jose-jwt", "jjwt");
  /**
   * The artifactIds on the class path that only one library brings (itself and what it alone
   * needs, envs/java/pom.xml): `versions` lists the current library's and none of the others'.
   */
  Map<String, Set<String>> ARTIFACTS = Map.of(
      "fusionauth-jwt", Set.of("fusionauth-jwt"),
      "nimbus-jose-jwt", Set.of("nimbus-jose-jwt", "jcip-annotations", "tink", "gson", "jsr305",
          "error_prone_annotations"),
      "jjwt", Set.of("jjwt-api", "jjwt-impl", "jjwt-jackson"));

  /** The adapter of a library name; null if there is none. */
  static JwsLibrary named(String name) {
    return switch (name) {
      case "fusionauth-jwt" -> new FusionauthJwt();
      case "nimbus-jose-jwt" -> new NimbusJoseJwt();
      case "jjwt" -> new Jjwt();
      default -> null;
    };
  }

  /** JWTBENCH_LIBRARY, or the default when it is unset or empty. */
  static String requested() {
    String name = System.getenv("JWTBENCH_LIBRARY");
    return name == null || name.isEmpty() ? DEFAULT : name;
  }

  /** The adapter of this process (JWTBENCH_LIBRARY); {@link Driver} checks the name first. */
  static JwsLibrary current() {
    return Current.LIBRARY;
  }

  /** Holds the process's adapter, made on first use. */
  final class Current {
    static final JwsLibrary LIBRARY = named(requested());

    private Current() {}
  }

  /** Its name: versions' implementation and every row's (suites jwt, tokensize, transfer, percall). */
  String name();

  /** Its version as loaded (read from its jar). */
  String version();

  /**
   * Libraries it loads whose jars carry no Maven pom.properties (so versions' scan of the class
   * path cannot see them): artifactId -> version.
   */
  default Map<String, String> unlistedLibraries() {
    return Map.of();
  }

  /** What computes its signatures and MACs, for versions' crypto_backend. */
  String cryptoBackend();

  /**
   * A PKCS#8 (`role` SIGNING) or SPKI (VERIFYING) PEM, already known to carry the role's BEGIN
   * line, as the key object `bind` takes for `alg`; an InputError naming `where` if it is not
   * one. By default the JDK's KeyFactory (a library without a PEM reader of its own).
   */
  default Key pem(byte[] file, Keys.Role role, String alg, String where) {
    String keyAlgorithm = alg.startsWith("ES") ? "EC" : alg.equals("EdDSA") ? "Ed25519" : "RSA";
    return role == Keys.Role.SIGNING ? Jca.privateKey(file, keyAlgorithm, where)
        : Jca.publicKey(file, keyAlgorithm, where);
  }

  /**
   * The library's claims object for a JSON object parsed into Java's objects (made before
   * timing: what sign hands to the library); IllegalArgumentException when the library refuses
   * a claim.
   */
  Object claims(Map<String, Object> claims);

  /**
   * The library bound to one algorithm and its keys, once (either key may be null);
   * UnsupportedAlgorithm if the library lacks `alg` (a contract name). The library's own
   * exceptions on a key it refuses pass through.
   */
  Jws bind(String alg, Key signingKey, Key verifyingKey) throws UnsupportedAlgorithm;

  /** Why the library cannot decode without verifying (decode cells: unsupported); null if it can. */
  default String noDecode() {
    return null;
  }

  /** The claims of a token without checking its signature, through the library's own API. */
  Object decode(String token);

  /**
   * Whether something {@link Jws#verify} threw is the library's verdict that the token is
   * invalid (exit 1, reject); anything else is a failure of the library (exit 4, error).
   */
  boolean isInvalidToken(Throwable thrown);

  /** The claims as JSON, as the library writes them: what `verify` prints. */
  String toJson(Object claims);

  /** One claim's value as the library hands it out (suite transfer reads its receipts so). */
  Object claim(Object claims, String name);

  /** A cheap count of the claims, folded into the sink per call so no call is dead code. */
  int fold(Object claims);
}
