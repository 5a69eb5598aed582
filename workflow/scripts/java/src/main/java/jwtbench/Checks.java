package jwtbench;

import java.security.Key;
import java.util.ArrayList;
import java.util.List;

/** README "The checks before timing"; for suite jwt on records, the token pool too. */
final class Checks {
  private Checks() {}

  sealed interface Outcome permits Passed, NotPassed {}

  /** Passed: the library bound to the keys, the first claims' token and the pool (token i signs item i). */
  record Passed(Jws jws, String token, List<String> pool) implements Outcome {}

  /** status "unsupported" or "failed", and why. */
  record NotPassed(String status, String reason) implements Outcome {}

  private static NotPassed failed(String reason) {
    return new NotPassed("failed", reason);
  }

  private static String describe(RuntimeException e) {
    return e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
  }

  private static boolean rejects(Jws jws, String token) {
    try {
      jws.verify(token);
      return false;
    } catch (RuntimeException e) {
      return true;
    }
  }

  static Outcome run(String alg, Key signingKey, Key verifyingKey, byte[] verifyingKeyBytes, Input input, boolean pool) {
    JwsLibrary library = JwsLibrary.current();
    Jws jws;
    try {
      jws = Jws.of(alg, signingKey, verifyingKey);
    } catch (UnsupportedAlgorithm e) {
      return new NotPassed("unsupported", e.getMessage());
    } catch (RuntimeException e) {
      return failed(library.name() + " refused the key: " + describe(e));
    }
    if (input.refused() != null) {
      return failed(input.refused());
    }
    List<String> tokens = new ArrayList<>();
    // The first item always; with a pool, every further item signed once and checked likewise.
    for (int i = 0; i < (pool ? input.items().size() : 1); i++) {
      Input.Item item = input.items().get(i);
      String what = i == 0 ? "the first claims" : "record " + (i + 1);
      String token;
      try {
        token = jws.sign(item.claims());
      } catch (RuntimeException e) {
        return failed("sign of " + what + " threw " + describe(e));
      }
      try {
        if (!library.same(jws.verify(token), item.tree())) {
          return failed("verify of " + what + "'s token did not yield its claims");
        }
      } catch (RuntimeException e) {
        return failed("the token of " + what + " does not verify: " + describe(e));
      }
      tokens.add(token);
    }
    String token = tokens.get(0);
    if (!rejects(jws, Forgeries.flippedSignatureBit(token))) {
      return failed("a token with a flipped signature bit was accepted");
    }
    if (!rejects(jws, Forgeries.unsigned(token))) {
      return failed("an alg:none token was accepted");
    }
    if (!rejects(jws, Forgeries.otherAlgorithm(token, alg, verifyingKeyBytes))) {
      return failed("a token naming another algorithm was accepted");
    }
    if (library.noDecode() == null) { // a library without decode: its decode cells are unsupported
      try {
        if (!library.same(library.decode(token), input.first().tree())) {
          return failed("decode did not yield the input claims");
        }
      } catch (RuntimeException e) {
        return failed("decode threw " + describe(e));
      }
    }
    return new Passed(jws, token, tokens);
  }
}
