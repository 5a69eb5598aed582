package jwtbench;

import java.nio.charset.StandardCharsets;
import java.security.Key;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * jwtbench's java driver (workflow/scripts/README.md): fusionauth-jwt, or the further library
 * JWTBENCH_LIBRARY names ({@link JwsLibrary}). Exit statuses as the contract says, plus 70 for
 * anything else (one line on stderr, never a stack trace: nothing printed may hold key material).
 */
public final class Driver {
  static final String LANGUAGE = "java";
  static final int EXIT_OK = 0;
  static final int EXIT_INVALID = 1;
  static final int EXIT_USAGE = 2;
  static final int EXIT_UNSUPPORTED = 3;
  static final int EXIT_ERROR = 4;
  static final int EXIT_INTERNAL = 70;

  private static final String USAGE = String.join("\n",
      "usage: run versions",
      "       run sign   --alg ALG --key FILE --payload FILE",
      "       run sign-batch --cases FILE",
      "       run verify --alg ALG --key FILE --token FILE [--signature-only]",
      "       run verify-batch --cases FILE",
      "       run serve  --spec FILE",
      "       run coldstart --hmac FILE --rsa FILE --payload FILE");

  private static final Map<String, List<String>> COMMANDS = Map.of(
      "versions", List.of(),
      "sign", List.of("alg", "key", "payload"),
      "sign-batch", List.of("cases"),
      "verify", List.of("alg", "key", "token"),
      "verify-batch", List.of("cases"),
      "serve", List.of("spec"),
      "coldstart", List.of("hmac", "rsa", "payload"));

  /** Flags that take no value and may be left out (present: mapped to "true"). */
  private static final Map<String, List<String>> SWITCHES = Map.of(
      "verify", List.of("signature-only"));

  private Driver() {}

  public static void main(String[] args) {
    int status;
    try {
      status = run(args);
    } catch (InputError e) {
      Progress.line("error: " + e.getMessage());
      status = EXIT_USAGE;
    } catch (UnsupportedAlgorithm e) {
      Progress.line("unsupported: " + e.getMessage());
      status = EXIT_UNSUPPORTED;
    } catch (Throwable e) { // Errors too (StackOverflowError, OutOfMemoryError): never a stack trace
      Progress.line("internal error: " + reason(e));
      status = EXIT_INTERNAL;
    }
    // Exits even if a library left a non-daemon thread behind (the HTTP server's dispatcher).
    System.exit(status);
  }

  private static int run(String[] args) throws Exception {
    if (args.length == 0) {
      throw new InputError("missing subcommand\n" + USAGE);
    }
    String library = JwsLibrary.requested();
    if (!JwsLibrary.NAMES.contains(library)) {
      throw new InputError("JWTBENCH_LIBRARY=" + library + " is not a library of this driver ("
          + String.join(", ", JwsLibrary.NAMES) + ")");
    }
    String command = args[0];
    if (!COMMANDS.containsKey(command)) {
      throw new InputError("unknown subcommand \"" + command + "\"\n" + USAGE);
    }
    Map<String, String> flags = flags(command, args);
    return switch (command) {
      case "versions" -> {
        Progress.stdout(Versions.json());
        yield EXIT_OK;
      }
      case "sign" -> sign(flags);
      case "sign-batch" -> Batch.sign(flags.get("cases"));
      case "verify" -> verify(flags);
      case "verify-batch" -> Batch.verify(flags.get("cases"));
      case "serve" -> Serve.run(flags.get("spec"));
      case "coldstart" -> coldstart(flags);
      default -> throw new IllegalStateException(command);
    };
  }

  /** `--name value` or `--name=value`; every flag of the command is required, none twice. */
  private static Map<String, String> flags(String command, String[] args) {
    List<String> allowed = COMMANDS.get(command);
    Map<String, String> values = new LinkedHashMap<>();
    for (int i = 1; i < args.length; i++) {
      String arg = args[i];
      if (!arg.startsWith("--") || arg.length() == 2) {
        throw new InputError(command + ": unexpected argument \"" + arg + "\"\n" + USAGE);
      }
      int eq = arg.indexOf('=');
      String name = eq < 0 ? arg.substring(2) : arg.substring(2, eq);
      if (eq < 0 && SWITCHES.getOrDefault(command, List.of()).contains(name)) {
        values.put(name, "true");
        continue;
      }
      if (!allowed.contains(name)) {
        throw new InputError(command + ": unknown flag --" + name + "\n" + USAGE);
      }
      if (values.containsKey(name)) {
        throw new InputError(command + ": flag --" + name + " given twice");
      }
      String value;
      if (eq >= 0) {
        value = arg.substring(eq + 1);
      } else if (i + 1 < args.length) {
        value = args[++i];
      } else {
        throw new InputError(command + ": flag --" + name + " needs a value");
      }
      if (value.isEmpty()) {
        throw new InputError(command + ": flag --" + name + " needs a non-empty value");
      }
      values.put(name, value);
    }
    for (String name : allowed) {
      if (!values.containsKey(name)) {
        throw new InputError(command + ": missing flag --" + name + "\n" + USAGE);
      }
    }
    String alg = values.get("alg");
    if (alg != null && !Jws.CONTRACT_ALGORITHMS.contains(alg)) {
      throw new InputError(command + ": --alg " + alg + " is not a JWS algorithm name ("
          + String.join(", ", Jws.CONTRACT_ALGORITHMS) + ")");
    }
    return values;
  }

