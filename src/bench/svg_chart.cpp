// SVG line charts for the HTML report (svg_chart.h): axes with nice ticks, linear or log x,
// series, legend and marker, text escaped.
#include "bench/svg_chart.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace supportd::bench {

namespace {

constexpr double kWidth = 720, kHeight = 300;
constexpr double kLeft = 64, kRight = 150, kTop = 30, kBottom = 44;

double nice_step(double range, int ticks) {
  const double raw = range / ticks;
  const double magnitude = std::pow(10, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (raw <= m * magnitude) return m * magnitude;
  return 10 * magnitude;
}

std::string tick_label(double v) {
  if (v == 0) return "0";
  const double a = std::abs(v);
  if (a >= 1e6) return fmt::format("{:g}M", v / 1e6);
  if (a >= 1e4) return fmt::format("{:g}k", v / 1e3);
  return fmt::format("{:g}", std::round(v * 1000) / 1000);
}

}  // namespace

std::string html_escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string line_chart(const ChartOptions& o, const std::vector<ChartSeries>& all_series) {
  std::vector<ChartSeries> series;
  double x_min = 1e300, x_max = -1e300, y_max = 0;
  for (const ChartSeries& s : all_series) {
    ChartSeries kept{s.name, s.color, {}};
    for (const auto& [x, y] : s.points) {
      if (!std::isfinite(x) || !std::isfinite(y) || (o.log_x && x <= 0)) continue;
      kept.points.emplace_back(x, y);
      x_min = std::min(x_min, x);
      x_max = std::max(x_max, x);
      y_max = std::max(y_max, y);
    }
    if (!kept.points.empty()) series.push_back(std::move(kept));
  }
  std::string svg = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} "
      "{1}\" font-family=\"sans-serif\" font-size=\"11\">\n"
      "<text x=\"{2}\" y=\"18\" font-size=\"14\" font-weight=\"bold\">{3}</text>\n",
      kWidth, kHeight, kLeft, html_escape(o.title));
  const double plot_w = kWidth - kLeft - kRight, plot_h = kHeight - kTop - kBottom;
  svg += fmt::format(
      "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" "
      "stroke=\"#999\"/>\n",
      kLeft, kTop, plot_w, plot_h);
  if (series.empty()) {
    svg += fmt::format(
        "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" fill=\"#777\">no data"
        "</text>\n</svg>\n",
        kLeft + plot_w / 2, kTop + plot_h / 2);
    return svg;
  }
  if (o.log_x) {
    x_min = std::pow(10, std::floor(std::log10(x_min)));
    x_max = std::pow(10, std::ceil(std::log10(x_max)));
    if (x_max <= x_min) x_max = x_min * 10;
  } else {
    if (o.marker_x >= 0) x_max = std::max(x_max, o.marker_x);
    x_min = std::min(0.0, x_min);
    if (x_max <= x_min) x_max = x_min + 1;
  }
  if (y_max <= 0) y_max = 1;
  const double y_step = nice_step(y_max, 5);
  y_max = std::ceil(y_max / y_step) * y_step;
  auto px = [&](double x) {
    const double f =
        o.log_x ? (std::log10(x) - std::log10(x_min)) / (std::log10(x_max) - std::log10(x_min))
                : (x - x_min) / (x_max - x_min);
    return kLeft + f * plot_w;
  };
  auto py = [&](double y) { return kTop + plot_h - y / y_max * plot_h; };

  for (double y = 0; y <= y_max + y_step / 2; y += y_step) {
    svg += fmt::format(
        "<line x1=\"{0}\" x2=\"{1}\" y1=\"{2:.1f}\" y2=\"{2:.1f}\" stroke=\"#eee\"/>"
        "<text x=\"{3}\" y=\"{4:.1f}\" text-anchor=\"end\">{5}</text>\n",
        kLeft, kLeft + plot_w, py(y), kLeft - 4, py(y) + 4, tick_label(y));
  }
  std::vector<double> x_ticks;
  if (o.log_x) {
    for (double x = x_min; x <= x_max * 1.0001; x *= 10)
      x_ticks.push_back(x);
  } else {
    const double step = nice_step(x_max - x_min, 8);
    for (double x = std::ceil(x_min / step) * step; x <= x_max + step / 2; x += step)
      x_ticks.push_back(x);
  }
  for (double x : x_ticks) {
    svg += fmt::format(
        "<line x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1}\" y2=\"{2}\" stroke=\"#eee\"/>"
        "<text x=\"{0:.1f}\" y=\"{3}\" text-anchor=\"middle\">{4}</text>\n",
        px(x), kTop, kTop + plot_h, kTop + plot_h + 14, tick_label(x));
  }
  svg += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
                     kLeft + plot_w / 2, kHeight - 8, html_escape(o.x_label));
  svg += fmt::format(
      "<text x=\"14\" y=\"{0}\" text-anchor=\"middle\" transform=\"rotate(-90 14 "
      "{0})\">{1}</text>\n",
      kTop + plot_h / 2, html_escape(o.y_label));
  if (o.marker_x >= 0 && !o.log_x) {
    svg += fmt::format(
        "<line x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1}\" y2=\"{2}\" stroke=\"#888\" "
        "stroke-dasharray=\"4 3\"/><text x=\"{3:.1f}\" y=\"{4}\" fill=\"#666\">{5}"
        "</text>\n",
        px(o.marker_x), kTop, kTop + plot_h, px(o.marker_x) + 3, kTop + 12,
        html_escape(o.marker_label));
  }
  int legend = 0;
  for (const ChartSeries& s : series) {
    std::string path;
    for (const auto& [x, y] : s.points)
      path += fmt::format("{}{:.1f},{:.1f}", path.empty() ? "M" : " L", px(x), py(y));
    svg += fmt::format("<path d=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"1.6\"/>\n", path,
                       s.color);
    const double ly = kTop + 10 + legend * 16;
    svg += fmt::format(
        "<line x1=\"{0}\" x2=\"{1}\" y1=\"{2}\" y2=\"{2}\" stroke=\"{3}\" "
        "stroke-width=\"3\"/><text x=\"{4}\" y=\"{5}\">{6}</text>\n",
        kWidth - kRight + 12, kWidth - kRight + 30, ly, s.color, kWidth - kRight + 35, ly + 4,
        html_escape(s.name));
    ++legend;
  }
  svg += "</svg>\n";
  return svg;
}

}  // namespace supportd::bench
