import ArgumentParser
import Foundation
import Vocabulary

/// `--locale`: the locale sort selectors compare in. A setting of the command and of the cases
/// it starts (`CommandSettings.locale`), applied before the command line is parsed: the
/// engine's models take their collation when they are made, and checking the options makes
/// some.
struct LocaleOption: ParsableArguments {
  @Option(
    help: ArgumentHelp(
      """
      The locale a sort selector (localizedStandardCompare: and the others) compares in: en_US (the default), \
      de_DE, sv_SE, ….
      """, valueName: "identifier"))
  var locale: String?

  func validate() throws {
    if let locale, !Locale.availableIdentifiers.contains(locale) {
      throw ValidationError("--locale '\(locale)' is not a locale this machine knows; give one such as en_US or sv_SE")
    }
  }

  /// Sets the command's locale from `arguments`' `--locale`, before anything reads it.
  static func applyEarly(_ arguments: [String]) {
    for (i, a) in arguments.enumerated() {
      let value =
        a == "--locale" && i + 1 < arguments.count
        ? arguments[i + 1] : a.hasPrefix("--locale=") ? String(a.dropFirst("--locale=".count)) : nil
      if let value { CommandSettings.update { $0.locale = value } }
    }
  }
}
