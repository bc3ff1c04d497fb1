package minitb;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * One pass of messages, the warm-up or the measurement: every message reports here when it
 * reaches the end of the rule chain (or fails), with its latency from the device's send; the
 * phase is over when the last one has.
 */
final class Phase {
  // Where a message's time goes, from its send to the end of the rule chain: waiting for its
  // device's thread, the device's step (its order check and its log line), waiting for the
  // rule chain's thread, saving the reading, the rules and alerts. Each stage ends where the
  // next begins (one clock reading shared), so for a message that completes they add up to
  // its latency; `Core` records each as it ends, the last at completion.
  static final String[] STAGES = {"device_wait", "device_step", "rule_wait", "persist",
      "rules"};
  static final int DEVICE_WAIT = 0;
  static final int DEVICE_STEP = 1;
  static final int RULE_WAIT = 2;
  static final int PERSIST = 3;
  static final int RULES = 4;
  final String name;
  final long messages;
  private final AtomicLong remaining;
  private final CountDownLatch done = new CountDownLatch(1);
  // Wait-free recording from every thread that ends a message; values in nanoseconds.
  private final Recorder latency = new Recorder(3);
  private final Recorder[] stages = new Recorder[STAGES.length];
  // Messages sent and not yet through the rule chain (in the mailboxes, or being handled), as
  // each new message finds them: the backlog the seed's platform alerted on.
  private final AtomicLong inFlight = new AtomicLong();
  private final Recorder backlog = new Recorder(3);
  private final LongAdder errors = new LongAdder();
  private final LongAdder expectedAlerts = new LongAdder();
  private volatile long startNanos;
  private volatile long finishedNanos;

  Phase(String name, long messages) {
    this.name = name;
    this.messages = messages;
    this.remaining = new AtomicLong(messages);
    for (int i = 0; i < stages.length; i++) {
      stages[i] = new Recorder(3);
    }
  }

  void start() {
    startNanos = System.nanoTime();
  }

  void expectAlerts(int count) {
    if (count > 0) {
      expectedAlerts.add(count);
    }
  }

  /** A message is about to be sent: the backlog it joins is recorded. */
  void sending() {
    backlog.recordValue(inFlight.getAndIncrement());
  }

  /** A stage of a message that went through it, in nanoseconds (`STAGES`). */
  void stage(int index, long nanos) {
    stages[index].recordValue(nanos);
  }

  /** The message reached the end of the rule chain; its last stage began at `rulesFrom`. */
  void completed(Telemetry message, long rulesFrom) {
    long now = System.nanoTime();
    latency.recordValue(now - message.sentNanos());
    stages[RULES].recordValue(now - rulesFrom);
    ended(now);
  }

  /** The message failed on the way (its stages so far stay recorded; it has no latency). */
  void failed() {
    errors.increment();
    ended(System.nanoTime());
  }

  private void ended(long now) {
    inFlight.decrementAndGet();
    if (remaining.decrementAndGet() == 0) {
      finishedNanos = now;
      done.countDown();
    }
  }

  boolean await(long timeoutS) throws InterruptedException {
    return done.await(timeoutS, TimeUnit.SECONDS);
  }

  long pending() {
    return remaining.get();
  }

  long errors() {
    return errors.sum();
  }

  long expectedAlerts() {
    return expectedAlerts.sum();
  }

  double seconds() {
    return (finishedNanos - startNanos) / 1e9;
  }

  Histogram latency() {
    return latency.getIntervalHistogram();
  }

  /** The time the phase's messages spent in stage `index` of `STAGES`, in nanoseconds. */
  Histogram stage(int index) {
    return stages[index].getIntervalHistogram();
  }

  /** The backlog each message found when it was sent. */
  Histogram backlog() {
    return backlog.getIntervalHistogram();
  }
}
