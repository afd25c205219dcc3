#include "db/csv.h"

#include <gtest/gtest.h>

namespace gpuplan::db {
namespace {

TEST(CsvTest, ReadsHeaderRowsAndQuotedFields) {
  auto table = ParseCsv("a,b,c\n1,\"x, \"\"y\"\"\",3\n4,5,6\n");
  ASSERT_TRUE(table.ok()) << table.error().message;
  ASSERT_EQ(table->header(), (std::vector<std::string>{"a", "b", "c"}));
  ASSERT_EQ(table->rows().size(), 2u);
  EXPECT_EQ(table->rows()[0].fields[1], "x, \"y\"");
  EXPECT_EQ(table->rows()[1].fields[2], "6");
}

TEST(CsvTest, NumbersRowsByTheLineTheyStartOn) {
  auto table = ParseCsv("a,b\n1,\"multi\nline\"\n2,3\r\n");
  ASSERT_TRUE(table.ok());
  ASSERT_EQ(table->rows().size(), 2u);
  EXPECT_EQ(table->rows()[0].line, 2);
  EXPECT_EQ(table->rows()[0].fields[1], "multi\nline");
  EXPECT_EQ(table->rows()[1].line, 4);
}

TEST(CsvTest, LooksUpColumnsByName) {
  auto table = ParseCsv("Region,Price\nus-east-1,1.5\nus-west-2\n");
  ASSERT_TRUE(table.ok());
  auto price = table->Column("Price");
  ASSERT_TRUE(price.has_value());
  EXPECT_FALSE(table->Column("price").has_value());
  EXPECT_EQ(CsvTable::Field(table->rows()[0], price), "1.5");
  EXPECT_EQ(CsvTable::Field(table->rows()[1], price), "");  // short row
}

TEST(CsvTest, RejectsMalformedQuotingWithALine) {
  auto table = ParseCsv("a,b\n1,2\n3,\"unterminated\n");
  ASSERT_FALSE(table.ok());
  EXPECT_EQ(table.error().code, ErrorCode::kInvalidArgument);
  EXPECT_NE(table.error().message.find("line"), std::string::npos);
}

TEST(CsvTest, IgnoresAByteOrderMark) {
  auto table = ParseCsv("\xEF\xBB\xBFRegion,Price\nx,1\n");
  ASSERT_TRUE(table.ok());
  EXPECT_TRUE(table->Column("Region").has_value());
}

TEST(CsvTest, RejectsAnEmptyInput) { EXPECT_FALSE(ParseCsv("").ok()); }

}  // namespace
}  // namespace gpuplan::db
