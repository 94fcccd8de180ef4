import Foundation

extension SVG {
  /// The values at each x, one label per series, moved apart vertically so that no two
  /// overlap (11 px, a line of text), in the order of their points. O(points log series).
  package static func pointLabels(
    xs: [Double], series: [(index: Int, values: [Double?])], colors: [String], x: (Double) -> Double,
    y: (Double?) -> Double?
  ) -> String {
    var s = ""
    for (k, xv) in xs.enumerated() {
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
        s += String(
          format:
            """
            <text x=\"%.1f\" y=\"%.1f\" dx=\"-4\" dy=\"-3\" text-anchor=\"end\" fill=\"%@\" stroke=\"white\" \
            stroke-width=\"3\" paint-order=\"stroke\">%@</text>\n
            """,
          x(xv), label.y, label.color, label.text)
      }
    }
    return s
  }
}
