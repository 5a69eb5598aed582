package jwtbench;

/**
 * A checked exception a library's call declares (Nimbus's ParseException, JOSEException,
 * BadJOSEException), carried unchecked out of {@link Jws}'s calls; its cause is the library's
 * own exception, which {@link JwsLibrary#isInvalidToken} judges and {@link Driver#reason} names.
 */
final class LibraryException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  LibraryException(Exception cause) {
    super(cause.getMessage(), cause);
  }

  /** The library's own exception when `thrown` carries one, else `thrown`. */
  static Throwable unwrap(Throwable thrown) {
    return thrown instanceof LibraryException && thrown.getCause() != null ? thrown.getCause() : thrown;
  }
}
