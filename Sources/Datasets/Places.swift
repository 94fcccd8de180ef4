// Real places of each state, so that a row's city or county lies in its state. Changing any
// list changes every checksum in datasets/manifest.json: append-only edits are still edits.

package enum Places {
  /// Cities with banks, by state code.
  package static let cities: [String: [String]] = [
    "TX": [
      "Houston", "Dallas", "Austin", "San Antonio", "Fort Worth", "El Paso", "Midland", "Odessa", "Lubbock", "Amarillo",
    ],
    "CA": ["Los Angeles", "San Diego", "San Francisco", "Fresno", "Oakland", "Sacramento", "Irvine", "Bakersfield"],
    "OK": ["Oklahoma City", "Tulsa", "Norman", "Enid", "Lawton", "Stillwater"],
    "LA": ["New Orleans", "Baton Rouge", "Shreveport", "Lafayette", "Lake Charles", "Monroe"],
    "FL": ["Miami", "Tampa", "Orlando", "Jacksonville", "Naples", "Tallahassee", "Fort Lauderdale"],
    "IL": ["Chicago", "Joliet", "Peoria", "Springfield", "Rockford", "Naperville"],
    "GA": ["Atlanta", "Savannah", "Macon", "Alpharetta", "Woodstock", "Augusta", "Columbus"],
    "CO": ["Denver", "Boulder", "Pueblo", "Colorado Springs", "Greeley", "Fort Collins"],
    "KS": ["Wichita", "Topeka", "Kansas City", "Lawrence", "Salina", "Hutchinson"],
    "NY": ["New York", "Buffalo", "Albany", "Rochester", "Syracuse", "Yonkers"],
    "MA": ["Boston", "Worcester", "Springfield", "Lowell", "Cambridge", "Quincy"],
    "NJ": ["Newark", "Trenton", "Jersey City", "Paterson", "Camden", "Princeton"],
    "MN": ["Minneapolis", "St. Paul", "Duluth", "Rochester", "Bloomington", "St. Cloud"],
    "MO": ["Kansas City", "St. Louis", "Springfield", "Columbia", "Joplin", "Independence"],
    "AZ": ["Phoenix", "Tucson", "Mesa", "Scottsdale", "Flagstaff", "Tempe"],
    "MI": ["Detroit", "Lansing", "Grand Rapids", "Ann Arbor", "Flint", "Kalamazoo"],
    "IA": ["Des Moines", "Cedar Rapids", "Davenport", "Iowa City", "Sioux City", "Dubuque"],
    "WA": ["Seattle", "Spokane", "Tacoma", "Bellevue", "Everett", "Yakima"],
    "NE": ["Omaha", "Lincoln", "Grand Island", "Kearney", "Norfolk"],
    "WY": ["Cheyenne", "Casper", "Laramie", "Gillette", "Rock Springs", "Sheridan"],
    "NM": ["Albuquerque", "Santa Fe", "Las Cruces", "Roswell", "Farmington", "Hobbs"],
    "UT": ["Salt Lake City", "Provo", "Ogden", "St. George", "Logan", "Orem"],
    "NC": ["Charlotte", "Raleigh", "Greensboro", "Durham", "Wilmington", "Asheville"],
    "VA": ["Richmond", "Norfolk", "Virginia Beach", "Roanoke", "Alexandria", "Charlottesville"],
    "CT": ["Hartford", "New Haven", "Stamford", "Bridgeport", "Waterbury"],
    "NV": ["Las Vegas", "Reno", "Henderson", "Carson City", "Elko"],
    "OR": ["Portland", "Salem", "Eugene", "Bend", "Medford"],
    "WI": ["Milwaukee", "Madison", "Green Bay", "Kenosha", "Eau Claire"],
    "AL": ["Birmingham", "Mobile", "Montgomery", "Huntsville", "Tuscaloosa"],
    "AR": ["Little Rock", "Fort Smith", "Fayetteville", "Jonesboro", "Pine Bluff"],
    "PA": ["Philadelphia", "Pittsburgh", "Harrisburg", "Allentown", "Erie", "Scranton"],
    "TN": ["Nashville", "Memphis", "Knoxville", "Chattanooga", "Jackson"],
    "SC": ["Columbia", "Charleston", "Greenville", "Spartanburg", "Myrtle Beach"],
    "MD": ["Baltimore", "Annapolis", "Frederick", "Rockville", "Hagerstown"],
    "IN": ["Indianapolis", "Fort Wayne", "Evansville", "South Bend", "Bloomington"],
    "OH": ["Columbus", "Cleveland", "Cincinnati", "Toledo", "Akron", "Dayton"],
    "KY": ["Louisville", "Lexington", "Bowling Green", "Owensboro", "Paducah"],
    "MS": ["Jackson", "Gulfport", "Hattiesburg", "Tupelo", "Biloxi"],
    "NH": ["Manchester", "Nashua", "Concord", "Portsmouth", "Keene"],
    "ID": ["Boise", "Coeur d'Alene", "Idaho Falls", "Pocatello", "Twin Falls"],
    "MT": ["Billings", "Missoula", "Great Falls", "Bozeman", "Helena"],
    "SD": ["Sioux Falls", "Rapid City", "Aberdeen", "Brookings", "Pierre"],
    "ND": ["Fargo", "Bismarck", "Grand Forks", "Minot", "Williston"],
    "AK": ["Anchorage", "Fairbanks", "Juneau", "Ketchikan"],
    "HI": ["Honolulu", "Hilo", "Kailua", "Lihue"],
    "ME": ["Portland", "Bangor", "Lewiston", "Augusta"],
    "VT": ["Burlington", "Montpelier", "Rutland", "Brattleboro"],
    "RI": ["Providence", "Warwick", "Cranston", "Newport"],
    "WV": ["Charleston", "Huntington", "Morgantown", "Wheeling", "Parkersburg"],
    "DE": ["Wilmington", "Dover", "Newark"],
    "PR": ["San Juan", "Ponce", "Mayagüez", "Bayamón", "Caguas"],
    "DC": ["Washington"],
  ]

  /// Counties (Louisiana's parishes) with oil and gas wells, by state code, the busiest first.
  package static let counties: [String: [String]] = [
    "TX": [
      "Midland", "Reeves", "Martin", "Howard", "Loving", "Upton", "Ector", "Andrews", "Ward", "Karnes", "Pecos",
      "Crane",
      "Winkler", "Dimmit", "La Salle", "Webb", "Gonzales", "DeWitt", "Frio", "Atascosa", "McMullen",
    ],
    "CA": ["Kern", "Los Angeles", "Ventura", "Fresno", "Santa Barbara", "Kings", "Monterey"],
    "OK": ["Grady", "Canadian", "Kingfisher", "Garvin", "Stephens", "Carter", "Logan", "Payne", "Osage", "Blaine"],
    "LA": ["Caddo", "De Soto", "Bossier", "Lafourche", "Plaquemines", "Terrebonne", "Acadia", "Cameron"],
    "IL": ["Wabash", "White", "Lawrence", "Crawford", "Clay", "Marion", "Wayne"],
    "CO": ["Weld", "Garfield", "Adams", "Rio Blanco", "La Plata", "Las Animas", "Mesa"],
    "KS": ["Barton", "Ellis", "Russell", "Butler", "Sedgwick", "Rooks", "Ness", "Stafford", "Finney", "Seward"],
    "NY": ["Allegany", "Cattaraugus", "Chautauqua", "Steuben", "Erie"],
    "MI": ["Otsego", "Kalkaska", "Grand Traverse", "Antrim", "Crawford", "Manistee"],
    "WY": ["Campbell", "Converse", "Sweetwater", "Laramie", "Johnson", "Sublette", "Natrona"],
    "NM": ["Lea", "Eddy", "San Juan", "Rio Arriba", "Chaves", "Roosevelt"],
    "UT": ["Uintah", "Duchesne", "Carbon", "Emery", "San Juan"],
    "PA": ["Washington", "Greene", "Tioga", "Bradford", "Susquehanna", "Lycoming", "Butler"],
    "OH": ["Belmont", "Monroe", "Noble", "Guernsey", "Harrison", "Carroll", "Washington"],
    "KY": ["Pike", "Floyd", "Johnson", "Martin", "Knott", "Magoffin"],
    "MT": ["Richland", "Roosevelt", "Toole", "Fallon", "Musselshell"],
    "ND": ["McKenzie", "Williams", "Mountrail", "Dunn", "Divide", "Burke"],
    "WV": ["Doddridge", "Ritchie", "Tyler", "Wetzel", "Harrison", "Marshall"],
  ]
}

extension StateInfo {
  /// The state's cities; every state the generators draw has some.
  var cities: [String] { Places.cities[code]! }
  /// The state's counties with wells; every state with a well weight has some.
  var wellCounties: [String] { Places.counties[code]! }
}
