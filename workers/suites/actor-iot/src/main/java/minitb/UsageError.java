package minitb;

/** A bad command line (exit 2). */
final class UsageError extends RuntimeException {
  private static final long serialVersionUID = 1L;

  UsageError(String message) {
    super(message);
  }
}
