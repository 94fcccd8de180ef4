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
  static let cities = [
    "Houston", "Dallas", "Austin", "San Antonio", "Midland", "Odessa", "Tulsa", "Oklahoma City",
    "Wichita", "Topeka", "Atlanta", "Savannah", "Macon", "Miami", "Tampa", "Orlando", "Naples",
    "Chicago", "Joliet", "Peoria", "Los Angeles", "San Diego", "Fresno", "Irvine", "Oakland",
    "Denver", "Boulder", "Pueblo", "Phoenix", "Tucson", "Mesa", "Las Vegas", "Reno", "Seattle",
    "Spokane", "Tacoma", "Portland", "Salem", "Boise", "Salt Lake City", "Provo", "Albuquerque",
    "Santa Fe", "Cheyenne", "Casper", "Omaha", "Lincoln", "Des Moines", "Cedar Rapids",
    "Minneapolis", "St. Paul", "Duluth", "Kansas City", "St. Louis", "Springfield", "Little Rock",
    "Memphis", "Nashville", "Knoxville", "Birmingham", "Mobile", "Jackson", "New Orleans",
    "Baton Rouge", "Shreveport", "Lafayette", "Charlotte", "Raleigh", "Columbia", "Charleston",
    "Richmond", "Norfolk", "Baltimore", "Newark", "Trenton", "Boston", "Worcester", "Hartford",
    "Providence", "Manchester", "Burlington", "Portland", "Albany", "Buffalo", "New York",
    "Pittsburgh", "Philadelphia", "Cleveland", "Columbus", "Detroit", "Lansing", "Milwaukee",
    "Madison", "Indianapolis", "Louisville", "Lexington", "Anchorage", "Honolulu", "San Juan",
    "Washington", "Sioux Falls", "Fargo", "Billings", "Coeur d'Alene", "Alpharetta", "Woodstock",
  ]
  static let counties = [
    "Andrews", "Ector", "Midland", "Reeves", "Loving", "Howard", "Martin", "Upton", "Crane",
    "Pecos", "Ward", "Winkler", "Karnes", "Dimmit", "La Salle", "Webb", "Zavala", "Gonzales",
    "DeWitt", "Lavaca", "Frio", "Atascosa", "McMullen", "Live Oak", "Kern", "Ventura", "Fresno",
    "Grady", "Canadian", "Kingfisher", "Garvin", "Stephens", "Carter", "Logan", "Payne", "Osage",
    "Barton", "Ellis", "Russell", "Butler", "Sedgwick", "Rooks", "Ness", "Stafford", "Finney",
    "Lea", "Eddy", "San Juan", "Rio Arriba", "Campbell", "Converse", "Sweetwater", "Laramie",
    "Weld", "Garfield", "Adams", "McKenzie", "Williams", "Mountrail", "Dunn", "Divide",
    "Washington", "Greene", "Tioga", "Bradford", "Susquehanna", "Doddridge", "Ritchie", "Tyler",
    "Wetzel", "Belmont", "Monroe", "Noble", "Guernsey", "Harrison", "Otsego", "Kalkaska",
    "Grand Traverse", "Wayne", "Clay", "Marion", "Pike", "Floyd", "Uintah", "Duchesne", "Carbon",
    "Richland", "Roosevelt", "Toole", "Acadia", "Caddo", "Lafourche", "Plaquemines", "Terrebonne",
    "Jefferson", "Lincoln", "Madison", "Jackson", "Franklin", "Hamilton", "Union", "Warren",
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
