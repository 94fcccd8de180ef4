import CLibCrypto
import Foundation

/// SHA-256 through the system's OpenSSL (libcrypto's EVP interface), fed in pieces: a dataset's
/// file as it is written, a user's database as it is read. Not thread-safe.
public final class SHA256Hasher {
  private let context: OpaquePointer

  public init() {
    // Allocation of a digest context fails only when memory does: as Swift's own allocations.
    guard let context = EVP_MD_CTX_new(), EVP_DigestInit_ex(context, EVP_sha256(), nil) == 1 else {
      fatalError("libcrypto could not start a SHA-256 digest (out of memory)")
    }
    self.context = context
  }

  deinit { EVP_MD_CTX_free(context) }

  /// Adds `data` to the digest. O(bytes).
  public func update(_ data: some ContiguousBytes) {
    data.withUnsafeBytes { bytes in _ = EVP_DigestUpdate(context, bytes.baseAddress, bytes.count) }
  }

  /// The digest of everything added, as 64 lowercase hex digits; the hasher is spent. O(1).
  public func hex() -> String {
    var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
    var length: UInt32 = 0
    _ = EVP_DigestFinal_ex(context, &digest, &length)
    return digest.prefix(Int(length)).map { String(format: "%02x", $0) }.joined()
  }

  /// The SHA-256 of `data` as hex. O(bytes).
  public static func hex(of data: Data) -> String {
    let hasher = SHA256Hasher()
    hasher.update(data)
    return hasher.hex()
  }
}
