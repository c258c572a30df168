// Small self-contained SVG line charts for the HTML report: linear or logarithmic x axis,
// "nice" ticks, a legend, and an optional vertical marker (the end of the warm-up).
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace supportd::bench {

struct ChartSeries {
  std::string name;
  std::string color;                              // CSS color
  std::vector<std::pair<double, double>> points;  // (x, y), x ascending
};

struct ChartOptions {
  std::string title;
  std::string x_label;
  std::string y_label;
  bool log_x = false;    // x must then be positive; other points are dropped
  double marker_x = -1;  // a dashed vertical line there when >= 0
  std::string marker_label;
};

// An <svg> element, 720x300. Series without points are left out of the legend; with no points
// at all the chart says "no data".
std::string line_chart(const ChartOptions& options, const std::vector<ChartSeries>& series);

// Text escaped for HTML and SVG.
std::string html_escape(const std::string& text);

}  // namespace supportd::bench
