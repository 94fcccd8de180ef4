import Foundation

/// `1536` → `1.5 KiB`: binary units, one decimal from KiB up.
func bytes(_ v: Double?) -> String {
  guard let v else { return "—" }
  let a = abs(v)
  if a >= 1_073_741_824 { return String(format: "%.2f GiB", v / 1_073_741_824) }
  if a >= 1_048_576 { return String(format: "%.1f MiB", v / 1_048_576) }
  if a >= 1024 { return String(format: "%.1f KiB", v / 1024) }
  return String(format: "%.0f B", v)
}
