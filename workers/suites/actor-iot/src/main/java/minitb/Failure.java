package minitb;

/**
 * A run that must not report a result: wrong alerts (exit 5) or a timeout (exit 6); the JVM
 * itself exits with 3 on running out of heap (-XX:+ExitOnOutOfMemoryError).
 */
final class Failure extends RuntimeException {
  private static final long serialVersionUID = 1L;
  static final int WRONG_ALERTS = 5;
  static final int TIMED_OUT = 6;

  final int exitCode;

  Failure(int exitCode, String message) {
    super(message);
    this.exitCode = exitCode;
  }
}
