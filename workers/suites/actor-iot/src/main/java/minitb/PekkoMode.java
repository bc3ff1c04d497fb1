package minitb;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * Apache Pekko typed actors: one actor per device on a dispatcher of `actor-threads` threads,
 * and `rule-threads` rule chain actors (device i goes to chain i mod rule-threads) on their
 * own dispatcher. The batch size is the dispatchers' throughput: how many messages an actor
 * handles before its thread moves on to another actor.
 */
final class PekkoMode implements Mode {
  private static final String CONFIG = """
      pekko {
        loglevel = "WARNING"
        stdout-loglevel = "OFF"
        log-dead-letters = off
        log-dead-letters-during-shutdown = off
        coordinated-shutdown.run-by-jvm-shutdown-hook = off
        actor.default-dispatcher.fork-join-executor { parallelism-min = 1, parallelism-max = 2 }
      }
      minitb {
        device-dispatcher {
          type = Dispatcher
          executor = "thread-pool-executor"
          thread-pool-executor.fixed-pool-size = %d
          throughput = %d
        }
        rule-dispatcher {
          type = Dispatcher
          executor = "thread-pool-executor"
          thread-pool-executor.fixed-pool-size = %d
          throughput = %d
        }
      }
      """;

  private final Options options;
  private final ActorSystem<Void> system;
  private final List<ActorRef<Telemetry>> devices;

  PekkoMode(Options options, Core core) {
    this.options = options;
    Config config = ConfigFactory.parseString(String.format(CONFIG, options.actorThreads(),
        options.batch(), options.ruleThreads(), options.batch())).withFallback(
        ConfigFactory.load());
    CompletableFuture<List<ActorRef<Telemetry>>> spawned = new CompletableFuture<>();
    system = ActorSystem.create(Behaviors.<Void>setup(context -> {
      List<ActorRef<Telemetry>> chains = new ArrayList<>();
      for (int i = 0; i < options.ruleThreads(); i++) {
        chains.add(context.spawn(ruleChain(core), "rule-chain-" + i,
            DispatcherSelector.fromConfig("minitb.rule-dispatcher")));
      }
      List<ActorRef<Telemetry>> refs = new ArrayList<>();
      for (int id = 0; id < options.devices(); id++) {
        refs.add(context.spawn(device(core, chains.get(id % chains.size())), "device-" + id,
            DispatcherSelector.fromConfig("minitb.device-dispatcher")));
      }
      spawned.complete(refs);
      return Behaviors.empty();
    }), "minitb", config);
    try {
      devices = spawned.get(60, TimeUnit.SECONDS);
    } catch (InterruptedException | ExecutionException | TimeoutException error) {
      system.terminate();
      throw new IllegalStateException("the actor system did not start: " + error, error);
    }
  }

  private static Behavior<Telemetry> device(Core core, ActorRef<Telemetry> chain) {
    return Behaviors.receiveMessage(message -> {
      if (core.device(message)) {
        chain.tell(message);
      }
      return Behaviors.same();
    });
  }

  private static Behavior<Telemetry> ruleChain(Core core) {
    return Behaviors.receiveMessage(message -> {
      core.ruleChain(message);
      return Behaviors.same();
    });
  }

  @Override
  public void send(Telemetry message) {
    devices.get(message.device()).tell(message);
  }

  @Override
  public Map<String, String> tuning() {
    return Mode.applied(options, "(Pekko thread-pool dispatcher)", "rule chain actors and threads",
        "(the dispatchers' throughput)");
  }

  @Override
  public void close() {
    system.terminate();
    try {
      system.getWhenTerminated().toCompletableFuture().get(30, TimeUnit.SECONDS);
    } catch (InterruptedException | ExecutionException | TimeoutException error) {
      System.err.println("minitb: the actor system did not stop in 30 s: " + error);
    }
  }
}
