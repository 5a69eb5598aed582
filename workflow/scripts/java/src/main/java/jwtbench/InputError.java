package jwtbench;

/** A usage or input error (exit status 2); the message names the flag or file, never a file's contents. */
final class InputError extends RuntimeException {
  private static final long serialVersionUID = 1L;

  InputError(String message) {
    super(message);
  }
}
