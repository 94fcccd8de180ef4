import Foundation

/// Minimal, dependency-free SVG charts.
package enum SVG {
  package static func esc(_ s: String) -> String {
    s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
  }

  /// Horizontal grouped bars on a linear axis from zero, with ticks, gridlines and the axis's
  /// title, so that a bar twice as long is twice the value; each bar is labelled with its
  /// value, so that a short bar still reads. Series with neither a value nor a word
  /// (`unmeasured`) are left out of the legend.
  /// Ticks fall on round multiples of `unit` (a MiB for bytes), labelled by `tickFormat`
  /// (default `format`). `threshold` (one frame) is drawn as a dashed line when it falls within
  /// the axis. `unmeasured(series, category)` is a word written where a bar has no value (a
  /// measurement skipped), so that its absence does not read as zero. O(categories · series).
  package static func bars(
    title: String, axisTitle: String, categories: [String], series: [(String, String, [Double?])],
    format: (Double) -> String,
    unit: Double = 1, tickFormat: ((Double) -> String)? = nil, threshold: (value: Double, label: String)? = nil,
    unmeasured: (_ series: Int, _ category: Int) -> String? = { _, _ in nil }
  ) -> String {
    // Categories and series with neither a value nor a word take no room.
    func drawn(_ s: Int, _ c: Int) -> Bool { (series[s].2[c] ?? 0) > 0 || unmeasured(s, c) != nil }
    let shown = categories.indices.filter { c in series.indices.contains { drawn($0, c) } }
    let kept = series.indices.filter { s in categories.indices.contains { drawn(s, $0) } }
    let notes = kept.map { s in shown.map { unmeasured(s, $0) } }
    let categories = shown.map { categories[$0] }
    let series = kept.map { s in (series[s].0, series[s].1, shown.map { series[s].2[$0] }) }
    let values = series.flatMap { $0.2.compactMap { $0 } }.filter { $0 > 0 }
    let ticks = niceTicks(upTo: (values.max() ?? 1) / unit).map { $0 * unit }
    let top = ticks.last ?? 1
    // Room for the longest category name (about 6.5 px a character at 11 px sans-serif), and
    // for the value labels right of the longest bar.
    let left = max(120, 6.5 * Double(categories.map(\.count).max() ?? 0) + 16)
    let labelRoom = 6.5 * Double(values.map { format($0).count }.max() ?? 6) + 10
    let width = 480.0
    let barH = 14.0
    let gap = 10.0
    let groupH = Double(series.count) * barH + gap
    // A threshold's label sits between the legend and the plot.
    let plotTop = threshold == nil ? 50.0 : 64.0
    let plotH = Double(categories.count) * groupH
    let height = plotTop + plotH + 44
    func x(_ v: Double) -> Double { left + v / top * width }
    var s =
      """
      <svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(left + width + labelRoom))\" height=\"\(Int(height))\" \
      font-family=\"sans-serif\" font-size=\"11\">\n
      """
    s += "<text x=\"10\" y=\"18\" font-size=\"13\" font-weight=\"bold\">\(esc(title))</text>\n"
    s += legend(series.map { ($0.0, $0.1) }, from: left)
    for t in ticks {
      let tx = String(format: "%.1f", x(t))
      s += "<line x1=\"\(tx)\" y1=\"\(Int(plotTop))\" x2=\"\(tx)\" y2=\"\(Int(plotTop + plotH))\" stroke=\"#ddd\"/>"
      s +=
        """
        <text x=\"\(tx)\" y=\"\(Int(plotTop + plotH + 14))\" text-anchor=\"middle\" \
        fill=\"#555\">\(t == 0 ? "0" : esc(tickFormat.map { $0(t) } ?? format(t)))</text>\n
        """
    }
    s +=
      """
      <text x=\"\(Int(left + width / 2))\" y=\"\(Int(plotTop + plotH + 32))\" \
      text-anchor=\"middle\">\(esc(axisTitle))</text>\n
      """
    // Under the bars and their labels: a label's halo keeps it legible where the line crosses.
    if let threshold, threshold.value <= top {
      s += thresholdLine(
        threshold.label, at: x(threshold.value), from: plotTop, to: plotTop + plotH,
        endingAtLine: threshold.value > top / 2)
    } else if let threshold {
      // Every bar is under it: said where its line would start, so that the limit still reads.
      s +=
        """
        <text x=\"\(Int(left + width))\" y=\"\(Int(plotTop - 8))\" text-anchor=\"end\" fill=\"#d9534f\" \
        font-size=\"10\">\(esc(threshold.label)), beyond the axis →</text>\n
        """
    }
    for (c, cat) in categories.enumerated() {
      let y0 = plotTop + Double(c) * groupH
      s += "<text x=\"\(Int(left) - 6)\" y=\"\(Int(y0 + groupH / 2))\" text-anchor=\"end\">\(esc(cat))</text>\n"
      for (i, (_, color, vals)) in series.enumerated() {
        let y = y0 + Double(i) * barH
        guard let v = vals[c], v > 0 else {
          if let note = notes[i][c] {
            s += "<text x=\"\(Int(left) + 4)\" y=\"\(Int(y + barH - 4))\" fill=\"#555\">\(esc(note))</text>\n"
          }
          continue
        }
        let w = max(1, v / top * width)
        s +=
          """
          <rect x=\"\(Int(left))\" y=\"\(Int(y))\" width=\"\(String(format: "%.1f", w))\" \
          height=\"\(Int(barH - 2))\" fill=\"\(color)\"/>
          """
        s +=
          """
          <text x=\"\(Int(left + w + 4))\" y=\"\(Int(y + barH - 4))\" stroke=\"white\" stroke-width=\"3\" \
          paint-order=\"stroke\">\(esc(format(v)))</text>\n
          """
      }
    }
    s +=
      """
      <line x1=\"\(Int(left))\" y1=\"\(Int(plotTop))\" x2=\"\(Int(left))\" y2=\"\(Int(plotTop + plotH))\" \
      stroke=\"#333\"/>\n
      """
    return s + "</svg>\n"
  }

  /// The bar chart's legend, a swatch and a name per series, left to right from `left`.
  static func legend(_ series: [(name: String, color: String)], from left: Double) -> String {
    var s = ""
    var legendX = left
    for (name, color) in series {
      s += "<rect x=\"\(Int(legendX))\" y=\"28\" width=\"10\" height=\"10\" fill=\"\(color)\"/>"
      s += "<text x=\"\(Int(legendX + 14))\" y=\"37\">\(esc(name))</text>\n"
      legendX += 14 + 6.5 * Double(name.count) + 16
    }
    return s
  }

  /// A dashed red line across the plot at `x`, labelled above it: starting at the line, or
  /// in the plot's right half ending at it, so that the label stays within the chart.
  static func thresholdLine(
    _ label: String, at x: Double, from plotTop: Double, to plotBottom: Double, endingAtLine: Bool = false
  ) -> String {
    let tx = String(format: "%.1f", x)
    return
      """
      <line x1=\"\(tx)\" y1=\"\(Int(plotTop - 4))\" x2=\"\(tx)\" y2=\"\(Int(plotBottom))\" stroke=\"#d9534f\" \
      stroke-dasharray=\"4 3\"/>
      """
        + """
        <text x=\"\(tx)\" y=\"\(Int(plotTop - 8))\"\(endingAtLine ? " text-anchor=\"end\"" : "") fill=\"#d9534f\" \
        font-size=\"10\">\(esc(label))</text>\n
        """
  }

  /// Ticks from zero at a step of 1, 2, 2.5 or 5 times a power of ten, the last at or above
  /// `max`: four to six steps, so the axis ends near the longest bar. O(1).
  package static func niceTicks(upTo max: Double) -> [Double] {
    guard max > 0, max.isFinite else { return [0, 1] }
    let raw = max / 5
    let power = pow(10, floor(log10(raw)))
    let step = [1.0, 2, 2.5, 5, 10].map { $0 * power }.first { $0 >= raw } ?? 10 * power
    let count = Int((max / step).rounded(.up))
    return (0...count).map { Double($0) * step }
  }

  /// Whether a chart labels each point with its value: on a log axis, with few points.
  package static func labelPointsAllowed(_ y: Axis, _ xs: [Double]) -> Bool { y == .log && xs.count <= 12 }

  /// How a line chart's axis maps values: `log` (decades; values ≤ 0 are left out) or
  /// `linear` from zero.
  package enum Axis {
    case log, linear
  }

  /// One line chart: `xs` shared by every series, a value per x (nil: no point). On a log y
  /// axis each point is labelled with its value; on a linear one the y axis gets five ticks.
  /// `xLabel` prints an x tick. O(points).
  /// `xTitle` and `yTitle` name the axes; `markCrossings` marks where each line crosses each
  /// threshold, with the x there (interpolated on the axes' scales) written beside the mark.
  package static func lines(
    title: String, xs: [Double], series: [(String, [Double?])], x: Axis, y: Axis, legendSuffix: String = "",
    thresholds: [(label: String, value: Double)] = [], xTitle: String? = nil, yTitle: String? = nil,
    markCrossings: Bool = false,
    xLabel: (Double) -> String
  ) -> String {
    let chart = LineChart(xs: xs, series: series, x: x, y: y, thresholds: thresholds)
    let legends = chart.legends(suffix: legendSuffix)
    // Wide enough for the longest legend line: about 6.5 px a character at 11 px sans-serif.
    let width = chart.legendX + max(190, 6.5 * Double(legends.map(\.count).max() ?? 0) + 10)
    let bottom = chart.t + chart.h + (xTitle == nil ? 40 : 55)
    var s =
      """
      <svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(width))\" height=\"\(Int(bottom))\" \
      font-family=\"sans-serif\" font-size=\"11\">\n
      """
    s += "<text x=\"10\" y=\"18\" font-size=\"13\" font-weight=\"bold\">\(esc(title))</text>\n"
    s += chart.axes(xLabel: xLabel) + chart.thresholdLines() + chart.seriesLines(legends: legends)
    // Where a line crosses a limit is read first: the values' labels keep clear of its labels.
    let crossings = markCrossings ? chart.crossingMarks(xLabel: xLabel) : (svg: "", boxes: [])
    if chart.labelPoints { s += chart.valueLabels(reserved: crossings.boxes, xLabel: xLabel) }
    s += crossings.svg
    if let xTitle {
      s +=
        """
        <text x=\"\(Int(chart.l + chart.w / 2))\" y=\"\(Int(chart.t + chart.h + 33))\" text-anchor=\"middle\" \
        fill=\"#444\">\(esc(xTitle))</text>\n
        """
    }
    if let yTitle {
      let (cx, cy) = (14, Int(chart.t + chart.h / 2))
      s +=
        """
        <text x=\"\(cx)\" y=\"\(cy)\" text-anchor=\"middle\" fill=\"#444\" transform=\"rotate(-90 \(cx) \
        \(cy))\">\(esc(yTitle))</text>\n
        """
    }
    return s + "</svg>\n"
  }

  /// A line chart's geometry and scales: the plot at (`l`, `t`), `w` by `h` pixels.
  package struct LineChart {
    package let xs: [Double]
    package let series: [(String, [Double?])]
    package let x: Axis
    package let y: Axis
    package let thresholds: [(label: String, value: Double)]
    package let l = 60.0
    package let t = 40.0
    package let w = 560.0
    package let h: Double
    package let colors: [String]
    /// Every value plotted, threshold lines included: a chart whose lines all sit far under
    /// one (one frame, a memory budget) shows how far.
    package let values: [Double]
    /// A few points carry their values; a long series (seconds of a load run) gets ticks.
    package let labelPoints: Bool
    /// The legend sits clear of the values labelled at the last points.
    package let legendX: Double
    package let scaleX: (Double) -> Double
    package let scaleY: (Double) -> Double
    /// For each series, the earlier series whose line it runs on, if any.
    package let coincides: [Int?]

    package init(
      xs: [Double], series: [(String, [Double?])], x: Axis, y: Axis, thresholds: [(label: String, value: Double)]
    ) {
      (self.xs, self.series, self.x, self.y, self.thresholds) = (xs, series, x, y, thresholds)
      let more = ["#6f42c1", "#17a2b8", "#343a40"]
      colors =
        (x == .log ? ["#d9534f", "#0275d8", "#5cb85c", "#f0ad4e"] : ["#0275d8", "#d9534f", "#5cb85c", "#f0ad4e"]) + more
      h = y == .log ? 300.0 : 220.0
      labelPoints = labelPointsAllowed(y, xs)
      legendX = 60.0 + 560.0 + (labelPoints ? 60 : 10)
      let values = series.flatMap { $0.1.compactMap { $0 } } + thresholds.map(\.value)
      self.values = values
      scaleY = Self.scale(values, y, margin: 0.2)
      switch x {
      case .log:
        let (lo, hi) = (log10(xs.first ?? 1), log10(xs.last ?? 10))
        scaleX = { (log10($0) - lo) / max(hi - lo, 1e-9) }
      case .linear:
        let right = max(xs.max() ?? 1, 1)
        scaleX = { $0 / right }
      }
      coincides = Self.coinciding(series, y)
    }

    /// The y scale: decades padded by `margin`, or linear from zero to a tenth over the top.
    package static func scale(_ values: [Double], _ y: Axis, margin: Double) -> (Double) -> Double {
      switch y {
      case .log:
        let positive = values.filter { $0 > 0 }
        let (lo, hi) = (log10(positive.min() ?? 1) - margin, log10(positive.max() ?? 10) + margin)
        return { (log10($0) - lo) / max(hi - lo, 1e-9) }
      case .linear:
        let top = max(values.max() ?? 1, 1e-9) * 1.1
        return { $0 / top }
      }
    }

    package static func plotted(_ v: Double?, _ y: Axis) -> Double? { v.flatMap { y == .log && $0 <= 0 ? nil : $0 } }
    package func plotted(_ v: Double?) -> Double? { Self.plotted(v, y) }

    /// A series that runs on an earlier one's line (offset and keyset pages hold the same
    /// heap) is drawn dashed over it and says so, instead of hiding it.
    package static func coinciding(_ series: [(String, [Double?])], _ y: Axis) -> [Int?] {
      series.indices.map { i in
        (0..<i).first { j in
          zip(series[i].1, series[j].1).allSatisfy { a, b in
            switch (plotted(a, y), plotted(b, y)) {
            case (nil, nil): true
            case (let a?, let b?): abs(a - b) <= 0.01 * max(abs(a), abs(b))
            default: false
            }
          }
        }
      }
    }

    package func px(_ v: Double) -> String { String(format: "%.1f", l + scaleX(v) * w) }
    package func py(_ v: Double) -> String { String(format: "%.1f", t + h - scaleY(v) * h) }

    package func legends(suffix: String) -> [String] {
      series.indices.map { i in
        series[i].0 + suffix + (coincides[i].map { " (on \(series[$0].0)'s line)" } ?? "")
      }
    }

    /// The y axis's ticks and their labels: five from zero on a linear axis; on a log axis the
    /// decades in range, and within fewer than three decades 2 and 5 times each too, so that
    /// every chart has ticks to read a value by. O(decades).
    package func yTicks() -> [(value: Double, label: String)] {
      if y == .linear {
        let top = max(values.max() ?? 1, 1e-9)
        return (0...4).map { k in
          let v = top * Double(k) / 4
          return (v, String(format: v >= 100 ? "%.0f" : "%.1f", v))
        }
      }
      let positive = values.filter { $0 > 0 }
      let (lo, hi) = (Int(floor(log10(positive.min() ?? 1))), Int(ceil(log10(positive.max() ?? 10))))
      let steps: [Double] = hi - lo < 3 ? [1, 2, 5] : [1]
      var out: [(Double, String)] = []
      for e in lo...max(lo, hi) {
        for step in steps {
          let v = step * pow(10, Double(e))
          guard v >= (positive.min() ?? 1) / 1.6, v <= (positive.max() ?? 10) * 1.6 else { continue }
          out.append((v, v >= 1 ? String(Int(v)) : String(format: "%g", v)))
        }
      }
      return out
    }

    /// The two axis lines, the x ticks, and the y ticks.
    package func axes(xLabel: (Double) -> String) -> String {
      var s =
        """
        <line x1=\"\(Int(l))\" y1=\"\(Int(t + h))\" x2=\"\(Int(l + w))\" y2=\"\(Int(t + h))\" stroke=\"#888\"/><line \
        x1=\"\(Int(l))\" y1=\"\(Int(t))\" x2=\"\(Int(l))\" y2=\"\(Int(t + h))\" stroke=\"#888\"/>\n
        """
      for v in xTicks {
        s += "<text x=\"\(px(v))\" y=\"\(Int(t + h + 15))\" text-anchor=\"middle\">\(esc(xLabel(v)))</text>\n"
      }
      for (v, label) in yTicks() {
        if y == .log {
          s += "<line x1=\"\(Int(l) - 3)\" y1=\"\(py(v))\" x2=\"\(Int(l))\" y2=\"\(py(v))\" stroke=\"#888\"/>"
        }
        s += "<text x=\"\(Int(l) - 4)\" y=\"\(py(v))\" text-anchor=\"end\">\(esc(label))</text>\n"
      }
      return s
    }

    /// Where each line crosses each threshold: a ring on the line and the x there. The x is
    /// interpolated between the two points on either side, on the axes' own scales. O(points ·
    /// thresholds).
    package func crossingMarks(xLabel: (Double) -> String) -> (svg: String, boxes: [SVG.Box]) {
      func u(_ v: Double, _ axis: Axis) -> Double { axis == .log ? log10(v) : v }
      func back(_ v: Double, _ axis: Axis) -> Double { axis == .log ? pow(10, v) : v }
      var s = ""
      // Labels already written, by threshold and x: two lines crossing a line close together
      // get one label, not two on top of each other.
      var written: [(level: Double, x: Double)] = []
      var boxes: [SVG.Box] = []
      var labels: [SVG.Box] = []
      let taken = reservedBoxes(xLabel: xLabel)
      for (i, (_, vals)) in series.enumerated() where coincides[i] == nil {
        let color = colors[i % colors.count]
        for (_, level) in thresholds where plotted(level) != nil {
          for k in 1..<max(1, xs.count) {
            guard let a = plotted(vals[k - 1]), let b = plotted(vals[k]), (a - level) * (b - level) < 0 else {
              continue
            }
            let f = (u(level, y) - u(a, y)) / (u(b, y) - u(a, y))
            let at = Self.twoDigits(back(u(xs[k - 1], x) + f * (u(xs[k], x) - u(xs[k - 1], x)), x))
            s +=
              """
              <circle cx=\"\(px(at))\" cy=\"\(py(level))\" r=\"4\" fill=\"none\" stroke=\"\(color)\" \
              stroke-width=\"2\"/>\n
              """
            let xPixel = l + scaleX(at) * w
            let yPixel = t + h - scaleY(level) * h
            boxes.append(SVG.Box(minX: xPixel - 5, maxX: xPixel + 5, minY: yPixel - 5, maxY: yPixel + 5))
            guard !written.contains(where: { $0.level == level && abs($0.x - xPixel) < 50 }) else { continue }
            written.append((level, xPixel))
            // Below the ring, above it, or right of it, wherever no label is yet; else the ring alone.
            let text = "≈ \(xLabel(at))"
            let half = 3.25 * Double(text.count)
            let places: [(dx: Double, dy: Double, anchor: String, end: Double)] = [
              (0, 14, "middle", half), (0, -8, "middle", half), (8, 4, "start", 8 + 2 * half),
            ]
            guard
              let place = places.first(where: { p in
                let box = SVG.Box(endingAt: xPixel + p.end, baseline: yPixel + p.dy, text: text)
                return !(taken + labels).contains(where: box.overlaps)
              })
            else { continue }
            labels.append(SVG.Box(endingAt: xPixel + place.end, baseline: yPixel + place.dy, text: text))
            s +=
              """
              <text x=\"\(px(at))\" y=\"\(py(level))\" dx=\"\(Int(place.dx))\" dy=\"\(Int(place.dy))\" \
              text-anchor=\"\(place.anchor)\" fill=\"\(color)\">\(esc(text))</text>\n
              """
          }
        }
      }
      return (s, boxes + labels)
    }

    /// `v` to two significant digits: an interpolated crossing is no more precise than that.
    package static func twoDigits(_ v: Double) -> Double {
      guard v > 0 else { return v }
      let scale = pow(10, floor(log10(v)) - 1)
      return (v / scale).rounded() * scale
    }

    /// A dashed line and its label for each threshold in range.
    package func thresholdLines() -> String {
      var s = ""
      for (label, v) in thresholds where plotted(v) != nil {
        s +=
          """
          <line x1=\"\(Int(l))\" y1=\"\(py(v))\" x2=\"\(Int(l + w))\" y2=\"\(py(v))\" stroke=\"#999\" \
          stroke-dasharray=\"4 3\"/>
          """
        s +=
          """
          <text x=\"\(Int(l + w) - 2)\" y=\"\(py(v))\" dy=\"-3\" text-anchor=\"end\" \
          fill=\"#666\">\(esc(label))</text>\n
          """
      }
      return s
    }

    /// Each series' line and its legend line.
    package func seriesLines(legends: [String]) -> String {
      var s = ""
      for (i, (_, vals)) in series.enumerated() {
        let color = colors[i % colors.count]
        let pts = zip(xs, vals).compactMap { xv, yv in plotted(yv).map { "\(px(xv)),\(py($0))" } }
        let dash = coincides[i] == nil ? "" : " stroke-dasharray=\"6 4\""
        s +=
          """
          <polyline fill=\"none\" stroke=\"\(color)\" stroke-width=\"2\"\(dash) \
          points=\"\(pts.joined(separator: " "))\"/>\n
          """
        s += "<text x=\"\(Int(legendX))\" y=\"\(Int(t) + 14 * i)\" fill=\"\(color)\">\(esc(legends[i]))</text>\n"
      }
      return s
    }

    /// The x axis's ticks: each x on a log axis, five from zero on a linear one.
    package var xTicks: [Double] { x == .log ? xs : (0...4).map { max(xs.max() ?? 1, 1) * Double($0) / 4 } }

    /// The labels every chart has, placed before any value's: the thresholds' (right-aligned
    /// above their lines) and both axes' ticks. `xLabel` prints an x tick.
    package func reservedBoxes(xLabel: (Double) -> String) -> [SVG.Box] {
      thresholds.compactMap { label, v in
        plotted(v).map { SVG.Box(endingAt: l + w - 2, baseline: t + h - scaleY($0) * h - 3, text: label) }
      } + yTicks().map { v, label in SVG.Box(endingAt: l - 4, baseline: t + h - scaleY(v) * h, text: label) }
        + xTicks.map { v in
          let text = xLabel(v)
          return SVG.Box(endingAt: l + scaleX(v) * w + 3.25 * Double(text.count), baseline: t + h + 15, text: text)
        }
    }

    /// The points' values; labels on a line drawn over another's would repeat its values.
    package func valueLabels(reserved extra: [SVG.Box] = [], xLabel: (Double) -> String) -> String {
      let labelled: [(index: Int, values: [Double?])] = series.indices.filter { coincides[$0] == nil }.map {
        ($0, series[$0].1)
      }
      let reserved = reservedBoxes(xLabel: xLabel)
      return pointLabels(
        xs: xs, series: labelled, colors: colors, x: { l + scaleX($0) * w },
        y: { plotted($0).map { t + h - scaleY($0) * h } }, reserved: reserved + extra)
    }
  }
}
