package org.latlab.bench;

import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/** A benchmark that fails for one of its params: JMH reports the failure (and no result). */
@State(Scope.Thread)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class FailingBenchmark {
    @Param({"ok", "fail", "second-fork"})
    public String kind;

    private long calls;
    private boolean failing;

    /** "second-fork" fails in every fork after the first (a marker file says a fork ran). */
    @Setup(Level.Trial)
    public void setUp() throws java.io.IOException {
        java.nio.file.Path marker = java.nio.file.Path.of("fork-marker");
        failing = kind.equals("fail")
            || (kind.equals("second-fork") && java.nio.file.Files.exists(marker));
        if (kind.equals("second-fork")) {
            java.nio.file.Files.writeString(marker, "ran");
        }
    }

    @Benchmark
    public long work() {
        if (failing && ++calls > 1000) {
            throw new IllegalStateException("latlab golden: a failing benchmark");
        }
        return System.nanoTime();
    }
}
