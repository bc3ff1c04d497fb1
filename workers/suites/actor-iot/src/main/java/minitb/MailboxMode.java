package minitb;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * The seed's own actor runtime, hand-rolled: a mailbox (a lock-free queue) per device and per
 * rule chain, on two fixed thread pools; a mailbox with messages is scheduled once, runs up to
 * `batch` of them, then gives its thread back. Beside Pekko it shows what the library's
 * dispatchers cost or save over the plainest design with the same threads and batch size.
 */
final class MailboxMode implements Mode {
  private final Options options;
  private final ExecutorService deviceThreads;
  private final ExecutorService ruleThreads;
  private final List<Mailbox<Telemetry>> devices = new ArrayList<>();

  MailboxMode(Options options, Core core) {
    this.options = options;
    deviceThreads = Executors.newFixedThreadPool(options.actorThreads(), daemons("device"));
    ruleThreads = Executors.newFixedThreadPool(options.ruleThreads(), daemons("rule"));
    List<Mailbox<Telemetry>> chains = new ArrayList<>();
    for (int i = 0; i < options.ruleThreads(); i++) {
      chains.add(new Mailbox<>(ruleThreads, options.batch(), core::ruleChain));
    }
    for (int id = 0; id < options.devices(); id++) {
      Mailbox<Telemetry> chain = chains.get(id % chains.size());
      devices.add(new Mailbox<>(deviceThreads, options.batch(), message -> {
        if (core.device(message)) {
          chain.tell(message);
        }
      }));
    }
  }

  @Override
  public void send(Telemetry message) {
    devices.get(message.device()).tell(message);
  }

  @Override
  public Map<String, String> tuning() {
    return Mode.applied(options, "(fixed thread pool)", "rule chain mailboxes and threads",
        "messages per turn of a mailbox");
  }

  @Override
  public void close() {
    deviceThreads.shutdownNow();
    ruleThreads.shutdownNow();
  }

  private static java.util.concurrent.ThreadFactory daemons(String name) {
    AtomicInteger count = new AtomicInteger();
    return task -> {
      Thread thread = new Thread(task, name + "-" + count.incrementAndGet());
      thread.setDaemon(true);
      return thread;
    };
  }

  /** An actor's mailbox: messages in order, handled by at most one thread at a time. */
  static final class Mailbox<T> implements Runnable {
    private final Queue<T> queue = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean scheduled = new AtomicBoolean();
    private final ExecutorService threads;
    private final int batch;
    private final Consumer<T> actor;

    Mailbox(ExecutorService threads, int batch, Consumer<T> actor) {
      this.threads = threads;
      this.batch = batch;
      this.actor = actor;
    }

    void tell(T message) {
      queue.add(message);
      schedule();
    }

    @Override
    public void run() {
      for (int i = 0; i < batch; i++) {
        T message = queue.poll();
        if (message == null) {
          break;
        }
        actor.accept(message);
      }
      // The flag's release and the next claim order this turn's work before the next one's.
      scheduled.set(false);
      schedule();
    }

    private void schedule() {
      if (!queue.isEmpty() && scheduled.compareAndSet(false, true)) {
        threads.execute(this);
      }
    }
  }
}
