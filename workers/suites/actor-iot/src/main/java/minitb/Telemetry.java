package minitb;

/**
 * One reading from a device: temperature and humidity in tenths (405 = 40.5 °C), its sequence
 * number on that device, stamped (monotonic clock) when the sender made and sent it.
 */
record Telemetry(int device, long seq, int temperature, int humidity, long sentNanos,
                 Phase phase) {
}
