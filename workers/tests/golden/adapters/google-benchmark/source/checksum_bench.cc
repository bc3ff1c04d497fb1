// A tiny Google Benchmark for latlab's google-benchmark adapter golden files: joins the
// numbers 0..n-1 as text and sums its bytes (the same work as the JMH and Criterion goldens).
//
//   g++ -O2 -std=c++17 checksum_bench.cc -lbenchmark -lpthread -o checksum_bench
#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>
#include <vector>

static std::vector<char> Join(int64_t n) {
  std::string text;
  for (int64_t i = 0; i < n; ++i) {
    text += std::to_string(i);
    text += ',';
  }
  return std::vector<char>(text.begin(), text.end());
}

static uint32_t Checksum(const std::vector<char>& data) {
  uint32_t sum = 0;
  for (char c : data) sum = sum * 31 + static_cast<unsigned char>(c);
  return sum;
}

// Builds the text and checksums it on every iteration (nanoseconds, the default unit).
static void BM_Checksum(benchmark::State& state) {
  for (auto _ : state) {
    benchmark::DoNotOptimize(Checksum(Join(state.range(0))));
  }
}
BENCHMARK(BM_Checksum)->Arg(10)->Arg(1000);

// Checksums a prepared vector; reported in microseconds, on wall-clock time, with byte and
// item counters (bytes_per_second, items_per_second) and a user counter.
static void BM_ChecksumPrepared(benchmark::State& state) {
  const std::vector<char> data = Join(state.range(0));
  for (auto _ : state) {
    benchmark::DoNotOptimize(Checksum(data));
  }
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(data.size()));
  state.SetItemsProcessed(state.iterations() * state.range(0));
  state.counters["text_bytes"] = static_cast<double>(data.size());
}
BENCHMARK(BM_ChecksumPrepared)->Arg(10)->Arg(1000)->Unit(benchmark::kMicrosecond)->UseRealTime();

BENCHMARK_MAIN();
