package org.latlab.hlog;

import java.io.PrintStream;
import java.util.zip.CRC32;
import java.util.zip.Deflater;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogWriter;
import org.HdrHistogram.Recorder;

/**
 * Writes an HdrHistogram interval log (format 1.3, tagged intervals) with HdrHistogram's own
 * HistogramLogWriter: the time in nanoseconds of a Deflater compression ("compress") and of a
 * CRC32 ("checksum") of 4 KiB, five windows of 200 ms each. With "--slow" each operation is
 * done twice, for the "slower build" golden file.
 */
public final class WriteLog {
    public static void main(String[] args) {
        boolean slow = args.length > 0 && args[0].equals("--slow");
        byte[] data = new byte[4096];
        for (int i = 0; i < data.length; i++) {
            data[i] = (byte) (i * 31);
        }
        byte[] out = new byte[8192];
        Recorder compress = new Recorder(3);
        Recorder checksum = new Recorder(3);
        PrintStream stdout = System.out;
        HistogramLogWriter writer = new HistogramLogWriter(stdout);
        long start = System.currentTimeMillis();
        writer.outputLogFormatVersion();
        writer.outputComment("Deflater and CRC32 of 4 KiB, ns, written by HdrHistogram's HistogramLogWriter");
        writer.outputStartTime(start);
        writer.setBaseTime(start);
        writer.outputLegend();
        long sink = 0;
        for (int window = 0; window < 5; window++) {
            long end = System.nanoTime() + 200_000_000L;
            while (System.nanoTime() < end) {
                long before = System.nanoTime();
                for (int round = 0; round < (slow ? 2 : 1); round++) {
                    Deflater deflater = new Deflater(1);
                    deflater.setInput(data);
                    deflater.finish();
                    sink += deflater.deflate(out);
                    deflater.end();
                }
                compress.recordValue(System.nanoTime() - before);
                before = System.nanoTime();
                for (int round = 0; round < (slow ? 2 : 1); round++) {
                    CRC32 crc = new CRC32();
                    crc.update(data);
                    sink += crc.getValue();
                }
                checksum.recordValue(System.nanoTime() - before);
            }
            Histogram compressed = compress.getIntervalHistogram();
            compressed.setTag("compress");
            writer.outputIntervalHistogram(compressed);
            Histogram summed = checksum.getIntervalHistogram();
            summed.setTag("checksum");
            writer.outputIntervalHistogram(summed);
        }
        System.err.println("sink " + sink);
    }
}
