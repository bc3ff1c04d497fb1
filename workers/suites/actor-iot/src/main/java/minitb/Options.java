package minitb;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** The command line: `--name value` pairs, each checked; anything else is a usage error. */
record Options(String mode, int devices, int messages, int warmup, int senders, int actorThreads,
               int ruleThreads, int batch, long seed, boolean wrongRule, int timeoutS,
               String logLevel) {

  static final List<String> MODES = List.of("actor", "sync", "mailbox");
  /** SLF4J levels: warn logs nothing per message; info a line per message, as the seed's
   *  platform did; debug a second line from the rule chain. */
  static final List<String> LOG_LEVELS = List.of("warn", "info", "debug");

  static final String USAGE = "usage: minitb --mode actor|sync|mailbox --devices N --messages N"
      + " [--warmup N] [--senders N] [--actor-threads N] [--rule-threads N] [--batch N]"
      + " [--seed N] [--wrong-rule true|false] [--timeout-s N] [--log-level warn|info|debug]";

  static Options parse(String[] args) {
    Map<String, String> given = new HashMap<>();
    for (int i = 0; i < args.length; i += 2) {
      if (!args[i].startsWith("--") || i + 1 >= args.length) {
        throw new UsageError("expected --name value pairs, got '" + args[i] + "'");
      }
      if (given.put(args[i].substring(2), args[i + 1]) != null) {
        throw new UsageError(args[i] + " is given twice");
      }
    }
    Reader read = new Reader(given);
    String mode = read.text("mode", null);
    if (!MODES.contains(mode)) {
      throw new UsageError("--mode: '" + mode + "' is not one of " + MODES);
    }
    Options options = new Options(
        mode,
        read.integer("devices", null, 1, 100_000),
        read.integer("messages", null, 1, 100_000_000),
        read.integer("warmup", 0, 0, 100_000_000),
        read.integer("senders", 20, 1, 1_000),
        read.integer("actor-threads", 5, 1, 256),
        read.integer("rule-threads", 4, 1, 256),
        read.integer("batch", 10, 1, 100_000),
        read.integer("seed", 42, 0, Integer.MAX_VALUE),
        read.bool("wrong-rule"),
        read.integer("timeout-s", 300, 1, 86_400),
        read.text("log-level", "warn"));
    if (!LOG_LEVELS.contains(options.logLevel())) {
      throw new UsageError("--log-level: '" + options.logLevel() + "' is not one of "
          + LOG_LEVELS);
    }
    read.noneLeft();
    return options;
  }

  /** Each sender thread sends for every `senders`-th device, so no more senders than devices. */
  int senderThreads() {
    return Math.min(senders, devices);
  }

  private static final class Reader {
    private final Map<String, String> given;

    Reader(Map<String, String> given) {
      this.given = given;
    }

    String text(String name, String fallback) {
      String value = given.remove(name);
      if (value == null && fallback == null) {
        throw new UsageError("--" + name + " is required");
      }
      return value == null ? fallback : value;
    }

    int integer(String name, Integer fallback, int min, int max) {
      String value = given.remove(name);
      if (value == null) {
        if (fallback == null) {
          throw new UsageError("--" + name + " is required");
        }
        return fallback;
      }
      try {
        int parsed = Integer.parseInt(value);
        if (parsed < min || parsed > max) {
          throw new UsageError("--" + name + ": " + parsed + " is not in " + min + ".." + max);
        }
        return parsed;
      } catch (NumberFormatException error) {
        throw new UsageError("--" + name + ": '" + value + "' is not an integer");
      }
    }

    boolean bool(String name) {
      String value = given.remove(name);
      if (value == null || value.equals("false")) {
        return false;
      }
      if (value.equals("true")) {
        return true;
      }
      throw new UsageError("--" + name + ": '" + value + "' is not true or false");
    }

    void noneLeft() {
      if (!given.isEmpty()) {
        throw new UsageError("unknown options " + given.keySet().stream().sorted()
            .map(name -> "--" + name).toList());
      }
    }
  }
}
