package minitb;

/**
 * One reading from a device: temperature and humidity in tenths (405 = 40.5 °C), its sequence
 * number on that device, stamped (monotonic clock) when the sender made and sent it. The rule
 * chain keeps every reading, so a message carries one stamp more, and only one: when the
 * device's step handed it on (`handedNanos`, written by that step's thread and read by the
 * rule chain's, which the mailbox or actor hand-off orders after it). The other stages are
 * timed where they happen (`Core`).
 */
final class Telemetry {
  private final int device;
  private final long seq;
  private final int temperature;
  private final int humidity;
  private final long sentNanos;
  private final Phase phase;
  long handedNanos;

  Telemetry(int device, long seq, int temperature, int humidity, long sentNanos, Phase phase) {
    this.device = device;
    this.seq = seq;
    this.temperature = temperature;
    this.humidity = humidity;
    this.sentNanos = sentNanos;
    this.phase = phase;
  }

  int device() {
    return device;
  }

  long seq() {
    return seq;
  }

  int temperature() {
    return temperature;
  }

  int humidity() {
    return humidity;
  }

  long sentNanos() {
    return sentNanos;
  }

  Phase phase() {
    return phase;
  }
}