  /** A payload file's claims as the library's claims object; an InputError naming `origin` and the file. */
  static Object payload(String file, String origin) {
    Input input = Input.claims(file, origin);
    if (input.refused() != null) {
      throw new InputError(origin + " " + file + ": " + input.refused());
    }
    return input.first().claims();
  }

  /** The library bound to one key; the library refusing the key is an input error. */
  private static Jws bind(String alg, Key signingKey, Key verifyingKey, String file) throws UnsupportedAlgorithm {
    try {
      return Jws.of(alg, signingKey, verifyingKey);
    } catch (RuntimeException e) {
      throw new InputError(JwsLibrary.current().name() + " refused --key " + file + " for " + alg + ": " + e.getMessage());
    }
  }

  private static int sign(Map<String, String> flags) throws UnsupportedAlgorithm {
    String alg = flags.get("alg");
    Key key = Keys.load(alg, Keys.Role.SIGNING, flags.get("key"), "--key");
    Object claims = payload(flags.get("payload"), "--payload");
    Progress.stdout(bind(alg, key, null, flags.get("key")).sign(claims));
    return EXIT_OK;
  }

  private static int verify(Map<String, String> flags) throws UnsupportedAlgorithm {
    String alg = flags.get("alg");
    Key key = Keys.load(alg, Keys.Role.VERIFYING, flags.get("key"), "--key");
    String token = token(flags.get("token"), "--token");
    Jws jws = bind(alg, null, key, flags.get("key"));
    if (flags.containsKey("signature-only")) {
      return verifySignatureOnly(jws, alg, token, flags.get("token"));
    }
    Object claims;
    try {
      claims = jws.verify(token);
    } catch (Throwable e) { // every Throwable: a hostile token may cause an Error too
      boolean invalid = JwsLibrary.current().isInvalidToken(e);
      Progress.line((invalid ? "invalid token: " : "error: ") + reason(e));
      return invalid ? EXIT_INVALID : EXIT_ERROR;
    }
    Progress.stdout(JwsLibrary.current().toJson(claims));
    return EXIT_OK;
  }

  /** A token file's text, surrounding whitespace stripped (invalid UTF-8 becomes U+FFFD). */
  static String token(String file, String origin) {
    return new String(Json.readBytes(file, origin), StandardCharsets.UTF_8).strip();
  }

  /**
   * What went wrong, in one line of at most 300 characters: type and message, and the cause's
   * type only (its message may quote the token: Jackson's locations do).
   */
  static String reason(Throwable thrown) {
    Throwable e = LibraryException.unwrap(thrown);
    String text = e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage())
        + (e.getCause() == null ? "" : " (cause: " + e.getCause().getClass().getSimpleName() + ")");
    text = text.replaceAll("\\s+", " ").strip();
    if (text.length() <= 300) {
      return text;
    }
    return text.substring(0, Character.isHighSurrogate(text.charAt(299)) ? 299 : 300);
  }

  /** `verify --signature-only`: the payload bytes exactly as signed on stdout, nothing else. */
  private static int verifySignatureOnly(Jws jws, String alg, String token, String file) {
    byte[] payload;
    try {
      payload = jws.verifySignatureOnly(alg, token);
    } catch (RuntimeException thrown) {
      Throwable e = LibraryException.unwrap(thrown);
      Progress.line("verify: invalid JWS " + file + ": " + e.getClass().getSimpleName()
          + (e.getMessage() == null ? "" : ": " + e.getMessage()));
      return EXIT_INVALID;
    }
    Progress.stdoutBytes(payload);
    return EXIT_OK;
  }

  /** Suite coldstart's whole process: an HS256 and an RS256 token, one per line. */
  private static int coldstart(Map<String, String> flags) throws UnsupportedAlgorithm {
    Object claims = payload(flags.get("payload"), "--payload");
    Key hmac = Keys.load("HS256", Keys.Role.SIGNING, flags.get("hmac"), "--hmac");
    Key rsa = Keys.load("RS256", Keys.Role.SIGNING, flags.get("rsa"), "--rsa");
    String hs256 = bind("HS256", hmac, null, flags.get("hmac")).sign(claims);
    String rs256 = bind("RS256", rsa, null, flags.get("rsa")).sign(claims);
    Progress.stdout(hs256 + "\n" + rs256);
    return EXIT_OK;
  }
}
