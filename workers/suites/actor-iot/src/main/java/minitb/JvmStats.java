package minitb;

import java.io.IOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The JVM's own figures over the measurement: GC pauses, heap, RSS and threads. Peaks are reset
 * when the measurement starts, so the warm-up does not count.
 */
final class JvmStats {
  private static final double MB = 1024.0 * 1024.0;
  private static final Path STATUS = Path.of("/proc/self/status");

  private final long pausesBefore;
  private final long pauseMillisBefore;

  private JvmStats(long pauses, long pauseMillis) {
    this.pausesBefore = pauses;
    this.pauseMillisBefore = pauseMillis;
  }

  static JvmStats begin() {
    ManagementFactory.getMemoryPoolMXBeans().forEach(MemoryPoolMXBean::resetPeakUsage);
    ManagementFactory.getThreadMXBean().resetPeakThreadCount();
    try {
      // Resets the kernel's peak RSS (VmHWM) of this process to its current RSS.
      Files.writeString(Path.of("/proc/self/clear_refs"), "5");
    } catch (IOException | UnsupportedOperationException error) {
      System.err.println("minitb: cannot reset the peak RSS, it covers the warm-up: " + error);
    }
    long pauses = 0;
    long millis = 0;
    for (GarbageCollectorMXBean collector : pauseCollectors()) {
      pauses += collector.getCollectionCount();
      millis += collector.getCollectionTime();
    }
    return new JvmStats(pauses, millis);
  }

  /** The figures since `begin()`, as metrics. */
  Map<String, Double> end() {
    Map<String, Double> metrics = new LinkedHashMap<>();
    long pauses = 0;
    long millis = 0;
    for (GarbageCollectorMXBean collector : pauseCollectors()) {
      pauses += collector.getCollectionCount();
      millis += collector.getCollectionTime();
    }
    metrics.put("gc_pauses", (double) (pauses - pausesBefore));
    metrics.put("gc_pause_ms", (double) (millis - pauseMillisBefore));
    metrics.put("heap_used_mb",
        ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed() / MB);
    metrics.put("heap_peak_mb", ManagementFactory.getMemoryPoolMXBeans().stream()
        .filter(pool -> pool.getType() == MemoryType.HEAP)
        .mapToLong(pool -> pool.getPeakUsage().getUsed()).sum() / MB);
    metrics.put("threads", (double) ManagementFactory.getThreadMXBean().getPeakThreadCount());
    Map<String, Long> status = procStatus();
    if (status.containsKey("VmRSS")) {
      metrics.put("rss_mb", status.get("VmRSS") / 1024.0);
    }
    if (status.containsKey("VmHWM")) {
      metrics.put("peak_rss_mb", status.get("VmHWM") / 1024.0);
    }
    return metrics;
  }

  /** The JVM's heap and collector settings, as the trial's tuning. */
  static Map<String, String> tuning() {
    List<String> heapFlags = ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
        .filter(flag -> flag.startsWith("-Xm")).toList();
    String collectors = ManagementFactory.getGarbageCollectorMXBeans().stream()
        .map(GarbageCollectorMXBean::getName).collect(Collectors.joining(", "));
    return Map.of(
        "heap", String.format("applied: max %d MB%s", Runtime.getRuntime().maxMemory() >> 20,
            heapFlags.isEmpty() ? " (JVM default)" : " " + heapFlags),
        "gc", "applied: " + collectors,
        "jvm", "applied: " + System.getProperty("java.vm.name") + " "
            + System.getProperty("java.runtime.version"));
  }

  /**
   * Collectors whose time is pause time. ZGC and Shenandoah also report their concurrent
   * cycles (beans named "... Cycles"), which run beside the program and are left out.
   */
  private static List<GarbageCollectorMXBean> pauseCollectors() {
    return ManagementFactory.getGarbageCollectorMXBeans().stream()
        .filter(collector -> !collector.getName().endsWith("Cycles")).toList();
  }

  private static Map<String, Long> procStatus() {
    Map<String, Long> values = new LinkedHashMap<>();
    try {
      for (String line : Files.readAllLines(STATUS)) {
        String[] parts = line.split("\\s+");
        if (parts.length == 3 && parts[2].equals("kB")) {
          values.put(parts[0].replace(":", ""), Long.parseLong(parts[1]));
        }
      }
    } catch (IOException | NumberFormatException error) {
      System.err.println("minitb: cannot read " + STATUS + ": " + error);
    }
    return values;
  }
}
