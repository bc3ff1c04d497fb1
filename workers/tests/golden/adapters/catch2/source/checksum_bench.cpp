// latlab's Catch2 golden-file benchmark (workers/tests/golden/adapters/catch2/README.md).
// Test case "checksum" [bench]: two BENCHMARK blocks of different cost and one
// BENCHMARK_ADVANCED (its inputs made outside the measured part). Test case "needs input"
// [failing]: a benchmark that throws (Catch2 reports it failed) beside one that runs.
//
// Catch2 2.x runs one reporter at a time. With LATLAB_CONSOLE=FILE set, the listener below
// hands every event of the run to a second reporter, Catch2's own ConsoleReporter, writing
// FILE: the console report of the same run (the same BenchmarkStats) as the `-r xml` output.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

std::uint32_t checksum(const std::string& text) {
    std::uint32_t sum = 2166136261u;
    for (unsigned char c : text) {
        sum = (sum ^ c) * 16777619u;
    }
    return sum;
}

struct ConsoleTee : Catch::TestEventListenerBase {
    std::ofstream out;
    std::unique_ptr<Catch::ConsoleReporter> console;

    explicit ConsoleTee(Catch::ReporterConfig const& config) : TestEventListenerBase(config) {
        if (const char* path = std::getenv("LATLAB_CONSOLE")) {
            out.open(path);
            console.reset(new Catch::ConsoleReporter(
                Catch::ReporterConfig(config.fullConfig(), out)));
        }
    }
    void noMatchingTestCases(std::string const& spec) override {
        if (console) console->noMatchingTestCases(spec);
    }
    void testRunStarting(Catch::TestRunInfo const& info) override {
        if (console) console->testRunStarting(info);
    }
    void testGroupStarting(Catch::GroupInfo const& info) override {
        if (console) console->testGroupStarting(info);
    }
    void testCaseStarting(Catch::TestCaseInfo const& info) override {
        if (console) console->testCaseStarting(info);
    }
    void sectionStarting(Catch::SectionInfo const& info) override {
        if (console) console->sectionStarting(info);
    }
    void benchmarkPreparing(std::string const& name) override {
        if (console) console->benchmarkPreparing(name);
    }
    void benchmarkStarting(Catch::BenchmarkInfo const& info) override {
        if (console) console->benchmarkStarting(info);
    }
    void benchmarkEnded(Catch::BenchmarkStats<> const& stats) override {
        if (console) console->benchmarkEnded(stats);
    }
    void benchmarkFailed(std::string const& error) override {
        if (console) console->benchmarkFailed(error);
    }
    void assertionStarting(Catch::AssertionInfo const& info) override {
        if (console) console->assertionStarting(info);
    }
    bool assertionEnded(Catch::AssertionStats const& stats) override {
        return console ? console->assertionEnded(stats) : true;
    }
    void sectionEnded(Catch::SectionStats const& stats) override {
        if (console) console->sectionEnded(stats);
    }
    void testCaseEnded(Catch::TestCaseStats const& stats) override {
        if (console) console->testCaseEnded(stats);
    }
    void testGroupEnded(Catch::TestGroupStats const& stats) override {
        if (console) console->testGroupEnded(stats);
    }
    void testRunEnded(Catch::TestRunStats const& stats) override {
        if (console) console->testRunEnded(stats);
    }
};

}  // namespace

CATCH_REGISTER_LISTENER(ConsoleTee)

TEST_CASE("checksum", "[bench]") {
    const std::string small(10, 'x');
    const std::string large(1000, 'x');

    BENCHMARK("checksum 10") { return checksum(small); };
    BENCHMARK("checksum 1000") { return checksum(large); };

    BENCHMARK_ADVANCED("checksum 1000 prepared")(Catch::Benchmark::Chronometer meter) {
        std::vector<std::string> inputs(meter.runs(), large);
        meter.measure([&](int i) { return checksum(inputs[i]); });
    };
}

TEST_CASE("needs input", "[failing]") {
    const std::string large(1000, 'x');
    BENCHMARK("checksum 1000 again") { return checksum(large); };
    BENCHMARK("checksum of a missing file") {
        throw std::runtime_error("no input file");
        return 0u;
    };
}
