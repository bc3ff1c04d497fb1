package minitb;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What every mode runs: the devices' state, the rule chain and the in-memory stores. The modes
 * differ only in which threads run the two steps, the device's and the rule chain's.
 */
final class Core {
  // The seed's platform logged every message at info (its biggest cost, 68,073 msg/s against
  // 714,286 with the level raised): --log-level info does the same, warn logs none of it.
  private static final Logger LOG = LoggerFactory.getLogger(Core.class);
  private final Device[] devices;
  private final RuleChain ruleChain;
  private final AtomicBoolean reportedFailure = new AtomicBoolean();

  Core(int devices, boolean wrongRule) {
    this.devices = new Device[devices];
    for (int id = 0; id < devices; id++) {
      this.devices[id] = new Device();
    }
    this.ruleChain = new RuleChain(devices, wrongRule);
  }

  /** The device's step; false when the message failed there (and was counted). */
  boolean device(Telemetry message) {
    long started = System.nanoTime();
    if (devices[message.device()].accept(message)) {
      LOG.info("device {} telemetry seq {}: temperature {} humidity {}", message.device(),
          message.seq(), message.temperature(), message.humidity());
      long handed = System.nanoTime();
      message.phase().stage(Phase.DEVICE_WAIT, started - message.sentNanos());
      message.phase().stage(Phase.DEVICE_STEP, handed - started);
      message.handedNanos = handed;
      return true;
    }
    fail(message, "device " + message.device() + " got message " + message.seq()
        + " out of order");
    return false;
  }

  /** The rule chain's step: the message's last. */
  void ruleChain(Telemetry message) {
    long started = System.nanoTime();
    long saved;
    try {
      saved = ruleChain.process(message);
    } catch (RuntimeException error) {
      fail(message, "the rule chain failed: " + error);
      return;
    }
    Phase phase = message.phase();
    phase.stage(Phase.RULE_WAIT, started - message.handedNanos);
    phase.stage(Phase.PERSIST, saved - started);
    phase.completed(message, saved);
  }

  long alerts() {
    return ruleChain.alerts.size();
  }

  long stored() {
    return ruleChain.stored();
  }

  private void fail(Telemetry message, String why) {
    if (reportedFailure.compareAndSet(false, true)) {
      System.err.println("minitb: " + why + " (later failures are only counted)");
    }
    message.phase().failed();
  }

  /** A device as its actor keeps it: one sender's messages must arrive in order. */
  static final class Device {
    private long nextSeq;

    boolean accept(Telemetry message) {
      if (message.seq() != nextSeq) {
        return false;
      }
      nextSeq++;
      return true;
    }
  }

  /** A threshold rule: an alert when a reading's field breaches its limit. */
  record ThresholdRule(String alert, boolean temperature, boolean above, int limit) {
    boolean breached(Telemetry message) {
      int value = temperature ? message.temperature() : message.humidity();
      return above ? value > limit : value < limit;
    }
  }

  /**
   * The rule chain: save the reading, apply the threshold rules, raise the alerts. It keeps no
   * state but the stores (each device's series has one writer at a time in every mode), so the
   * sync mode may run it on every sender's thread at once.
   */
  static final class RuleChain {
    final ConcurrentLinkedQueue<Alert> alerts = new ConcurrentLinkedQueue<>();
    private final List<List<Telemetry>> series = new ArrayList<>();
    private final List<ThresholdRule> rules;

    RuleChain(int devices, boolean wrongRule) {
      for (int id = 0; id < devices; id++) {
        series.add(new ArrayList<>());
      }
      // The deliberately wrong rule (a test of the suite's correctness check) alerts at
      // exactly 40.0 °C too: `>= 400` written as `> 399`.
      int hot = wrongRule ? TelemetryGenerator.TEMPERATURE_LIMIT - 1
          : TelemetryGenerator.TEMPERATURE_LIMIT;
      rules = List.of(
          new ThresholdRule("HIGH_TEMPERATURE", true, true, hot),
          new ThresholdRule("LOW_HUMIDITY", false, false, TelemetryGenerator.HUMIDITY_FLOOR));
    }

    /** Saves and judges the reading; returns when it was saved (monotonic ns). */
    long process(Telemetry message) {
      series.get(message.device()).add(message);
      long saved = System.nanoTime();
      for (ThresholdRule rule : rules) {
        if (rule.breached(message)) {
          alerts.add(new Alert(message.device(), message.seq(), rule.alert()));
        }
      }
      LOG.debug("rule chain: device {} seq {} saved, {} rules checked", message.device(),
          message.seq(), rules.size());
      return saved;
    }

    long stored() {
      return series.stream().mapToLong(List::size).sum();
    }
  }

  record Alert(int device, long seq, String type) {
  }
}
