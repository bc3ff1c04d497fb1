// Google Benchmark cases for latlab's honesty goldens (issue 44): benchmarks under 5 ns,
// whose time per iteration must not be rounded to whole nanoseconds, and one that fails
// with SkipWithError. The loops use KeepRunning() so that the same source builds with
// Google Benchmark 1.1.0 (2016), which has no range-for over the state.
//
//   g++ -O2 -std=c++17 honesty_bench.cc -lbenchmark -lpthread -o honesty_bench
#include <benchmark/benchmark.h>

#include <cstdint>

// One addition per iteration: well under 5 ns.
static void BM_Add(benchmark::State& state) {
  int64_t x = 0;
  while (state.KeepRunning()) {
    x += 1;
    benchmark::DoNotOptimize(x);
  }
}
BENCHMARK(BM_Add);

// A short dependent chain of multiply-adds: a few ns.
static void BM_MulAdd(benchmark::State& state) {
  uint64_t x = 1;
  while (state.KeepRunning()) {
    for (int i = 0; i < 3; ++i) x = x * 2654435761u + 1;
    benchmark::DoNotOptimize(x);
  }
}
BENCHMARK(BM_MulAdd);

// Fails before measuring: the input it needs is not there.
static void BM_NeedsInput(benchmark::State& state) {
  state.SkipWithError("no input file");
  while (state.KeepRunning()) {
  }
}
BENCHMARK(BM_NeedsInput);

BENCHMARK_MAIN();
