package minitb;

import java.util.Map;

/** How messages travel from the senders through the devices to the rule chain. */
interface Mode extends AutoCloseable {

  /** Called on a sender's thread: hands the message on (or, in sync mode, processes it). */
  void send(Telemetry message);

  /** What the mode applied, as the trial's tuning ("applied: ...", "off: ..."). */
  Map<String, String> tuning();

  @Override
  void close();

  /**
   * The tuning of a mode whose devices and rule chains are actors (actor, mailbox): each
   * option's value as applied, then what it is in that mode.
   */
  static Map<String, String> applied(Options options, String actorThreads, String ruleThreads,
      String batch) {
    return Map.of(
        "actor_threads", "applied: " + options.actorThreads() + " " + actorThreads,
        "rule_threads", "applied: " + options.ruleThreads() + " " + ruleThreads,
        "batch", "applied: " + options.batch() + " " + batch);
  }

  static Mode start(Options options, Core core) {
    return switch (options.mode()) {
      case "actor" -> new PekkoMode(options, core);
      case "mailbox" -> new MailboxMode(options, core);
      case "sync" -> new SyncMode(core);
      default -> throw new UsageError("no mode " + options.mode());
    };
  }
}
