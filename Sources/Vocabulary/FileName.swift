/// File names built from data (a dataset, store or index name in results.csv).
public enum FileName {
  /// `name` made safe as one path component: only ASCII letters, digits and `._+-` stay,
  /// every other character becomes `_`, and a leading `.` becomes `_` (no `..`, no hidden
  /// file). O(name).
  public static func safeComponent(_ name: String) -> String {
    var out = String(name.unicodeScalars.map { isKept($0) ? Character($0) : "_" })
    if out.hasPrefix(".") { out = "_" + out.dropFirst() }
    return out.isEmpty ? "_" : out
  }

  private static func isKept(_ s: Unicode.Scalar) -> Bool {
    ("a"..."z").contains(s) || ("A"..."Z").contains(s) || ("0"..."9").contains(s) || "._+-".unicodeScalars.contains(s)
  }
}
