package minitb;

import java.util.Map;

/** Direct calls: the sender's thread runs the device and the rule chain before it sends on. */
final class SyncMode implements Mode {
  private static final String OFF = "off: sync mode runs everything on the senders' threads";
  private final Core core;

  SyncMode(Core core) {
    this.core = core;
  }

  @Override
  public void send(Telemetry message) {
    if (core.device(message)) {
      core.ruleChain(message);
    }
  }

  @Override
  public Map<String, String> tuning() {
    return Map.of("actor_threads", OFF, "rule_threads", OFF, "batch", OFF);
  }

  @Override
  public void close() {
  }
}
