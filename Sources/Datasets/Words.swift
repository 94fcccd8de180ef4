// Word lists for realistic names. Changing any list changes every checksum in
// datasets/manifest.json: append-only edits are still edits.

enum Words {
  static let bankWords = [
    "Citizens", "Peoples", "Farmers", "Merchants", "Security", "Heritage", "Pioneer", "Frontier",
    "American", "Home", "Guaranty", "Commerce", "Liberty", "Horizon", "Integrity", "Columbia",
    "Western", "Southern", "Community", "Premier", "Sun", "Valley", "Prairie", "Metro", "Capitol",
    "Bay", "Coastal", "Summit", "Mutual", "Union", "Republic", "Colonial", "Independence", "Eagle",
    "Golden", "Silverton", "Riverside", "Lakeside", "Hillcrest", "Mountain", "Great Plains",
    "Gulf Coast", "Heartland", "Sunrise", "Cornerstone", "Keystone", "Landmark", "Patriot",
    "Freedom", "Enterprise", "Alliance", "Charter", "Centennial", "Crescent", "Evergreen",
    "Magnolia", "Bluebonnet", "Cypress", "Sterling", "Statewide", "Tri-County", "O'Hare",
    "Peachtree", "Orion", "Beach First", "Hometown", "New Frontier", "Silver State", "Mirae",
  ]
  enum Part { case word, city, text(String) }
  /// Bank name patterns: `#W` a word, `#C` a city, parsed once.
  static let bankPatterns: [[Part]] = bankPatternTexts.map { pattern in
    var parts: [Part] = []
    var rest = Substring(pattern)
    while let hash = rest.firstIndex(of: "#") {
      if hash > rest.startIndex { parts.append(.text(String(rest[..<hash]))) }
      let code = rest[rest.index(after: hash)]
      parts.append(code == "W" ? .word : .city)
      rest = rest[rest.index(hash, offsetBy: 2)...]
    }
    if !rest.isEmpty { parts.append(.text(String(rest))) }
    return parts
  }
  static let bankPatternTexts = [
    "First National Bank of #C", "#W State Bank", "#W Savings Bank", "#W Bank & Trust",
    "#W Federal Savings and Loan Association", "Bank of #C", "#W Community Bank, N.A.",
    "The #W Bank", "#W National Bank", "#W Bank of #C", "First #W Bank", "#W Trust Company",
  ]
  static let operators = [
    "Pioneer Natural Resources", "EOG Resources", "Devon Energy", "Chesapeake Operating",
    "ConocoPhillips", "Occidental Petroleum", "Apache Corporation", "Continental Resources",
    "Marathon Oil", "Diamondback E&P", "Chevron U.S.A.", "ExxonMobil", "XTO Energy",
    "Sandridge Energy", "Newfield Exploration", "Anadarko Petroleum", "Burlington Resources",
    "Cimarex Energy", "Concho Resources", "Laredo Petroleum", "Whiting Oil and Gas",
    "Oasis Petroleum", "Range Resources", "EQT Production", "Cabot Oil & Gas", "Antero Resources",
    "Southwestern Energy", "Encana Oil & Gas", "Noble Energy", "Berry Petroleum",
    "California Resources", "Linn Energy", "Vanguard Operating", "Hilcorp Energy",
    "Mewbourne Oil", "Unit Petroleum", "Kaiser-Francis Oil", "Cities Service", "Humble Oil",
    "Gulf Oil", "Texaco", "Amoco Production", "Mobil Oil", "Shell Western E&P", "Sun Oil",
    "Phillips Petroleum", "Sinclair Oil", "Skelly Oil", "Getty Oil", "Tenneco Oil",
    "Ladd Petroleum", "Murphy Oil", "Hunt Oil", "Bass Enterprises", "Parker & Parsley",
    "Stephens Production", "Ward Petroleum", "Samson Resources", "Bluestem Energy", "Smith & Sons",
  ]
  static let fields = [
    "Spraberry (Trend Area)", "Wolfberry", "Eagleville (Eagle Ford-1)", "Sugarkane", "Permian Basin",
    "Bakken", "Sanish", "Parshall", "Marcellus", "Utica", "Barnett Shale", "Haynesville",
    "Wattenberg", "Anadarko Basin", "Sooner Trend", "Hugoton", "Panoma", "East Texas",
    "Yates", "Wasson", "Slaughter", "Levelland", "Kelly-Snyder", "Goldsmith", "Fullerton",
    "Midway-Sunset", "Kern River", "Belridge South", "Wilmington", "Elk Hills", "Jonah",
    "Pinedale", "Powder River", "Salt Creek", "Greater Natural Buttes", "Altamont-Bluebell",
    "Cedar Creek", "Elm Coulee", "Blanco", "Basin Dakota", "Empire Abo", "Hobbs", "Eunice Monument",
    "Golden Trend", "Cement", "Sho-Vel-Tum", "Oklahoma City", "Glenn Pool", "Cushing", "Burbank",
    "El Dorado", "Trapp", "Hall-Gurney", "Bemis-Shutts", "Chase-Silica", "Caddo Pine Island",
    "Lake Washington", "Jennings", "Appalachian", "Big Sinking", "Clinton", "Trenton",
  ]
  static let leaseWords = [
    "Smith", "Johnson", "Williams", "Brown", "Jones", "Miller", "Davis", "Garcia", "Wilson",
    "Anderson", "Taylor", "Thomas", "Moore", "Martin", "Jackson", "Thompson", "White", "Harris",
    "Clark", "Lewis", "Robinson", "Walker", "Young", "Allen", "King", "Wright", "Scott", "Hill",
    "Green", "Adams", "Baker", "Nelson", "Carter", "Mitchell", "Roberts", "Turner", "Phillips",
    "Campbell", "Parker", "Evans", "Edwards", "Collins", "Stewart", "Morris", "Rogers", "Reed",
    "Cook", "Morgan", "Bell", "Murphy", "Bailey", "Cooper", "Richardson", "Cox", "Howard", "Ward",
    "University Lands", "State", "Federal", "Ranch", "Estate", "Trust", "Mesa", "Draw", "Creek",
  ]
  static let leaseSuffixes = ["Unit", "Lease", "A", "B", "Heirs", "Fee", "Estate", "State", "Federal"]
}
