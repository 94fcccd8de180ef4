import ResultModel

/// A figure of a case: the results model's, not Foundation's unit-bearing `Measurement`,
/// which every file here also imports.
package typealias Measurement = ResultModel.Measurement
