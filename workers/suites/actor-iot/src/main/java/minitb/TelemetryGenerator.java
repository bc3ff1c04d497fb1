package minitb;

import java.util.SplittableRandom;

/**
 * A device's readings, deterministic: one seeded stream per device, so a run with the same seed
 * sends the same data whatever the threads do. The generator decides which readings are
 * abnormal (and counts them into the phase's expected alerts); the rule chain, which never sees
 * that decision, must find exactly those.
 */
final class TelemetryGenerator {
  /** Alert above 40.0 °C; normal readings go up to exactly this value. */
  static final int TEMPERATURE_LIMIT = 400;
  /** Alert below 20.0 %; normal readings go down to exactly this value. */
  static final int HUMIDITY_FLOOR = 200;
  static final int HOT_PERCENT = 2;
  static final int DRY_PERCENT = 1;

  private final int device;
  private final SplittableRandom random;
  private long seq;

  TelemetryGenerator(long seed, int device) {
    this.device = device;
    this.random = new SplittableRandom(seed * 1_000_003L + device);
  }

  Telemetry next(Phase phase) {
    boolean hot = random.nextInt(100) < HOT_PERCENT;
    boolean dry = random.nextInt(100) < DRY_PERCENT;
    int temperature = hot
        ? random.nextInt(TEMPERATURE_LIMIT + 1, TEMPERATURE_LIMIT + 150)
        : random.nextInt(150, TEMPERATURE_LIMIT + 1);
    int humidity = dry
        ? random.nextInt(50, HUMIDITY_FLOOR)
        : random.nextInt(HUMIDITY_FLOOR, 900);
    phase.expectAlerts((hot ? 1 : 0) + (dry ? 1 : 0));
    return new Telemetry(device, seq++, temperature, humidity, System.nanoTime(), phase);
  }
}
