package minitb;

/**
 * One reading from a device: temperature and humidity in tenths (405 = 40.5 °C), its sequence
 * number on that device, stamped (monotonic clock) when the sender made and sent it, and as it
 * passes each stage (`at`, indexed by `Phase.STAMPS`: written by the one thread handling it at
 * that step, read when it completes).
 */
record Telemetry(int device, long seq, int temperature, int humidity, long sentNanos,
                 Phase phase, long[] at) {
}
