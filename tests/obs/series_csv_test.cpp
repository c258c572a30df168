// Reading timestamp,value CSV: timestamps, and every kind of bad file rejected with its file
// and line.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "obs/anomaly/series_csv.h"
#include "scratch_files.h"

namespace supportd::obs::anomaly {
namespace {

TEST(ParseTimestamp, ReadsTheFormsNabAndExportsUse) {
  EXPECT_EQ(parse_timestamp("2015-02-26 21:42:53"), 1424986973.0);
  EXPECT_EQ(parse_timestamp("2015-02-26T21:42:53Z"), 1424986973.0);
  EXPECT_EQ(parse_timestamp("2015-02-26 21:42:53.000000"), 1424986973.0);
  EXPECT_DOUBLE_EQ(*parse_timestamp("2015-02-26 21:42:53.25"), 1424986973.25);
  EXPECT_EQ(parse_timestamp("2015-02-26 21:42"), 1424986920.0);
  EXPECT_EQ(parse_timestamp("2000-02-29"), 951782400.0);   // a leap day
  EXPECT_EQ(parse_timestamp("1424986973"), 1424986973.0);  // Unix seconds
  EXPECT_EQ(parse_timestamp(" 1970-01-01 00:00:00 "), 0.0);
}

TEST(ParseTimestamp, RejectsWhatIsNotATime) {
  for (const char* text :
       {"", "yesterday", "2015-13-01", "2015-02-29", "2015-02-26 24:00:00", "2015-02-26 21:60:00",
        "2015-02-26 21:42:53.", "2015-02-26 21:42:53x", "2015/02/26", "nan"}) {
    EXPECT_FALSE(parse_timestamp(text).has_value()) << text;
  }
}

struct Read {
  std::vector<SeriesPoint> points;
  std::vector<std::string> warnings;
  std::string error;  // empty when the whole file was read
};

Read read_all(const std::string& path) {
  Read read;
  auto reader = SeriesReader::open(path);
  if (!reader) {
    read.error = reader.error().message;
    return read;
  }
  while (true) {
    auto point = reader->next();
    if (!point) {
      read.error = point.error().message;
      break;
    }
    if (!*point) break;
    read.points.push_back(**point);
  }
  read.warnings = reader->warnings();
  return read;
}

TEST(SeriesReader, ReadsRowsInOrder) {
  testing::ScratchFiles files;
  const auto path = files.write(
      "good.csv",
      "\xEF\xBB\xBFtimestamp,value\r\n2015-02-26 21:42:53,104\r\n\r\n2015-02-26 21:47:53,-1.5e3\r\n"
      "2015-02-26 21:47:53, 7 \r\n");
  const Read read = read_all(path);
  ASSERT_EQ(read.error, "");
  ASSERT_EQ(read.points.size(), 3u);
  EXPECT_EQ(read.points[0].timestamp, "2015-02-26 21:42:53");
  EXPECT_EQ(read.points[0].value, 104);
  EXPECT_EQ(read.points[0].line, 2);
  EXPECT_EQ(read.points[1].value, -1500);
  EXPECT_EQ(read.points[1].line, 4);   // the blank line is skipped, and counted
  EXPECT_EQ(read.points[2].value, 7);  // the same time twice is allowed
  EXPECT_TRUE(read.warnings.empty());
}

TEST(SeriesReader, FindsItsColumnsByName) {
  testing::ScratchFiles files;
  const auto path =
      files.write("extra.csv", "label,Value,timestamp\nx,3,2020-01-01\ny,4,2020-01-02\n");
  const Read read = read_all(path);
  ASSERT_EQ(read.error, "");
  ASSERT_EQ(read.points.size(), 2u);
  EXPECT_EQ(read.points[1].value, 4);
  EXPECT_EQ(read.points[1].timestamp, "2020-01-02");
}

TEST(SeriesReader, NamesFileAndLineOfEveryBadRow) {
  testing::ScratchFiles files;
  const std::string header = "timestamp,value\n";
  const std::string one = "2020-01-01 00:00:00,1\n";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"", ":1: the file is empty"},
      {"\n\n", ":3: the file is empty"},
      {"time,value\n" + one, ":1: expected a header naming the columns timestamp,value"},
      {one + one, ":1: expected a header"},  // no header: the first row is taken for one
      {header, ":1: the file has a header but no rows"},
      {header + one + "2020-01-01 00:05:00,abc\n", ":3: \"abc\" is not a finite number"},
      {header + one + "2020-01-01 00:05:00,nan\n", ":3: \"nan\" is not a finite number"},
      {header + one + "2020-01-01 00:05:00,\n", ":3: the value is empty"},
      {header + one + "2020-01-01 00:05:00\n", ":3: expected at least 2 fields, found 1"},
      {header + one + "2020-01-01 25:00:00,1\n", ":3: \"2020-01-01 25:00:00\" is not a timestamp"},
      {header + one + ",1\n", ":3: the timestamp is empty"},
      {header + one + "2019-12-31 22:59:59,1\n",
       ":3: timestamp 2019-12-31 22:59:59 is earlier than 2020-01-01 00:00:00 (line 2); rows "
       "must be in time order"},
  };
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const auto path = files.write("bad" + std::to_string(i) + ".csv", cases[i].first);
    const Read read = read_all(path);
    EXPECT_NE(read.error.find(path + cases[i].second), std::string::npos)
        << "case " << i << ": " << read.error;
  }
}

TEST(SeriesReader, TakesAClockSetBackByAnHourWithAWarning) {
  // NAB's machine_temperature_system_failure.csv goes from 02:55 back to 02:00 once.
  testing::ScratchFiles files;
  const auto path = files.write("repeat.csv",
                                "timestamp,value\n2014-01-07 02:50:00,1\n2014-01-07 02:55:00,2\n"
                                "2014-01-07 02:00:00,3\n2014-01-07 02:05:00,4\n"
                                "2014-01-07 01:54:59,5\n");
  const Read read = read_all(path);
  EXPECT_EQ(read.points.size(), 4u);
  ASSERT_EQ(read.warnings.size(), 1u);
  EXPECT_NE(read.warnings[0].find(path + ":4: timestamp 2014-01-07 02:00:00 is earlier than the "
                                         "previous row's (2014-01-07 02:55:00)"),
            std::string::npos);
  // More than an hour before the latest time seen is out of order.
  EXPECT_NE(read.error.find(path + ":6: timestamp 2014-01-07 01:54:59 is earlier than "
                                   "2014-01-07 02:55:00 (line 3)"),
            std::string::npos)
      << read.error;
}

TEST(SeriesReader, SaysWhenAFileCannotBeOpened) {
  testing::ScratchFiles files;
  auto reader = SeriesReader::open(files.path("missing.csv"));
  ASSERT_FALSE(reader);
  EXPECT_EQ(reader.error().code, ErrorCode::kNotFound);
  EXPECT_NE(reader.error().message.find("cannot open " + files.path("missing.csv")),
            std::string::npos);
}

}  // namespace
}  // namespace supportd::obs::anomaly
