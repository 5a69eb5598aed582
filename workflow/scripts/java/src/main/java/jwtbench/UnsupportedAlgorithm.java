package jwtbench;

/** fusionauth-jwt has no implementation of a JWS algorithm (exit status 3, status unsupported). */
final class UnsupportedAlgorithm extends Exception {
  private static final long serialVersionUID = 1L;

  UnsupportedAlgorithm(String message) {
    super(message);
  }
}
