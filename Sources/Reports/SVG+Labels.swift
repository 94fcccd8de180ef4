import Foundation

extension SVG {
  /// A text's box on the chart, to keep labels from covering one another.
  package struct Box: Equatable {
    package var minX: Double
    package var maxX: Double
    package var minY: Double
    package var maxY: Double

    /// The box of 11 px sans-serif `text` (about 6.5 px a character) ending at `x` (text-anchor
    /// end), its baseline at `y`.
    package init(endingAt x: Double, baseline y: Double, text: String) {
      (minX, maxX, minY, maxY) = (x - 6.5 * Double(text.count), x, y - 9, y + 2)
    }

    package init(minX: Double, maxX: Double, minY: Double, maxY: Double) {
      (self.minX, self.maxX, self.minY, self.maxY) = (minX, maxX, minY, maxY)
    }

    package func overlaps(_ o: Box) -> Bool { minX < o.maxX && o.minX < maxX && minY < o.maxY && o.minY < maxY }
  }

  /// The values at each x, one label per series, up and to the left of its point. Labels at
  /// one x are moved apart vertically (11 px, a line of text); a label that would still cover
  /// another, or a box in `reserved` (a threshold's label), moves a line down or up, or is left
  /// out: its value is in the report's tables. The largest x is placed first, so each line's last value reads.
  /// O(points² · series²).
  package static func pointLabels(
    xs: [Double], series: [(index: Int, values: [Double?])], colors: [String], x: (Double) -> Double,
    y: (Double?) -> Double?, reserved: [Box] = []
  ) -> String {
    var placed = reserved
    var s = ""
    for k in xs.indices.reversed() {
      var labels = series.compactMap { entry -> (y: Double, text: String, color: String)? in
        guard k < entry.values.count, let py = y(entry.values[k]) else { return nil }
        return (py, String(format: "%.1f", entry.values[k]!), colors[entry.index % colors.count])
      }
      labels.sort { $0.y < $1.y }
      var previous = -Double.infinity
      for i in labels.indices {
        labels[i].y = max(labels[i].y, previous + 11)
        previous = labels[i].y
      }
      for label in labels {
        // Up and to the left of its point: a rising line leaves that quadrant free, and a white
        // halo keeps the text legible where another series' line crosses it.
        // Where that is taken (a limit's label at the plot's edge), a line of text lower, then
        // higher; else the label is left out.
        guard
          let y = [label.y, label.y + 14, label.y - 11].first(where: { y in
            !placed.contains(where: Box(endingAt: x(xs[k]) - 4, baseline: y - 3, text: label.text).overlaps)
          })
        else { continue }
        placed.append(Box(endingAt: x(xs[k]) - 4, baseline: y - 3, text: label.text))
        s += String(
          format:
            """
            <text x=\"%.1f\" y=\"%.1f\" dx=\"-4\" dy=\"-3\" text-anchor=\"end\" fill=\"%@\" stroke=\"white\" \
            stroke-width=\"3\" paint-order=\"stroke\">%@</text>\n
            """,
          x(xs[k]), y, label.color, label.text)
      }
    }
    return s
  }
}
