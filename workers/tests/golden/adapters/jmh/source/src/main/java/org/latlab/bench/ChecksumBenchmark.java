package org.latlab.bench;

import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;

/**
 * Joins the numbers 0..n-1 as text and checksums it. Run with -Dlatlab.slow=true (through
 * -jvmArgs) for the "slower build" golden file: the text is built twice.
 */
@State(Scope.Thread)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class ChecksumBenchmark {
    private static final boolean SLOW = Boolean.getBoolean("latlab.slow");

    @Param({"10", "1000"})
    public int n;

    @Benchmark
    public long checksum() {
        CRC32 crc = new CRC32();
        crc.update(join().getBytes());
        if (SLOW) {
            crc.update(join().getBytes());
        }
        return crc.getValue();
    }

    private String join() {
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < n; i++) {
            text.append(i).append(',');
        }
        return text.toString();
    }
}
