/// What the recommendation says of the fetch indexes a Core Data model declares on the list's
/// table: the one its ID query reads through, and those none of its statements reads.
extension Recommendation {
  /// The model's fetch indexes on the list's table that none of `plans` reads through; none
  /// without plans (the index advice did not run). O(declared × plans).
  static func unused(_ declared: [String], _ plans: [String]) -> [String] {
    guard !plans.isEmpty else { return [] }
    let used = Set(plans.flatMap(IndexPick.fetchIndexes(in:)))
    return declared.filter { !used.contains($0) }
  }

  /// `The model's fetch index Z_Item_byTitle is read by none of the statements measured…`
  static func unusedFetchIndexSentence(_ names: [String]) -> String? {
    guard !names.isEmpty else { return nil }
    let (noun, verb) = names.count == 1 ? ("fetch index", "is") : ("fetch indexes", "are")
    return """
      The model's \(noun) \(names.joined(separator: ", ")) \(verb) read by none of this list's statements the index \
      advice measured (their query plans); each save still updates \(names.count == 1 ? "it" : "them").
      """
  }

  /// `Its ID query reads through the model's fetch index Z_Item_byTitle (the query plan). `;
  /// empty where it reads through none.
  static func modelIndexSentence(_ pick: IndexPick) -> String {
    pick.modelIndex.map { "Its ID query reads through the model's fetch index \($0) (the query plan). " } ?? ""
  }
}
