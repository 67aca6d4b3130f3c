#include "data/importers/ethereum_importer.h"

#include <gtest/gtest.h>

#include "tests/data/store_fixture.h"

namespace millrace::data {
namespace {

using testing::TempDir;
using testing::write_file;

class EthereumImport : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string header = "\"Date(UTC)\",\"UnixTimeStamp\",\"Value\"\n";
    write_file(dir_.file("export-BlockCountRewards.csv"),
               header + "\"7/30/2015\",\"1438214400\",\"100\"\n\"7/31/2015\",\"1438300800\",\"0\"\n"
                        "\"8/1/2015\",\"1438387200\",\"50\"\n");
    write_file(dir_.file("export-BlockSize.csv"),
               header + "\"7/30/2015\",\"1438214400\",\"644\"\n\"7/31/2015\",\"1438300800\",\"582\"\n"
                        "\"8/1/2015\",\"1438387200\",\"1000\"\n");
    write_file(dir_.file("export-GasUsed.csv"),
               header + "\"7/30/2015\",\"1438214400\",\"0\"\n\"7/31/2015\",\"1438300800\",\"0\"\n"
                        "\"8/1/2015\",\"1438387200\",\"5000000\"\n");
  }
  TempDir dir_;
};

TEST_F(EthereumImport, CumulatesBlocksPerDayIntoBinsOfBlockSizeCost) {
  auto p = importers::read_ethereum_profile(dir_.file("export-BlockCountRewards.csv"),
                                            importers::EthereumSeries::kBlockSize);
  EXPECT_EQ(p.units, "blocks");
  EXPECT_EQ(p.name, "ethereum-block-size");
  ASSERT_EQ(p.bins.size(), 2u);  // the day without blocks adds no bin
  EXPECT_EQ(p.bins[0], (ProfileBin{Range{0, 100}, 644.0}));
  EXPECT_EQ(p.bins[1], (ProfileBin{Range{100, 50}, 1000.0}));
}

TEST_F(EthereumImport, GasSeriesIsGasPerBlockScaledToMicros) {
  auto p = importers::read_ethereum_profile(dir_.file(""), importers::EthereumSeries::kGasUsed);
  ASSERT_EQ(p.bins.size(), 2u);
  EXPECT_EQ(p.bins[0].micros_per_unit, 0.0);
  EXPECT_DOUBLE_EQ(p.bins[1].micros_per_unit, 5'000'000.0 / 50 * importers::kMicrosPerGas);
}

}  // namespace
}  // namespace millrace::data
