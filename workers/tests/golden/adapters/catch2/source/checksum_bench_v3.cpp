// latlab's Catch2 v3 golden-file benchmark: checksum_bench.cpp (Catch2 2.x) for Catch2 v3,
// which writes several reporters in one run (`-r xml::out=FILE -r console::out=FILE`), so it
// needs no listener. Built with Catch2's amalgamated files (extras/catch_amalgamated.*).
#include "catch_amalgamated.hpp"

#include <cstdint>
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

}  // namespace

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
