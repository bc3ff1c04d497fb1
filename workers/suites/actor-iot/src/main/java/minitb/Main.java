package minitb;

import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import org.HdrHistogram.Histogram;

/**
 * MiniTB, after the seed's platform: senders make each device's telemetry (deterministic,
 * seeded), the chosen mode carries it through the device to the rule chain, which stores it and
 * raises threshold alerts. A warm-up pass (excluded) runs first, then the measured pass; stdout
 * gets one latlab JSON document (latency from a message's send to the end of its rule chain, in
 * ns, as a compressed HdrHistogram), stderr the diagnostics. A pass whose alerts differ from
 * the ones its data calls for fails the run (exit 5), as does a pass past --timeout-s (exit 6).
 */
public final class Main {
  private Main() {
  }

  public static void main(String[] args) {
    // Only the result goes to stdout: anything else that prints (a library) goes to stderr.
    PrintStream result = System.out;
    System.setOut(System.err);
    int exitCode = 0;
    try {
      Options options = Options.parse(args);
      // Logging goes to stderr (a file the runner keeps), each line with its time, as a
      // platform's log would; started before Pekko's threads log, so SLF4J has nothing to
      // replay (and say so).
      System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", options.logLevel());
      System.setProperty("org.slf4j.simpleLogger.showDateTime", "true");
      org.slf4j.LoggerFactory.getILoggerFactory();
      result.println(Json.write(run(options)));
      result.flush();
    } catch (UsageError error) {
      System.err.println("minitb: " + error.getMessage() + "\n" + Options.USAGE);
      exitCode = 2;
    } catch (Failure error) {
      System.err.println("minitb: " + error.getMessage());
      exitCode = error.exitCode;
    } catch (InterruptedException error) {
      System.err.println("minitb: interrupted");
      exitCode = 1;
    }
    // Threads of a timed-out pass may still be sending.
    System.exit(exitCode);
  }

  static Map<String, Object> run(Options options) throws InterruptedException {
    Core core = new Core(options.devices(), options.wrongRule());
    TelemetryGenerator[] generators = new TelemetryGenerator[options.devices()];
    for (int id = 0; id < generators.length; id++) {
      generators[id] = new TelemetryGenerator(options.seed(), id);
    }
    try (Mode mode = Mode.start(options, core)) {
      if (options.warmup() > 0) {
        pass(new Phase("warm-up", (long) options.warmup() * options.devices()), options.warmup(),
            options, core, generators, mode);
      }
      JvmStats jvm = JvmStats.begin();
      Phase measured = new Phase("measurement", (long) options.messages() * options.devices());
      long alerts = pass(measured, options.messages(), options, core, generators, mode);
      Map<String, Double> jvmMetrics = jvm.end();
      return document(options, measured, alerts, jvmMetrics, mode);
    }
  }

  /** Sends `perDevice` messages from every device and waits for the last to be done. */
  private static long pass(Phase phase, int perDevice, Options options, Core core,
                           TelemetryGenerator[] generators, Mode mode)
      throws InterruptedException {
    long alertsBefore = core.alerts();
    int senders = options.senderThreads();
    CountDownLatch gate = new CountDownLatch(1);
    for (int first = 0; first < senders; first++) {
      int firstDevice = first;
      Thread sender = new Thread(() -> {
        try {
          gate.await();
        } catch (InterruptedException error) {
          return;
        }
        for (int i = 0; i < perDevice; i++) {
          for (int id = firstDevice; id < generators.length; id += senders) {
            Telemetry message = generators[id].next(phase);
            phase.sending();
            mode.send(message);
          }
        }
      }, "sender-" + first);
      sender.setDaemon(true);
      sender.start();
    }
    phase.start();
    gate.countDown();
    if (!phase.await(options.timeoutS())) {
      throw new Failure(Failure.TIMED_OUT, String.format(
          "the %s timed out after %d s: %d of %d messages did not reach the end of the rule "
          + "chain (mode %s, %d devices)", phase.name, options.timeoutS(), phase.pending(),
          phase.messages, options.mode(), options.devices()));
    }
    long fired = core.alerts() - alertsBefore;
    if (fired != phase.expectedAlerts()) {
      throw new Failure(Failure.WRONG_ALERTS, String.format(
          "alerts_fired %d != alerts_expected %d in the %s (mode %s, %d devices x %d messages, "
          + "seed %d): the rule chain %s%s", fired, phase.expectedAlerts(), phase.name,
          options.mode(), options.devices(), perDevice, options.seed(),
          fired > phase.expectedAlerts() ? "raised alerts the data does not call for"
              : "missed alerts the data calls for",
          options.wrongRule() ? " (--wrong-rule true: the temperature rule also fires at "
              + "exactly 40.0 °C)" : ""));
    }
    return fired;
  }

  private static Map<String, Object> document(Options options, Phase measured, long alerts,
                                              Map<String, Double> jvm, Mode mode) {
    Histogram latency = measured.latency();
    double seconds = measured.seconds();
    long errors = measured.errors();
    Map<String, Object> metrics = new LinkedHashMap<>();
    metrics.put("messages_per_s", measured.messages / seconds);
    metrics.put("messages", measured.messages);
    metrics.put("success_rate", (double) (measured.messages - errors) / measured.messages);
    metrics.put("errors", errors);
    metrics.put("alerts_fired", alerts);
    metrics.put("alerts_expected", measured.expectedAlerts());
    Histogram backlog = measured.backlog();
    metrics.put("queue_depth_max", backlog.getMaxValue());
    metrics.put("queue_depth_p99", backlog.getValueAtPercentile(99));
    for (int i = 0; i < Phase.STAGES.length; i++) {
      Histogram stage = measured.stage(i);
      metrics.put("stage_" + Phase.STAGES[i] + "_mean_us", stage.getMean() / 1000.0);
      metrics.put("stage_" + Phase.STAGES[i] + "_p95_us",
          stage.getValueAtPercentile(95) / 1000.0);
    }
    metrics.putAll(jvm);
    Map<String, String> tuning = new TreeMap<>(mode.tuning());
    tuning.putAll(JvmStats.tuning());
    tuning.put("senders", "applied: " + options.senderThreads() + " sender threads");
    Map<String, Object> document = new LinkedHashMap<>();
    document.put("mode", options.mode());
    document.put("devices", options.devices());
    document.put("messages_per_device", options.messages());
    document.put("warmup_per_device", options.warmup());
    document.put("duration_s", seconds);
    document.put("latency_hdr", encode(latency));
    document.put("metrics", metrics);
    document.put("tuning", tuning);
    return document;
  }

  private static String encode(Histogram histogram) {
    ByteBuffer buffer = ByteBuffer.allocate(histogram.getNeededByteBufferCapacity());
    int length = histogram.encodeIntoCompressedByteBuffer(buffer);
    return Base64.getEncoder().encodeToString(Arrays.copyOf(buffer.array(), length));
  }
}
