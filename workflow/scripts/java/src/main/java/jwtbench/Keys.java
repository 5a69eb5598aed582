package jwtbench;

import java.nio.charset.StandardCharsets;
import java.security.Key;
import java.security.interfaces.ECKey;
import java.security.interfaces.EdECKey;
import java.security.interfaces.RSAKey;
import java.util.OptionalInt;
import javax.crypto.SecretKey;
import javax.crypto.spec.SecretKeySpec;

/** Key files into key objects before anything is timed: a SecretKeySpec, or a PEM through {@link JwsLibrary#pem}. */
final class Keys {
  enum Role {
    SIGNING("PRIVATE KEY", "a PKCS#8 private key PEM"),
    VERIFYING("PUBLIC KEY", "an SPKI public key PEM");

    final String label;
    final String what;

    Role(String label, String what) {
      this.label = label;
      this.what = what;
    }
  }

  private Keys() {}

  /** The key in `bytes` (read from `file`, named by `origin` in errors) for `alg` and `role`. */
  static Key parse(String alg, Role role, byte[] bytes, String file, String origin) {
    String where = origin + " " + file;
    if (Jws.isHmac(alg)) {
      if (bytes.length == 0) {
        throw new InputError(where + " is empty (an HMAC secret is expected)");
      }
      return new SecretKeySpec(bytes, "HMAC");
    }
    String text = new String(bytes, StandardCharsets.US_ASCII);
    if (!text.contains("-----BEGIN " + role.label + "-----")) {
      throw new InputError(where + " is not " + role.what + " (no BEGIN " + role.label + " line)");
    }
    return JwsLibrary.current().pem(bytes, role, alg, where);
  }

  static Key load(String alg, Role role, String file, String origin) {
    return parse(alg, role, Json.readBytes(file, origin), file, origin);
  }

  /**
   * The key's size as the spec's key_bits counts it: the secret's bits, the RSA modulus, the
   * EC field size, 256 for Ed25519; empty when it cannot be told.
   */
  static OptionalInt bits(Key key) {
    if (key instanceof SecretKey secret) {
      return OptionalInt.of(secret.getEncoded().length * 8);
    }
    if (key instanceof RSAKey rsa) {
      return OptionalInt.of(rsa.getModulus().bitLength());
    }
    if (key instanceof ECKey ec) {
      return OptionalInt.of(ec.getParams().getCurve().getField().getFieldSize());
    }
    if (key instanceof EdECKey ed && "Ed25519".equalsIgnoreCase(ed.getParams().getName())) {
      return OptionalInt.of(256);
    }
    return OptionalInt.empty();
  }
}
