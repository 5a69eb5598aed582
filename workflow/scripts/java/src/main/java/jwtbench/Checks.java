package jwtbench;

import java.security.Key;
import java.util.ArrayList;
import java.util.List;

/**
 * The checks a cell passes before anything is timed (README "Timing rules", "The checks before
 * timing"), once per algorithm, key pair and input; for suite jwt on records, the token pool too.
 */
final class Checks {
  private Checks() {}

  sealed interface Outcome permits Passed, NotPassed {}

  /**
   * Passed: the library bound to the keys, the first claims' token and, when asked for, the
   * pool (token i signs item i).
   */
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

  static Outcome run(String alg, Key signingKey, Key verifyingKey, byte[] verifyingKeyBytes,
      Input input, boolean pool) {
    Jws jws;
    try {
      jws = Jws.of(alg, signingKey, verifyingKey);
    } catch (UnsupportedAlgorithm e) {
      return new NotPassed("unsupported", e.getMessage());
    } catch (RuntimeException e) {
      return failed(JwsLibrary.current().name() + " refused the key: " + describe(e));
    }
    if (input.refused != null) {
      return failed(input.refused);
    }
    Input.Item first = input.first();
    String token;
    try {
      token = jws.sign(first.claims());
    } catch (RuntimeException e) {
      return failed("sign threw " + describe(e));
    }
    Object verified;
    try {
      verified = jws.verify(token);
    } catch (RuntimeException e) {
      return failed("the signed token does not verify: " + describe(e));
    }
    if (!Claims.same(verified, first.tree())) {
      return failed("verify did not yield the input claims");
    }
    if (!rejects(jws, Forgeries.flippedSignatureBit(token))) {
      return failed("a token with a flipped signature bit was accepted");
    }
    if (!rejects(jws, Forgeries.unsigned(token))) {
      return failed("an alg:none token was accepted");
    }
    if (!rejects(jws, Forgeries.otherAlgorithm(token, alg, verifyingKeyBytes))) {
      return failed("a token naming another algorithm was accepted");
    }
    if (JwsLibrary.current().noDecode() == null) { // a library without decode: its decode cells are unsupported
      try {
        if (!Claims.same(Jws.decode(token), first.tree())) {
          return failed("decode did not yield the input claims");
        }
      } catch (RuntimeException e) {
        return failed("decode threw " + describe(e));
      }
    }
    return pool ? signPool(jws, token, input) : new Passed(jws, token, List.of(token));
  }

  /**
   * Signs every further item once and checks that each token verifies (algorithm pinned) to
   * exactly its item's claims; the first token is the one already checked.
   */
  private static Outcome signPool(Jws jws, String firstToken, Input input) {
    List<String> tokens = new ArrayList<>(input.items.size());
    tokens.add(firstToken);
    for (int i = 1; i < input.items.size(); i++) {
      Input.Item item = input.items.get(i);
      String what = "record " + (i + 1);
      String token;
      Object verified;
      try {
        token = jws.sign(item.claims());
      } catch (RuntimeException e) {
        return failed("sign of " + what + " threw " + describe(e));
      }
      try {
        verified = jws.verify(token);
      } catch (RuntimeException e) {
        return failed("the token of " + what + " does not verify: " + describe(e));
      }
      if (!Claims.same(verified, item.tree())) {
        return failed("verify of " + what + "'s token did not yield its claims");
      }
      tokens.add(token);
    }
    return new Passed(jws, firstToken, tokens);
  }
}
