package minitb;

/** A run that must not report a result: wrong alerts (exit 3) or a timeout (exit 4). */
final class Failure extends RuntimeException {
  private static final long serialVersionUID = 1L;
  static final int WRONG_ALERTS = 3;
  static final int TIMED_OUT = 4;

  final int exitCode;

  Failure(int exitCode, String message) {
    super(message);
    this.exitCode = exitCode;
  }
}
